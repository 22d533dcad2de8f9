package analysis

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// Fingerprinter computes record fingerprints (DESIGN.md "Duplicate
// semantics"): 128 bits over key, value and headers in order, null
// distinguished from empty, nothing else. Each part is length-prefixed
// (int64, -1 for null) so no two different records hash the same input;
// the digest is the first 16 bytes of SHA-256, which is collision-resistant
// and hardware-accelerated on current CPUs. Not safe for concurrent use:
// keep one per goroutine.
type Fingerprinter struct {
	h   hash.Hash
	buf [8]byte
	sum [sha256.Size]byte
}

// NewFingerprinter returns a Fingerprinter.
func NewFingerprinter() *Fingerprinter { return &Fingerprinter{h: sha256.New()} }

func (f *Fingerprinter) part(b []byte, null bool) {
	n := int64(len(b))
	if null {
		n = -1
	}
	binary.BigEndian.PutUint64(f.buf[:], uint64(n))
	f.h.Write(f.buf[:])
	f.h.Write(b)
}

// Sum returns the fingerprint of a record as 32 hex digits. headers is
// called with each header's key and value in order.
func (f *Fingerprinter) Sum(key, value []byte, nHeaders int, header func(i int) (k, v []byte)) string {
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
	s := f.h.Sum(f.sum[:0])
	return hex.EncodeToString(s[:16])
}
