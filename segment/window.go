package segment

import (
	"errors"
	"io"
)

// window is the reader's buffer over its input: the bytes from the
// current position on, filled as far as a batch needs.
type window struct {
	r   io.Reader
	buf []byte
	off int
	end int
	pos int64 // input position of buf[off]
	// keep bytes before off are retained by fill: the tail of the batch
	// just read, for overlap. Any discard or read drops them.
	keep int
	eof  bool
	err  error
	// size is what the input holds when known (a file), else -1: the
	// buffer of a small or empty file is sized to it, not to minWindow
	// (100,000 empty segments cost 100,000 MiB of allocation otherwise).
	size int64
}

const minWindow = 1 << 20

// fill tries to make n bytes available at the current position and
// returns how many are (fewer only at end of input or on error). The buffer
// grows only as data actually arrives (at most doubling what is held), so a
// damaged length field can never make it allocate more than twice the bytes
// the input really has.
func (w *window) fill(n int) int {
	if w.end-w.off >= n || w.eof || w.err != nil {
		return min(n, w.end-w.off)
	}
	if start := w.off - w.keep; start > 0 && n > len(w.buf)-w.off {
		copy(w.buf, w.buf[start:w.end])
		w.end -= start
		w.off = w.keep
	}
	for w.end-w.off < n {
		if w.end == len(w.buf) {
			// Double: amortised growth, and never more than twice the
			// bytes the input has actually delivered.
			size := max(2*len(w.buf), minWindow)
			if w.size >= 0 && w.size < minWindow {
				size = max(2*len(w.buf), int(w.size)+4096)
			}
			nb := make([]byte, size)
			start := w.off - w.keep
			copy(nb, w.buf[start:w.end])
			w.end -= start
			w.off = w.keep
			w.buf = nb
		}
		m, err := w.r.Read(w.buf[w.end:])
		w.end += m
		if err == io.EOF {
			w.eof = true
			break
		}
		if err != nil {
			if !errors.Is(err, io.ErrNoProgress) {
				w.err = err
			}
			break
		}
	}
	return min(n, w.end-w.off)
}

func (w *window) peek(n int) []byte { return w.buf[w.off : w.off+n] }

// span returns n bytes starting i bytes from the current position; i may
// be negative down to -keep.
func (w *window) span(i, n int) []byte { return w.buf[w.off+i : w.off+i+n] }

// discard drops n bytes (which must be buffered, or be read through).
func (w *window) discard(n int) {
	w.keep = 0
	buffered := w.end - w.off
	if n <= buffered {
		w.off += n
		w.pos += int64(n)
		return
	}
	w.off, w.end = 0, 0
	w.pos += int64(buffered)
	var tmp [32 << 10]byte
	for rest := n - buffered; rest > 0; {
		k, err := w.read(tmp[:min(rest, len(tmp))])
		rest -= k
		if err != nil {
			return
		}
	}
}

// read consumes up to len(p) bytes: buffered ones first, then straight
// from the input (large streamed batches bypass the buffer).
func (w *window) read(p []byte) (int, error) {
	w.keep = 0
	if w.end > w.off {
		n := copy(p, w.buf[w.off:w.end])
		w.off += n
		w.pos += int64(n)
		return n, nil
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.eof {
		return 0, io.EOF
	}
	n, err := w.r.Read(p)
	w.pos += int64(n)
	if err == io.EOF {
		w.eof = true
	} else if err != nil {
		w.err = err
	}
	return n, err
}
