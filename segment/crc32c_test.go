package segment

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRC32CMatchesLibrary: every length through the folding's block
// boundaries, at every alignment, from random registers, equals
// hash/crc32's Castagnoli CRC.
func TestCRC32CMatchesLibrary(t *testing.T) {
	t.Logf("folding with VPCLMULQDQ: %v", haveFold)
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 4096+64)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for n := 0; n <= 4096; n++ {
		off := n % 64
		p := buf[off : off+n]
		crc := rng.Uint32()
		if got, want := crc32c(crc, p), crc32.Update(crc, castagnoli, p); got != want {
			t.Fatalf("len %d off %d crc %#x: got %#x, want %#x", n, off, crc, got, want)
		}
	}
	big := make([]byte, 1<<20+77)
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	if got, want := crc32c(0, big), crc32.Checksum(big, castagnoli); got != want {
		t.Fatalf("1 MiB: got %#x, want %#x", got, want)
	}
	// Runs of zeros and of ones: the folding must not depend on the data
	// having entropy.
	for _, v := range []byte{0, 0xff} {
		for i := range big {
			big[i] = v
		}
		if got, want := crc32c(0, big), crc32.Checksum(big, castagnoli); got != want {
			t.Fatalf("1 MiB of %#x: got %#x, want %#x", v, got, want)
		}
	}
}

// TestCRC32CFoldDirect checks the assembly on its own, block by block,
// so a wrong multiplier cannot hide behind the library tail.
func TestCRC32CFoldDirect(t *testing.T) {
	if !haveFold {
		t.Skip("this CPU has no 512-bit carry-less multiply; crc32c is hash/crc32 here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 64*foldBlock)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for n := foldBlock; n <= len(buf); n += foldBlock {
		reg := rng.Uint32()
		got := ^foldCastagnoli(^reg, buf[:n])
		if want := crc32.Update(reg, castagnoli, buf[:n]); got != want {
			t.Fatalf("%d bytes: got %#x, want %#x", n, got, want)
		}
	}
}

// TestXPowMod pins the multipliers' arithmetic against the CRC itself:
// the CRC-32C register of a 1 followed by n zero bits is x^(n+32) mod P.
func TestXPowMod(t *testing.T) {
	for _, n := range []int{0, 1, 7, 31, 32, 100, 2047} {
		// A message whose only set bit comes n bits before its end.
		msg := make([]byte, (n+8)/8+1)
		bit := 8*len(msg) - 1 - n // index of that bit, processing order
		msg[bit/8] |= 1 << (bit % 8)
		reg := ^crc32.Update(^uint32(0), castagnoli, msg) // register from 0
		want := uint32(0)
		r := xPowMod(n + 32)
		for d := 0; d < 32; d++ { // the register is reflected
			if r&(1<<d) != 0 {
				want |= 1 << (31 - d)
			}
		}
		if reg != want {
			t.Errorf("n=%d: CRC register %#x, x^(n+32) mod P reflected %#x", n, reg, want)
		}
	}
}

func FuzzCRC32C(f *testing.F) {
	f.Add(uint32(0), make([]byte, 600))
	f.Fuzz(func(t *testing.T, crc uint32, p []byte) {
		if got, want := crc32c(crc, p), crc32.Update(crc, castagnoli, p); got != want {
			t.Fatalf("len %d: got %#x, want %#x", len(p), got, want)
		}
	})
}

// BenchmarkCRC32C compares crc32c with hash/crc32 at batch sizes.
func BenchmarkCRC32C(b *testing.B) {
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for _, n := range []int{600, 1500, 4800, 16 << 10, 64 << 10} {
		p := buf[:n]
		b.Run(fmt.Sprintf("fold/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				crc32c(0, p)
			}
		})
		b.Run(fmt.Sprintf("hash-crc32/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				crc32.Checksum(p, castagnoli)
			}
		})
	}
}
