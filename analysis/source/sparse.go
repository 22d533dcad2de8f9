package source

import (
	"context"
	"io"
)

// DataRange is a stretch of a file that holds data: bytes Start to End
// (exclusive). A sparse file's bytes outside its data ranges are holes:
// nothing is stored for them and they read as zeros.
type DataRange struct {
	Start, End int64
}

// SparseReader is the reader Stream gives for a sparse archive entry. It
// reads the whole file, holes as zeros; a caller that knows what a hole
// means (a preallocated tail) skips it with SkipTo instead of reading
// gigabytes of zeros.
type SparseReader interface {
	io.Reader
	// DataRanges lists the entry's data, in order.
	DataRanges() []DataRange
	// SkipTo moves forward to byte off of the entry: holes cost nothing,
	// data skipped is read and dropped.
	SkipTo(off int64) error
}

// DataEnd is where the data of a file of size bytes ends: the end of its
// last data range, or size when ranges is nil (nothing known of holes).
// What lies after it is one hole to the end of the file.
func DataEnd(ranges []DataRange, size int64) int64 {
	if ranges == nil {
		return size
	}
	if len(ranges) == 0 {
		return 0
	}
	return min(ranges[len(ranges)-1].End, size)
}

// Holes lists the holes before end of a file with the given data ranges
// (nil: none known): the stretches before, between and after its ranges,
// cut at end. A caller that reads to DataEnd passes that as end, so the
// hole after the last data, if any, is not among them.
func Holes(ranges []DataRange, end int64) []DataRange {
	var out []DataRange
	if ranges == nil {
		return nil
	}
	var at int64
	for _, r := range ranges {
		if r.Start >= end {
			break
		}
		if r.Start > at {
			out = append(out, DataRange{Start: at, End: r.Start})
		}
		at = max(at, r.End)
	}
	if at < end {
		out = append(out, DataRange{Start: at, End: end})
	}
	return out
}

// entryReader reads one tar entry's data: straight through for a plain
// entry, or by its sparse map, zeros for the holes.
type entryReader struct {
	ctx context.Context
	r   io.Reader
	// size is the logical size, pos the logical position; phys counts the
	// stored bytes not yet read.
	size, pos, phys int64
	ranges          []DataRange // nil: a plain entry
	ri              int         // the first range not wholly before pos
}

var _ SparseReader = (*entryReader)(nil)

func (e *entryReader) DataRanges() []DataRange {
	if e.ranges == nil {
		if e.size == 0 {
			return []DataRange{}
		}
		return []DataRange{{0, e.size}}
	}
	return e.ranges
}

// span returns how many bytes from pos on are data (hole false) or hole
// (hole true) before that changes.
func (e *entryReader) span() (n int64, hole bool) {
	if e.ranges == nil {
		return e.size - e.pos, false
	}
	for e.ri < len(e.ranges) && e.ranges[e.ri].End <= e.pos {
		e.ri++
	}
	if e.ri < len(e.ranges) {
		if r := e.ranges[e.ri]; r.Start <= e.pos {
			return r.End - e.pos, false
		} else {
			return r.Start - e.pos, true
		}
	}
	return e.size - e.pos, true
}

func (e *entryReader) Read(p []byte) (int, error) {
	// A hole is filled without reading the input: the context is
	// checked here, not only by the input's reads.
	if err := e.ctx.Err(); err != nil {
		return 0, err
	}
	if e.pos >= e.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	n, hole := e.span()
	n = min(n, int64(len(p)))
	if hole {
		clear(p[:n])
		e.pos += n
		return int(n), nil
	}
	k, err := e.r.Read(p[:n])
	e.pos += int64(k)
	e.phys -= int64(k)
	if err == io.EOF {
		if k > 0 {
			return k, nil
		}
		return 0, io.ErrUnexpectedEOF
	}
	return k, err
}

// SkipTo moves forward to off (at most the size): holes are passed over,
// data is read and dropped.
func (e *entryReader) SkipTo(off int64) error {
	off = min(off, e.size)
	for e.pos < off {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		n, hole := e.span()
		n = min(n, off-e.pos)
		if hole {
			e.pos += n
			continue
		}
		k, err := io.CopyN(io.Discard, e.r, n)
		e.pos += k
		e.phys -= k
		if err != nil {
			return err
		}
	}
	if e.pos >= e.size && e.phys > 0 {
		// Cannot happen for a checked sparse map, whose data adds up to
		// what is stored; kept so the stream never loses its place.
		k, err := io.CopyN(io.Discard, e.r, e.phys)
		e.phys -= k
		return err
	}
	return nil
}
