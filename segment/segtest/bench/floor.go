package bench

import (
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/zeebo/xxh3"
)

// Floor is the dedup floor: the least work any scan that finds repeated
// record content does per record, and nothing else. Per batch the
// framing, the CRC-32C and the decompression of the whole records area
// (Blocks); per record a walk to its content (key, value and headers
// with their lengths, the bytes ksleuth fingerprints), one XXH3-128 of
// that content and one insert into an in-memory hash table. No producer
// sessions, checks, offsets or tables: a scan's rate over the floor's
// says how much all of that costs.
type Floor struct {
	ce   *Ceiling
	seen map[xxh3.Uint128]int32
}

// NewFloor returns a Floor; Close releases its decoders.
func NewFloor() *Floor {
	return &Floor{ce: NewCeiling(), seen: make(map[xxh3.Uint128]int32, 1<<16)}
}

// Close releases the decoders.
func (f *Floor) Close() { f.ce.Close() }

// Run walks a segment of v2 batches from an empty table and returns the
// records it fingerprinted and how many distinct contents they hold.
func (f *Floor) Run(seg []byte) (records, distinct int, err error) {
	clear(f.seen)
	for len(seg) >= 61 {
		n := 12 + int(binary.BigEndian.Uint32(seg[8:]))
		if n < 61 || n > len(seg) {
			return records, len(f.seen), errors.New("batch length out of the segment")
		}
		if crc32.Checksum(seg[21:n], castagnoli) != binary.BigEndian.Uint32(seg[17:]) {
			return records, len(f.seen), errors.New("batch CRC mismatch")
		}
		p := Payload{segtest.Codec(binary.BigEndian.Uint16(seg[21:]) & 7), seg[61:n]}
		data := p.Data
		if p.Codec != segtest.CodecNone {
			if _, err := f.ce.Blocks([]Payload{p}); err != nil {
				return records, len(f.seen), err
			}
			data = f.ce.out
		}
		k, err := f.records(data, int(int32(binary.BigEndian.Uint32(seg[57:]))))
		records += k
		if err != nil {
			return records, len(f.seen), err
		}
		seg = seg[n:]
	}
	return records, len(f.seen), nil
}

// errRecord is a record whose lengths do not fit its bytes.
var errRecord = errors.New("record lengths do not fit the batch")

// records walks count records of a decompressed records area.
func (f *Floor) records(b []byte, count int) (int, error) {
	for i := range count {
		l, k := binary.Varint(b)
		if k <= 0 || l < 0 || l > int64(len(b)-k) {
			return i, errRecord
		}
		rec := b[k : k+int(l)]
		b = b[k+int(l):]
		// attributes (one byte), timestamp delta, offset delta: then the
		// content.
		p := 1
		for range 2 {
			if p = skipVarint(rec, p); p < 0 {
				return i, errRecord
			}
		}
		start := p
		if p = skipBytes(rec, p); p < 0 {
			return i, errRecord
		}
		if p = skipBytes(rec, p); p < 0 {
			return i, errRecord
		}
		h, k := binary.Varint(rec[min(p, len(rec)):])
		if k <= 0 || h < 0 {
			return i, errRecord
		}
		p += k
		for range 2 * h {
			if p = skipBytes(rec, p); p < 0 {
				return i, errRecord
			}
		}
		if p != len(rec) {
			return i, errRecord
		}
		f.seen[xxh3.Hash128(rec[start:p])]++
	}
	return count, nil
}

// skipVarint returns the position after the varint at p, -1 when there
// is none.
func skipVarint(b []byte, p int) int {
	if p > len(b) {
		return -1
	}
	_, k := binary.Varint(b[p:])
	if k <= 0 {
		return -1
	}
	return p + k
}

// skipBytes returns the position after the length-prefixed bytes at p
// (a negative length is null), -1 when they do not fit.
func skipBytes(b []byte, p int) int {
	if p > len(b) {
		return -1
	}
	n, k := binary.Varint(b[p:])
	if k <= 0 {
		return -1
	}
	p += k
	if n > 0 {
		if n > int64(len(b)-p) {
			return -1
		}
		p += int(n)
	}
	return p
}
