package scan

import (
	"context"
	"crypto/sha256"
	"io"
	"os"
	"sync"

	"github.com/ksleuth/ksleuth/analysis/source"
)

// What the parsers read a file through, and the SHA-256 of the file taken
// beside them.

// countingReader reports progress.
type countingReader struct {
	r        io.Reader
	progress func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 && c.progress != nil {
		c.progress(int64(n))
	}
	return n, err
}

// fileInput is an opened input file as the parsers read it: sequential
// reads that report progress, and ReadAt for the segment reader. It ends
// at size, which is before the file's end when a hole follows.
type fileInput struct {
	f        *os.File
	size     int64
	read     int64
	progress func(int64)
}

func (fi *fileInput) Read(p []byte) (int, error) {
	if fi.read >= fi.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), fi.size-fi.read)]
	n, err := fi.f.Read(p)
	fi.read += int64(n)
	if n > 0 && fi.progress != nil {
		fi.progress(int64(n))
	}
	return n, err
}

func (fi *fileInput) ReadAt(p []byte, off int64) (int, error) { return fi.f.ReadAt(p, off) }

func (fi *fileInput) Size() int64 { return fi.size }

// reportRest counts the bytes the parser did not read (a skipped tail,
// a file too large to parse) as done.
func (fi *fileInput) reportRest() {
	if rest := fi.size - fi.read; rest > 0 && fi.progress != nil {
		fi.progress(rest)
	}
}

type hashResult struct {
	sum []byte
	err error
}

// hashBufs are hashFile's read buffers.
var hashBufs = sync.Pool{New: func() any { return new([1 << 20]byte) }}

// hashFile computes the SHA-256 of a file (or its mapping) from its first
// byte to its end, with ReadAt on its own goroutine, and delivers it once.
// With m (a mapped segment) it hashes the mapping and reports its
// progress to m. The file's data ends at end (the mapping's end for m);
// hole bytes of zeros follow it, hashed without reading them, and so are
// holes before end (never in a mapped file).
func hashFile(ctx context.Context, f io.ReaderAt, m *mappedInput, end, hole int64, holes []source.DataRange) <-chan hashResult {
	var mapped []byte
	if m != nil {
		mapped = m.data
	}
	out := make(chan hashResult, 1)
	go func() {
		buf := hashBufs.Get().(*[1 << 20]byte)
		defer hashBufs.Put(buf)
		h := sha256.New()
		var off int64
		err := guardFaults(mapped, func() error {
			if m == nil {
				if err := hashRanges(ctx, h, f, end, holes, buf[:], func(int64) {}); err != nil {
					return err
				}
				return hashZeros(ctx, h, hole)
			}
			for {
				if err := ctx.Err(); err != nil {
					return err
				}
				var n int
				var err error
				if mapped != nil { // hash the pages in place, no copy
					n = min(len(buf), len(mapped)-int(off))
					h.Write(mapped[off : off+int64(n)])
					if off+int64(n) == int64(len(mapped)) {
						err = io.EOF
					}
				} else {
					n, err = f.ReadAt(buf[:min(int64(len(buf)), end-off)], off)
					h.Write(buf[:n])
					if off+int64(n) >= end {
						err = io.EOF
					}
				}
				off += int64(n)
				if m != nil {
					m.hashedTo(off)
				}
				if err == io.EOF {
					return hashZeros(ctx, h, hole)
				}
				if err != nil {
					return err
				}
			}
		})
		if err != nil {
			out <- hashResult{err: err}
			return
		}
		out <- hashResult{sum: h.Sum(nil)}
	}()
	return out
}
