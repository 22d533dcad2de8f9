package segment

import "hash/crc32"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// foldBlock is what one round of foldCastagnoli consumes: four 512-bit
// lanes. foldMin is the shortest input worth its set-up and final
// reduction; shorter ones (and the tail under a block) go through
// hash/crc32, whose three-way CRC32 loop is as fast there.
const (
	foldBlock = 256
	foldMin   = 512
)

// crc32c continues the CRC-32C crc over p, as crc32.Update with the
// Castagnoli table. Where the CPU multiplies carry-less over 512-bit
// vectors (VPCLMULQDQ, AVX-512), whole 256-byte blocks are folded four
// vectors at a time, about three times the speed of hash/crc32's CRC32
// instruction loop on batches of a few KB; the rest goes to hash/crc32.
func crc32c(crc uint32, p []byte) uint32 {
	if haveFold && len(p) >= foldMin {
		n := len(p) &^ (foldBlock - 1)
		crc = ^foldCastagnoli(^crc, p[:n])
		p = p[n:]
	}
	return crc32.Update(crc, castagnoli, p)
}

// polyCastagnoli is CRC-32C's generator without its x^32 term, highest
// degree in the top bit.
const polyCastagnoli = 0x1EDC6F41

// xPowMod returns x^n mod P for the CRC-32C generator P, highest degree
// in the top bit.
func xPowMod(n int) uint32 {
	r := uint64(1)
	for ; n > 0; n-- {
		r <<= 1
		if r&(1<<32) != 0 {
			r ^= 1<<32 | polyCastagnoli
		}
	}
	return uint32(r)
}

// reflect64 places a polynomial of degree under 32 as the carry-less
// multiplier of a bit-reflected lane sees it: x^d at bit 63-d.
func reflect64(v uint32) uint64 {
	var r uint64
	for d := 0; d < 32; d++ {
		if v&(1<<d) != 0 {
			r |= 1 << (63 - d)
		}
	}
	return r
}

// foldPair returns the multipliers that move a 128-bit lane d bits
// further on in the message. A lane's low quadword L holds the earlier
// bits, so the lane is L·x^64 + H, and moved on it is L·x^(64+d) +
// H·x^d mod P. The carry-less product of two reflected operands carries
// one factor of x more, hence the exponents 63+d and d-1.
func foldPair(d int) [2]uint64 {
	return [2]uint64{reflect64(xPowMod(63 + d)), reflect64(xPowMod(d - 1))}
}

// foldK holds foldCastagnoli's multipliers (read by the assembly): lanes
// moved on by 2048 bits (the main loop), by 512 (one vector into the
// next), then per lane of the last vector by 384, 256 and 128 bits into
// its last lane, which itself is not moved.
//
//lint:ignore U1000 read by crc32c_amd64.s, which staticcheck does not see
var foldK = func() (k [12]uint64) {
	for i, d := range []int{2048, 512, 384, 256, 128} {
		p := foldPair(d)
		k[2*i], k[2*i+1] = p[0], p[1]
	}
	return k
}()
