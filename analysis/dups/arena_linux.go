package dups

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// minArenaBytes: buffers smaller than this stay on the Go heap.
const minArenaBytes = 4 << 20

// allocRecs returns an empty buffer with room for n records. A large one is
// an anonymous mapping outside the Go heap, advised to use transparent huge
// pages: the buffer is written once from start to end, and with 4 KiB pages
// faulting it in took about a twentieth of a scan's CPU. Records hold no
// pointers, so the collector need not see them. mem is the mapping to
// release with freeRecs once no slice of it is in use (nil: heap memory).
func allocRecs(n int) (buf []rec, mem []byte) {
	size := n * int(unsafe.Sizeof(rec{}))
	if size < minArenaBytes {
		return make([]rec, 0, n), nil
	}
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]rec, 0, n), nil
	}
	_ = unix.Madvise(mem, unix.MADV_HUGEPAGE) // a hint: 4 KiB pages work too
	return unsafe.Slice((*rec)(unsafe.Pointer(unsafe.SliceData(mem))), n)[:0], mem
}

// freeRecs releases a mapping from allocRecs.
func freeRecs(mem []byte) {
	if mem != nil {
		_ = unix.Munmap(mem)
	}
}
