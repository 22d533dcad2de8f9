//go:build !linux

package dups

// allocRecs returns an empty buffer with room for n records, on the heap.
func allocRecs(n int) (buf []rec, mem []byte) { return make([]rec, 0, n), nil }

func freeRecs([]byte) {}
