package scan

import (
	"context"
	"errors"
	"hash"
	"io"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
)

// A segment file (or sparse archive entry) may hold holes: a preallocated
// segment is a file of its full size whose tail the file system stores
// no blocks for, and a hole punched into a file, or a sparse copy of it,
// leaves holes between data. The holes are found with SEEK_DATA and
// SEEK_HOLE (or an archive entry's sparse map) and are never read. The
// hole after the last data is cut off before the reader (one finding
// here); the segment reader passes each hole before it (Options.Holes)
// with one finding and reads on at the next data. The file's hash counts
// the zeros of all its holes without reading them, up to maxHashedHole.

// maxHashedHole bounds the zeros hashed for a hole: SHA-256 runs at about
// 1-2 GB/s, so 4 GiB adds a few seconds on the hasher's core; a larger
// hole (a sparse bomb declaring a terabyte) leaves the file unhashed.
var maxHashedHole int64 = 4 << 30

// KindSparseHole is the finding for a hole to the end of a file.
const KindSparseHole = finding.KindSparseHole

// zeroBlock is what a hole is hashed from.
var zeroBlock [1 << 20]byte

// hashable reports whether the file's hash can be computed: its holes, if
// any, are small enough to hash as zeros.
func (fc *fileCtx) hashable() bool { return fc.hole+fc.holeBytes <= maxHashedHole }

// setHoles records the data ranges of a file (or sparse entry) of size
// bytes: where its data ends, the hole after it, and the holes before.
func (fc *fileCtx) setHoles(ranges []source.DataRange, size int64) {
	fc.dataEnd = source.DataEnd(ranges, size)
	fc.hole = size - fc.dataEnd
	fc.holes = source.Holes(ranges, fc.dataEnd)
	fc.holeBytes = 0
	for _, h := range fc.holes {
		fc.holeBytes += h.End - h.Start
	}
}

// segmentHoles is fc.holes for the segment reader.
func (fc *fileCtx) segmentHoles() []segment.Hole {
	if len(fc.holes) == 0 {
		return nil
	}
	out := make([]segment.Hole, len(fc.holes))
	for i, h := range fc.holes {
		out[i] = segment.Hole{Start: h.Start, End: h.End}
	}
	return out
}

// holeAt returns the hole of holes that holds off, or the first after
// it (ok false when there is none).
func holeAt(holes []source.DataRange, off int64) (h source.DataRange, ok bool) {
	for _, h := range holes {
		if h.End > off {
			return h, true
		}
	}
	return source.DataRange{}, false
}

// hashZeros adds n zero bytes to h, checking ctx between megabytes.
func hashZeros(ctx context.Context, h hash.Hash, n int64) error {
	for n > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(n, int64(len(zeroBlock)))
		h.Write(zeroBlock[:k])
		n -= k
	}
	return nil
}

// reportHole counts the hole as read for progress: it is done.
func (fc *fileCtx) reportHole(progress func(int64)) {
	if fc.hole > 0 && progress != nil {
		progress(fc.hole)
	}
}

// holeFindings says that the file ends in a hole, and when it was too
// large to hash.
func (fc *fileCtx) holeFindings(hashing bool) {
	if fc.hole <= 0 {
		return
	}
	end := fc.dataEnd + fc.hole
	th := segment.TailHole(fc.e.Path, fc.dataEnd, end)
	fc.anomaly(finding.NewSev(fc.where(), finding.ReaderKind(th), finding.ReaderSeverity(th), fc.dataEnd, -1, "%s", th.Err.Error()))
	if hashing && !fc.hashable() {
		fc.anomaly(finding.New(fc.where(), finding.KindNotHashed, -1, -1,
			"sha256 not computed: the %d bytes of holes would be hashed as zeros, more than the %d bytes hashed for holes", fc.hole+fc.holeBytes, maxHashedHole))
	}
}

// Seek moves a file input forward from where it is (io.SeekCurrent; the
// segment reader passes a hole so), or tells where it is: the bytes
// passed count as read.
func (fi *fileInput) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekCurrent || off < 0 {
		return fi.read, errors.New("scan: a file input seeks forward only")
	}
	if off == 0 {
		return fi.read, nil
	}
	if _, err := fi.f.Seek(off, io.SeekCurrent); err != nil {
		return fi.read, err
	}
	fi.read += off
	if fi.progress != nil {
		fi.progress(off)
	}
	return fi.read, nil
}

// entryInput is a sparse archive entry as the segment reader reads it: up
// to the end of its data, with Seek passing a hole at no cost. Skipped
// holes count as zeros in the hash (when hash is set) and as progress.
type entryInput struct {
	ctx      context.Context
	sr       source.SparseReader
	r        io.Reader // sr, counted for progress and teed into the hash
	pos, end int64
	holes    []source.DataRange
	hash     hash.Hash
	progress func(int64)
}

func (e *entryInput) Read(p []byte) (int, error) {
	if e.pos >= e.end {
		return 0, io.EOF
	}
	n, err := e.r.Read(p[:min(int64(len(p)), e.end-e.pos)])
	e.pos += int64(n)
	return n, err
}

// Seek moves forward from where the entry is (io.SeekCurrent only): its
// holes are passed, its data is read and dropped.
func (e *entryInput) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekCurrent || off < 0 {
		return e.pos, errors.New("scan: an archive entry seeks forward only")
	}
	to := min(e.pos+off, e.end)
	for e.pos < to {
		h, ok := holeAt(e.holes, e.pos)
		if ok && h.Start <= e.pos { // in a hole
			k := min(h.End, to) - e.pos
			if e.hash != nil {
				if err := hashZeros(e.ctx, e.hash, k); err != nil {
					return e.pos, err
				}
			}
			if err := e.sr.SkipTo(e.pos + k); err != nil {
				return e.pos, err
			}
			if e.progress != nil {
				e.progress(k)
			}
			e.pos += k
			continue
		}
		next := to
		if ok {
			next = min(h.Start, to)
		}
		if _, err := io.CopyN(io.Discard, e, next-e.pos); err != nil {
			return e.pos, err
		}
	}
	return e.pos, nil
}

// hashRanges hashes a file's first end bytes into h with ReadAt, its
// holes as zeros without reading them; at is called with the offset
// reached after each step.
func hashRanges(ctx context.Context, h hash.Hash, f io.ReaderAt, end int64, holes []source.DataRange, buf []byte, at func(int64)) error {
	for off := int64(0); off < end; {
		if err := ctx.Err(); err != nil {
			return err
		}
		hole, ok := holeAt(holes, off)
		if ok && hole.Start <= off {
			n := min(hole.End, end) - off
			if err := hashZeros(ctx, h, n); err != nil {
				return err
			}
			off += n
			at(off)
			continue
		}
		next := end
		if ok {
			next = min(hole.Start, end)
		}
		n, err := f.ReadAt(buf[:min(int64(len(buf)), next-off)], off)
		h.Write(buf[:n])
		off += int64(n)
		at(off)
		if err != nil && !(err == io.EOF && off >= end) {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}
