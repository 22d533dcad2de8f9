//go:build unix

package scan

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only. The mapping is shared (no copy
// of the pages) and never written; unmap releases it. Pages are faulted in
// as the reader reaches them, with the kernel reading ahead (no
// MAP_POPULATE: on a cold cache that would read the whole file before the
// first batch is parsed, instead of overlapping disk and CPU).
func mapFile(f *os.File, size int64) (data []byte, unmap func(), err error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, errNoMap
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	_ = unix.Madvise(b, unix.MADV_SEQUENTIAL) // a hint; reading works without it
	return b, func() { _ = unix.Munmap(b) }, nil
}

// dropPages releases the pages of b from this process (they stay in the
// page cache; touching them again faults them back in). b must start on a
// page boundary.
func dropPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }

// populate asks the kernel to map the pages of b from the page cache in
// one call (MADV_POPULATE_READ, Linux 5.14 on) before they are read: one
// system call for a range instead of a fault for every 64 KiB of it. It is
// a hint; where the kernel does not have it, the pages fault in as read.
func populate(b []byte) { _ = unix.Madvise(b, madvPopulateRead) }
