//go:build linux || freebsd

package source

import (
	"os"

	"golang.org/x/sys/unix"
)

// maxFileRanges bounds the data ranges FileDataRanges lists (64 KiB of
// them): past it the rest of the file counts as data.
const maxFileRanges = 1 << 12

// FileDataRanges lists the data ranges of the first size bytes of an open
// file with SEEK_DATA and SEEK_HOLE, and leaves the file's offset at 0. It
// returns nil when that cannot be told (a file system without them):
// every byte then counts as data. A file in more than maxFileRanges
// pieces has its last range run to size: its holes after that are read
// as zeros. A file system may report data where there are zeros
// (preallocated blocks), never a hole where there is data.
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
		if len(out) == maxFileRanges-1 {
			return append(out, DataRange{Start: start, End: size})
		}
		end, err := unix.Seek(fd, start, unix.SEEK_HOLE)
		if err != nil || end <= start {
			return nil
		}
		out = append(out, DataRange{Start: start, End: min(end, size)})
		off = end
	}
	return out
}
