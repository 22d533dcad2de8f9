package segment

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestAheadTilesInput checks the prefetch ranges the reader hands its
// batches: in order, without gaps or overlaps, they cover the input from
// the end of the first batch on, and never reach outside it. A wrong range
// would not change what is read (a prefetch never faults) but would waste
// the work or, out of bounds, panic in the slicing.
func TestAheadTilesInput(t *testing.T) {
	for _, c := range []segtest.Codec{segtest.CodecNone, segtest.CodecLZ4} {
		seg := segtest.RealisticSegment(c, 1<<20, 7)
		// A second copy with a damaged batch in the middle: the reader
		// skips it and the ranges must still stay inside the input.
		for _, data := range [][]byte{seg, damageMiddle(t, seg)} {
			r := NewReaderBytes(data, Options{})
			base := uintptr(unsafe.Pointer(&data[0]))
			next := int64(-1) // where the next range must start
			var batches, records int
			for r.Next() {
				b := r.Batch()
				if b == nil {
					continue
				}
				batches++
				if next < 0 {
					next = b.Position + b.Size()
				}
				if len(b.ahead) > 0 {
					start := int64(uintptr(unsafe.Pointer(&b.ahead[0])) - base)
					if start != next {
						t.Fatalf("%v: batch at %d prefetches from %d, want %d", c, b.Position, start, next)
					}
					if start < b.Position+b.Size() || start+int64(len(b.ahead)) > int64(len(data)) {
						t.Fatalf("%v: range [%d,%d) outside the bytes after batch at %d", c, start, start+int64(len(b.ahead)), b.Position)
					}
					if !bytes.Equal(b.ahead, data[start:start+int64(len(b.ahead))]) {
						t.Fatalf("%v: range at %d is not the input's bytes", c, start)
					}
					next = start + int64(len(b.ahead))
					if b.Clone().ahead != nil {
						t.Fatal("a clone keeps its prefetch range")
					}
				}
				for it := r.Records(); it.Next(); {
					records++
				}
			}
			if next != int64(len(data)) {
				t.Errorf("%v: ranges end at %d of %d bytes", c, next, len(data))
			}
			if batches < 10 || records == 0 {
				t.Fatalf("%v: read %d batches, %d records", c, batches, records)
			}
		}
	}
}

// damageMiddle returns a copy of seg with the CRC of a batch near the
// middle broken.
func damageMiddle(t *testing.T, seg []byte) []byte {
	t.Helper()
	d := bytes.Clone(seg)
	r := NewReaderBytes(seg, Options{})
	for r.Next() {
		if b := r.Batch(); b != nil && b.Position > int64(len(seg)/2) {
			d[b.Position+BatchHeaderSize] ^= 0xff
			return d
		}
	}
	t.Fatal("no batch past the middle")
	return nil
}

func TestPrefetchAnySlice(t *testing.T) {
	// Lengths that are not multiples of a line, empty, and a slice at
	// the very end of its array.
	b := make([]byte, 1000)
	for _, s := range [][]byte{nil, b[:0], b[:1], b[:63], b[:64], b[:65], b[999:], b} {
		prefetch(s)
	}
}
