package segment

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestVarints: the one- and two-byte fast paths and the general loop
// decode every zigzag varint as encoding/binary does, with trailing bytes
// or without, and reject cut-off ones.
func TestVarints(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := []int64{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, -8193, math.MaxInt32, math.MinInt32}
	for range 2000 {
		vals = append(vals, int64(int32(rng.Uint32()))>>rng.IntN(32))
	}
	for _, v := range vals {
		enc := binary.AppendVarint(nil, v)
		for _, in := range [][]byte{enc, append(enc, 0x80, 0x01)} {
			if got, n := varint32(in); int64(got) != v || n != len(enc) {
				t.Fatalf("varint32(% x) = %d, %d; want %d, %d", in, got, n, v, len(enc))
			}
			if got, n := varint64(in); got != v || n != len(enc) {
				t.Fatalf("varint64(% x) = %d, %d; want %d, %d", in, got, n, v, len(enc))
			}
		}
		if _, n := varint32(enc[:len(enc)-1]); n != 0 {
			t.Fatalf("varint32 accepted the cut-off % x", enc[:len(enc)-1])
		}
		if _, n := varint64(enc[:len(enc)-1]); n != 0 {
			t.Fatalf("varint64 accepted the cut-off % x", enc[:len(enc)-1])
		}
	}
	for _, v := range []int64{math.MaxInt64, math.MinInt64, 1 << 40, -(1 << 50)} {
		enc := binary.AppendVarint(nil, v)
		if got, n := varint64(enc); got != v || n != len(enc) {
			t.Fatalf("varint64(% x) = %d, %d; want %d", enc, got, n, v)
		}
		if _, n := varint32(enc); n != 0 {
			t.Fatalf("varint32 accepted the 64-bit % x", enc)
		}
	}
}
