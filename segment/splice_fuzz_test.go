package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// spliceBase is the segment garbage is spliced into: v2 batches in every
// codec and legacy message sets, with each batch's position.
func spliceBase(t testing.TB) ([]byte, []int64) {
	seg, pos := testSegment(t, 5)
	for _, m := range []int8{0, 1} {
		pos = append(pos, int64(len(seg)))
		seg = append(seg, segtest.Batch{Magic: m, Codec: segtest.CodecGzip, BaseOffset: 100 + int64(m)*10, FirstTimestamp: 1,
			Records: []segtest.Record{{Key: []byte("k"), Value: []byte("v")}, {OffsetDelta: 1, Value: []byte("w")}}}.Encode()...)
	}
	return seg, pos
}

// intactAfterSplice reads seg with garbage inserted at batch boundary k
// and returns the original batches not found, intact, at their shifted
// positions.
func intactAfterSplice(t testing.TB, seg []byte, pos []int64, garbage []byte, k int, mk func([]byte) io.Reader) []int64 {
	at := int64(len(seg))
	if k < len(pos) {
		at = pos[k]
	}
	in := make([]byte, 0, len(seg)+len(garbage))
	in = append(append(append(in, seg[:at]...), garbage...), seg[at:]...)
	r := NewReader(mk(in), Options{MaxDecompressedBytes: 8 << 20, MaxRecordBytes: 1 << 20, StreamThreshold: 64 << 10})
	defer r.Close()
	found := map[int64]bool{}
	for r.Next() {
		if b := r.Batch(); b != nil && b.CRCValid {
			found[b.Position] = true
		}
	}
	if r.Err() != nil {
		t.Fatalf("reader error on in-memory input: %v", r.Err())
	}
	var lost []int64
	for _, p := range pos {
		if p >= at {
			p += int64(len(garbage))
		}
		if !found[p] {
			lost = append(lost, p)
		}
	}
	return lost
}

// FuzzSpliceGarbage: every intact batch is still found when garbage is
// spliced in at a batch boundary, whatever the garbage.
func FuzzSpliceGarbage(f *testing.F) {
	seg, pos := spliceBase(f)
	f.Add([]byte("garbage"), uint8(0))
	f.Add(make([]byte, 100), uint8(3))
	f.Add(seg[pos[1]:pos[2]], uint8(4))    // a whole batch
	f.Add(seg[pos[1]:pos[1]+30], uint8(2)) // a torn header
	f.Add(seg[pos[2]:pos[3]-5], uint8(6))  // a torn batch
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, uint8(1))
	f.Fuzz(func(t *testing.T, garbage []byte, k uint8) {
		idx := int(k) % (len(pos) + 1)
		for name, mk := range readerInputs {
			if lost := intactAfterSplice(t, seg, pos, garbage, idx, mk); len(lost) > 0 {
				t.Fatalf("%s: garbage of %d bytes at boundary %d lost intact batches at %v", name, len(garbage), idx, lost)
			}
		}
	})
}

// TestSpliceFakeHeaderOnBoundary: garbage that is a batch header whose
// length ends exactly on a later batch boundary, with a bad CRC. The
// length looks confirmed by the valid batch after it, but the batch it
// swallows is intact and must still be read.
func TestSpliceFakeHeaderOnBoundary(t *testing.T) {
	seg, pos := spliceBase(t)
	for k := 0; k+1 < len(pos); k++ {
		fake := make([]byte, BatchHeaderSize)
		copy(fake, seg[pos[k]:pos[k]+BatchHeaderSize])
		// The fake entry covers itself and batch k, ending at batch k+1.
		binary.BigEndian.PutUint32(fake[8:], uint32(len(fake)-LogOverhead+int(pos[k+1]-pos[k])))
		binary.BigEndian.PutUint32(fake[17:], 0xdeadbeef)
		// Found by FuzzSpliceGarbage (seed fdc42b7256a38237): twelve bytes,
		// an offset and a length, whose "magic" and "CRC" are the next
		// batch's first bytes (legacy magic 0, bad CRC) and whose length
		// ends on the boundary after it.
		if k == 2 {
			prefix := []byte("00000000\x00\x00\x01\xe8")
			for name, mk := range readerInputs {
				t.Run(fmt.Sprint("prefix/", name), func(t *testing.T) {
					if lost := intactAfterSplice(t, seg, pos, prefix, k, mk); len(lost) > 0 {
						t.Errorf("lost intact batches at %v", lost)
					}
				})
			}
		}
		for name, mk := range readerInputs {
			t.Run(fmt.Sprint(k, "/", name), func(t *testing.T) {
				if lost := intactAfterSplice(t, seg, pos, fake, k, mk); len(lost) > 0 {
					var buf bytes.Buffer
					fmt.Fprintf(&buf, "lost intact batches at %v", lost)
					t.Error(buf.String())
				}
			})
		}
	}
}

// TestSpliceOverlappingValidBatch: garbage that is a valid batch missing
// its last d bytes, which happen to be the first d bytes of the batch that
// follows. Read from the garbage, the first batch is whole and valid and
// ends d bytes inside the next one, which is intact too: both must be
// read, the second announced by an overlapping-batch finding (found by
// FuzzSpliceGarbage in CI: a gzip batch ending in two zero bytes, spliced
// before a legacy batch whose offset starts with them).
func TestSpliceOverlappingValidBatch(t *testing.T) {
	seg, pos := spliceBase(t)
	for k := 0; k < len(pos); k++ {
		for _, d := range []int{1, 2, 8, 30} {
			// The last header value ends the batch: make it end with the
			// next batch's first d bytes.
			tail := seg[pos[k] : pos[k]+int64(d)]
			whole := segtest.Batch{Magic: 2, BaseOffset: 7, FirstTimestamp: 1, Records: []segtest.Record{
				{Key: []byte("k"), Value: []byte("resent"), Headers: []segtest.Header{{Key: "h", Value: append([]byte("x"), tail...)}}}}}.Encode()
			if !bytes.HasSuffix(whole, tail) {
				t.Fatalf("the encoded batch does not end with its last header value")
			}
			garbage := whole[:len(whole)-d]
			for name, mk := range readerInputs {
				t.Run(fmt.Sprint(k, "/", d, "/", name), func(t *testing.T) {
					if lost := intactAfterSplice(t, seg, pos, garbage, k, mk); len(lost) > 0 {
						t.Fatalf("lost intact batches at %v", lost)
					}
					in := append(append(append([]byte{}, seg[:pos[k]]...), garbage...), seg[pos[k]:]...)
					r := NewReader(mk(in), Options{})
					defer r.Close()
					var overlap *CorruptionError
					var first bool
					for r.Next() {
						if f := r.Finding(); f != nil && errors.Is(f, ErrOverlap) {
							overlap = f
						}
						if b := r.Batch(); b != nil && b.Position == pos[k] && b.CRCValid && b.BaseOffset == 7 {
							first = true
						}
					}
					if !first {
						t.Errorf("the spliced batch at %d was not read", pos[k])
					}
					want := pos[k] + int64(len(garbage))
					if overlap == nil || overlap.Offset != want || overlap.Length != int64(d) || overlap.Kind() != "overlapping-batch" {
						t.Errorf("overlap finding %v, want one at byte %d covering %d bytes", overlap, want, d)
					}
				})
			}
		}
	}
}
