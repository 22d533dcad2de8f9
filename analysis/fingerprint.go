package analysis

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/zeebo/xxh3"
)

// Fingerprinter computes record fingerprints (DESIGN.md "Duplicate
// semantics"): 128 bits over key, value and headers in order, null
// distinguished from empty, nothing else. Each part is length-prefixed
// (int64, -1 for null) so no two different records hash the same input.
//
// The hash is XXH3-128: fingerprints are computed over every decompressed
// byte of every record, and a cryptographic hash (SHA-256 runs at about
// 2 GB/s even with SHA extensions) would cap the scan below the rate the
// reader decodes. 128 bits keep accidental collisions out of reach for any
// realistic number of records; a group can be confirmed byte for byte from
// the records table written with --payload. Not safe for concurrent use:
// keep one per goroutine.
type Fingerprinter struct {
	h   *xxh3.Hasher128
	buf [8]byte
	// layout holds the hashed bytes of a small record, which is hashed in
	// one call: the streaming hasher's per-Write cost dominates for
	// records of a few KB. Larger records are streamed, so it stays small.
	layout []byte
}

// oneShotMax is the largest layout hashed in one call.
const oneShotMax = 64 << 10

// NewFingerprinter returns a Fingerprinter.
func NewFingerprinter() *Fingerprinter { return &Fingerprinter{h: xxh3.New128()} }

func (f *Fingerprinter) part(b []byte, null bool) {
	n := int64(len(b))
	if null {
		n = -1
	}
	binary.BigEndian.PutUint64(f.buf[:], uint64(n))
	f.h.Write(f.buf[:])
	f.h.Write(b)
}

func appendPart(dst, b []byte, null bool) []byte {
	n := int64(len(b))
	if null {
		n = -1
	}
	return append(binary.BigEndian.AppendUint64(dst, uint64(n)), b...)
}

// Sum128 returns the fingerprint of a record. headers is called with each
// header's key and value in order.
func (f *Fingerprinter) Sum128(key, value []byte, nHeaders int, header func(i int) (k, v []byte)) [16]byte {
	// The hash of the layout in one call equals the streamed hash (XXH3
	// does not depend on how its input is split).
	size := 8 + len(key) + 8 + len(value) + 8
	for i := 0; i < nHeaders && size <= oneShotMax; i++ {
		k, v := header(i)
		size += 16 + len(k) + len(v)
	}
	if size <= oneShotMax {
		b := appendPart(f.layout[:0], key, key == nil)
		b = appendPart(b, value, value == nil)
		b = binary.BigEndian.AppendUint64(b, uint64(nHeaders))
		for i := 0; i < nHeaders; i++ {
			k, v := header(i)
			b = appendPart(b, k, false)
			b = appendPart(b, v, v == nil)
		}
		f.layout = b
		return xxh3.Hash128(b).Bytes()
	}
	f.h.Reset()
	f.part(key, key == nil)
	f.part(value, value == nil)
	binary.BigEndian.PutUint64(f.buf[:], uint64(nHeaders))
	f.h.Write(f.buf[:])
	for i := 0; i < nHeaders; i++ {
		k, v := header(i)
		f.part(k, false)
		f.part(v, v == nil)
	}
	return f.h.Sum128().Bytes()
}

// Sum returns the fingerprint as 32 hex digits, the form the tables carry.
func (f *Fingerprinter) Sum(key, value []byte, nHeaders int, header func(i int) (k, v []byte)) string {
	s := f.Sum128(key, value, nHeaders, header)
	return hex.EncodeToString(s[:])
}
