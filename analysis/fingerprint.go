package analysis

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/ksleuth/ksleuth/segment"
	"github.com/zeebo/xxh3"
)

// Fingerprinter computes record fingerprints (docs/duplicates.md): 128 bits over key, value and headers in order, null
// distinguished from empty, nothing else.
//
// The hashed bytes are the parts as Kafka's v2 record format lays them
// out from the key length on: the key length as a zigzag varint (-1 for
// null), the key, the value length (-1 for null), the value, the header
// count, then per header its key length, key, value length (-1 for null)
// and value, every varint minimal. That encoding is prefix-free, so no two
// different records hash the same bytes; and a v2 record written by any
// client already holds exactly these bytes, so its fingerprint is taken
// in place (segment.Record.Content) without copying the value. Legacy
// messages and the rare non-minimal encoding are laid out in a buffer
// first, to the same bytes and so the same fingerprint.
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
	buf [binary.MaxVarintLen64]byte
	// layout holds the hashed bytes of a small record that could not be
	// hashed in place, which is then hashed in one call: the streaming
	// hasher's per-Write cost dominates for records of a few KB. Larger
	// records are streamed, so it stays small.
	layout []byte
}

// oneShotMax is the largest layout hashed in one call.
const oneShotMax = 64 << 10

// NewFingerprinter returns a Fingerprinter.
func NewFingerprinter() *Fingerprinter { return &Fingerprinter{h: xxh3.New128()} }

// lenOf is the length field of a part: -1 for null.
func lenOf(b []byte, nullable bool) int64 {
	if nullable && b == nil {
		return -1
	}
	return int64(len(b))
}

func (f *Fingerprinter) part(b []byte, nullable bool) {
	f.h.Write(binary.AppendVarint(f.buf[:0], lenOf(b, nullable)))
	f.h.Write(b)
}

func appendPart(dst, b []byte, nullable bool) []byte {
	return append(binary.AppendVarint(dst, lenOf(b, nullable)), b...)
}

// Record returns the fingerprint of a decoded record: in place when the
// record carries its canonical encoding, else as Sum128 lays it out.
func (f *Fingerprinter) Record(r *segment.Record) [16]byte {
	if r.Content != nil {
		return xxh3.Hash128(r.Content).Bytes()
	}
	hs := r.Headers
	return f.Sum128(r.Key, r.Value, len(hs), func(i int) ([]byte, []byte) { return hs[i].Key, hs[i].Value })
}

// Sum128 returns the fingerprint of a record given by its parts. headers
// is called with each header's key and value in order.
func (f *Fingerprinter) Sum128(key, value []byte, nHeaders int, header func(i int) (k, v []byte)) [16]byte {
	// The hash of the layout in one call equals the streamed hash (XXH3
	// does not depend on how its input is split).
	size := 5 + len(key) + 5 + len(value) + 5
	for i := 0; i < nHeaders && size <= oneShotMax; i++ {
		k, v := header(i)
		size += 10 + len(k) + len(v)
	}
	if size <= oneShotMax {
		b := appendPart(f.layout[:0], key, true)
		b = appendPart(b, value, true)
		b = binary.AppendVarint(b, int64(nHeaders))
		for i := 0; i < nHeaders; i++ {
			k, v := header(i)
			b = appendPart(b, k, false)
			b = appendPart(b, v, true)
		}
		f.layout = b
		return xxh3.Hash128(b).Bytes()
	}
	f.h.Reset()
	f.part(key, true)
	f.part(value, true)
	f.h.Write(binary.AppendVarint(f.buf[:0], int64(nHeaders)))
	for i := 0; i < nHeaders; i++ {
		k, v := header(i)
		f.part(k, false)
		f.part(v, true)
	}
	return f.h.Sum128().Bytes()
}

// Sum returns the fingerprint as 32 hex digits, the form the tables carry.
func (f *Fingerprinter) Sum(key, value []byte, nHeaders int, header func(i int) (k, v []byte)) string {
	s := f.Sum128(key, value, nHeaders, header)
	return hex.EncodeToString(s[:])
}
