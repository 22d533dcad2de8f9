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
}

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

// Sum128 returns the fingerprint of a record. headers is called with each
// header's key and value in order.
func (f *Fingerprinter) Sum128(key, value []byte, nHeaders int, header func(i int) (k, v []byte)) [16]byte {
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
