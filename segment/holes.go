package segment

import (
	"errors"
	"fmt"
	"io"
)

// Hole is a byte range of the input, Start to End (exclusive), that holds
// no data: a hole of a sparse file (found with SEEK_DATA and SEEK_HOLE)
// or of a sparse archive entry (its sparse map). It reads as zeros.
type Hole struct {
	Start, End int64
}

// ErrHole: the reader passed over a hole without reading it. A hole with
// data after it is an error: Kafka writes a segment front to back, so
// bytes missing between batches are lost data (a punched hole, blocks
// never written before a crash) or zeros a sparse copy turned into a
// hole. A hole to the end of the input also wraps ErrZeroTail: a
// preallocated segment's tail, a note.
var ErrHole = errors.New("segment: hole")

// TailHole is the finding for a file whose data ends at byte start and
// whose bytes from there to end are a hole: a preallocated segment's
// unwritten tail, a note. A caller that reads a sparse file only up to
// its data (as every command does, so that a file declaring a terabyte
// costs nothing) reports the hole with it, after the reader's findings
// about the bytes before start (a zero-tail for zeros stored in the last
// data block): the same two findings whichever command reads the file.
func TailHole(path string, start, end int64) *CorruptionError {
	return &CorruptionError{Path: path, Offset: start, Length: end - start, BaseOffset: -1, Err: tailHole{start, end}}
}

// tailHole is a hole to the end of the file: kind sparse-hole (ErrHole),
// graded as a zero tail (ErrZeroTail).
type tailHole struct{ start, end int64 }

func (h tailHole) Error() string {
	return fmt.Sprintf("bytes %d to %d (%d bytes) are a hole: no data is stored there (a preallocated or sparse file); it reads as zeros and was not read",
		h.start, h.end, h.end-h.start)
}

func (h tailHole) Unwrap() []error { return []error{ErrHole, ErrZeroTail} }

// nextHole returns the first hole that ends after pos, if any. Holes are
// in order, and the reader only moves forward: r.hole never goes back.
func (r *Reader) nextHole(pos int64) (Hole, bool) {
	hs := r.opts.Holes
	for r.hole < len(hs) && hs[r.hole].End <= pos {
		r.hole++
	}
	if r.hole < len(hs) {
		return hs[r.hole], true
	}
	return Hole{}, false
}

// passHole reports the bytes from pos (inside the hole h, or at the
// start of zeros just before it) to the hole's end as one finding and
// moves past them without reading the hole.
func (r *Reader) passHole(pos int64, h Hole) bool {
	stop, err := r.w.skipTo(h.End, r.opts.Interrupt)
	if stop != nil {
		r.err, r.done = stop, true
		return false
	}
	if err != nil {
		return r.ioFail(err)
	}
	start := max(pos, h.Start)
	msg := fmt.Sprintf("bytes %d to %d (%d bytes) are a hole: no data is stored there; it reads as zeros and was not read",
		start, h.End, h.End-start)
	if start > pos {
		msg += fmt.Sprintf(" (with the %d zero bytes before it)", start-pos)
	}
	f := &CorruptionError{Path: r.opts.Path, Offset: pos, Length: h.End - pos, BaseOffset: -1}
	if r.size >= 0 && h.End >= r.size {
		f.Err = fmt.Errorf("%w: %w: %s, to the end of the file", ErrHole, ErrZeroTail, msg)
	} else {
		f.Err = fmt.Errorf("%w: %s; reading goes on at byte %d", ErrHole, msg, h.End)
	}
	r.finding = f
	return true
}

// skipTo moves the window forward to input position pos. Buffered bytes
// are dropped; beyond them an input that is an io.Seeker is seeked
// forward from where it is (a hole costs nothing), any other input is
// read through, with interrupt checked every few MiB: stop is its error,
// err an I/O error.
func (w *window) skipTo(pos int64, interrupt func() error) (stop, err error) {
	w.keep = 0
	n := pos - w.pos
	if n <= 0 {
		return nil, nil
	}
	if buffered := int64(w.end - w.off); n <= buffered {
		w.off += int(n)
		w.pos = pos
		return nil, nil
	}
	w.pos += int64(w.end - w.off)
	w.off, w.end = 0, 0
	rest := pos - w.pos
	if w.eof || w.err != nil {
		return nil, w.err // nothing more to read: the next fill finds the end
	}
	if s, ok := w.r.(io.Seeker); ok {
		if _, err := s.Seek(rest, io.SeekCurrent); err == nil {
			w.pos = pos
			return nil, nil
		}
	}
	var tmp [64 << 10]byte
	for done := int64(0); rest > 0; {
		k, err := w.read(tmp[:min(rest, int64(len(tmp)))])
		rest -= int64(k)
		if done += int64(k); done >= 4<<20 && interrupt != nil {
			done = 0
			if stop := interrupt(); stop != nil {
				return stop, nil
			}
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, nil
}
