//go:build linux || freebsd

package source

import (
	"os"

	"golang.org/x/sys/unix"
)

// maxFileRanges bounds the data ranges FileDataRanges lists: a file
// fragmented into more is treated as having no holes.
const maxFileRanges = 1 << 16

// FileDataRanges lists the data ranges of the first size bytes of an open
// file with SEEK_DATA and SEEK_HOLE, and leaves the file's offset at 0. It
// returns nil when that cannot be told (a file system without them, or a
// file in more than maxFileRanges pieces): every byte then counts as data.
// A file system may report data where there are zeros (preallocated
// blocks), never a hole where there is data.
func FileDataRanges(f *os.File, size int64) []DataRange {
	defer f.Seek(0, 0)
	fd := int(f.Fd())
	out := []DataRange{}
	for off := int64(0); off < size; {
		start, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if err == unix.ENXIO || err == nil && start >= size {
			break // no data after off: a hole to the end
		}
		if err != nil {
			return nil
		}
		end, err := unix.Seek(fd, start, unix.SEEK_HOLE)
		if err != nil || end <= start {
			return nil
		}
		if len(out) == maxFileRanges {
			return nil
		}
		out = append(out, DataRange{Start: start, End: min(end, size)})
		off = end
	}
	return out
}
