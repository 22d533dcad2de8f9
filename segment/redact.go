package segment

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"sort"
)

// Fill replaces one payload (a record's key, value or header value) in
// place with bytes of the same length. Equal payloads must get equal
// bytes, so that what compares records by content still finds the same.
type Fill func(p []byte)

// Move says where a stretch of a segment is in its rewritten copy: the
// Len bytes at From are NewLen bytes at To. Only batches whose length
// changed (a compressed batch compresses to another length) have one;
// every other byte keeps its distance to the end of the move before it.
type Move struct {
	From   int64 `json:"from"`
	Len    int64 `json:"len"`
	To     int64 `json:"to"`
	NewLen int64 `json:"new_len"`
}

// MapPosition is the byte of the rewritten segment that holds byte pos of
// the original, given the segment's moves in order. A byte inside a batch
// that changed length maps to the same distance into the new batch, or to
// its last byte.
func MapPosition(moves []Move, pos int64) int64 {
	i := sort.Search(len(moves), func(i int) bool { return moves[i].From > pos }) - 1
	if i < 0 {
		return pos
	}
	m := moves[i]
	if pos < m.From+m.Len {
		return m.To + min(pos-m.From, max(m.NewLen-1, 0))
	}
	return pos - (m.From + m.Len) + (m.To + m.NewLen)
}

// Redactor rewrites segments with every record's key, value and header
// values replaced by Fill, keeping everything else: offsets, timestamps,
// producer fields, header keys, control records, codecs and their
// framings. A batch whose CRC held is given the CRC of its new bytes; one
// whose CRC failed keeps the stored one, so it still fails. Bytes that are
// no batch (damage the reader passed over) are zero-filled, except the
// header of a batch that starts them (offsets, lengths, magic, CRC), so
// that the rewritten segment is damaged at the same places and in the same
// way. Not safe for concurrent use.
type Redactor struct {
	fill Fill
	keys Fill // header keys' replacement; nil keeps them
	// rewrite, when set, rewrites records' keys and values instead of
	// filling payloads (RewriteRecords).
	rewrite Rewrite
	dec     *Decoder
	comp    compressor
	buf     []byte
	out     []byte // the last segment's copy, reused by the next
}

// NewRedactor returns a Redactor that replaces payloads with fill.
func NewRedactor(fill Fill) *Redactor {
	return &Redactor{fill: fill, dec: NewDecoder(Options{})}
}

// MapHeaderKeys makes the Redactor replace every header key too, in
// place with keys of the same length: equal keys must get equal ones, and
// distinct keys distinct ones, so that records compare as before.
func (x *Redactor) MapHeaderKeys(keys Fill) { x.keys = keys }

// Close releases the codecs' state.
func (x *Redactor) Close() {
	x.dec.Close()
	x.comp.close()
}

// Segment returns the redacted copy of the segment data (named path in
// nothing but its reading) and the moves of the batches whose length
// changed. The copy is valid until the next call: its buffer is reused,
// so that memory follows the largest segment, not their number.
func (x *Redactor) Segment(path string, data []byte) ([]byte, []Move) {
	r := NewReaderBytes(data, Options{Path: path, StreamThreshold: 1 << 62, MaxBufferedBatch: 1 << 62, MaxBatchBytes: 1 << 31})
	defer r.Close()
	out := x.out[:0]
	var moves []Move
	covered := int64(0)
	header := false // the damage at covered starts with a batch header
	for r.Next() {
		if f := r.Finding(); f != nil {
			if f.Offset == covered {
				header = errors.Is(f, ErrTruncated) || errors.Is(f, ErrCRC)
			}
			continue
		}
		b := r.Batch()
		if b.Position < covered {
			continue // overlapping-batch: its bytes went out with the one it starts in
		}
		out = appendDamaged(out, data[covered:b.Position], header)
		header = false
		nb := x.batch(b)
		if int64(len(nb)) != b.Size() {
			moves = append(moves, Move{From: b.Position, Len: b.Size(), To: int64(len(out)), NewLen: int64(len(nb))})
		}
		out = append(out, nb...)
		covered = b.Position + b.Size()
	}
	out = appendDamaged(out, data[min(covered, int64(len(data))):], header)
	x.out = out
	return out, moves
}

// appendDamaged appends bytes no batch holds, zero-filled but for what
// makes the reader find the same damage there: the header of a torn or
// failing batch that starts them (header), which stays torn or failing,
// or else the length and magic fields of their first 17 bytes (4 bytes
// and 1, too short to keep anything of a payload), so that garbage still
// reads as a bad length or an unknown magic.
func appendDamaged(out, d []byte, header bool) []byte {
	if !header {
		n := len(out)
		out = append(out, make([]byte, len(d))...)
		if len(d) >= 17 {
			copy(out[n+8:n+12], d[8:12])
			out[n+16] = d[16]
		}
		return out
	}
	keep := 0
	if len(d) >= 17 {
		switch d[16] {
		case 2:
			keep = BatchHeaderSize
		case 1:
			keep = LogOverhead + 14 // crc, magic, attributes, timestamp
		case 0:
			keep = LogOverhead + 6 // crc, magic, attributes
		}
	}
	keep = min(keep, len(d))
	out = append(out, d[:keep]...)
	return append(out, make([]byte, len(d)-keep)...)
}

// batch returns the redacted bytes of one batch.
func (x *Redactor) batch(b *Batch) []byte {
	nb := append([]byte(nil), b.Bytes()...)
	if x.rewrite != nil {
		return x.rewriteBatch(b, nb)
	}
	if b.Magic < 2 {
		return x.legacy(b, nb)
	}
	if b.IsControl() {
		return nb // markers: their key and value are structure
	}
	body := nb[BatchHeaderSize:]
	if b.Codec() == CodecNone {
		x.records(body)
		return x.seal(nb, b.CRCValid)
	}
	plain, ok := x.decompress(b.Codec(), b.Magic, body)
	if !ok {
		clear(body)
		return nb
	}
	x.records(plain)
	packed, err := x.comp.compress(b.Codec(), b.Magic, isXerial(body), plain)
	if err != nil {
		clear(body)
		return nb
	}
	nb = append(nb[:BatchHeaderSize], packed...)
	binary.BigEndian.PutUint32(nb[8:], uint32(len(nb)-LogOverhead))
	return x.seal(nb, b.CRCValid)
}

// seal gives a v2 batch the CRC-32C of its bytes when its CRC held.
func (x *Redactor) seal(nb []byte, valid bool) []byte {
	if valid {
		binary.BigEndian.PutUint32(nb[17:], crc32c(0, nb[crcStartV2:]))
	}
	return nb
}

func isXerial(p []byte) bool {
	return len(p) >= 8 && string(p[:8]) == string(xerialMagic)
}

// decompress returns the whole decompressed payload, in a buffer reused
// by the next call.
func (x *Redactor) decompress(codec Codec, magic int8, payload []byte) ([]byte, bool) {
	direct, s, err := x.dec.dc.openBytes(codec, magic, payload)
	if err != nil {
		return nil, false
	}
	if s == nil {
		return append(x.buf[:0], direct...), true
	}
	x.buf, err = readAllLimited(x.buf[:0], s, x.dec.opts.MaxDecompressedBytes)
	return x.buf, err == nil
}

// records fills the keys, values and header values of the v2 records in
// p in place, whatever count the batch header claims; from a record that
// does not parse on, the bytes are zeroed: a damaged batch keeps its
// intact records and its damage where they were.
func (x *Redactor) records(p []byte) {
	for len(p) > 0 {
		l, k := varint32(p)
		if k == 0 || l < 0 || int(l) > len(p)-k || !x.record(p[k:k+int(l)]) {
			clear(p)
			return
		}
		p = p[k+int(l):]
	}
}

// record fills one v2 record's payloads: attributes, timestamp and offset
// deltas, then key, value and headers.
func (x *Redactor) record(r []byte) bool {
	if len(r) < 1 {
		return false
	}
	r = r[1:]
	if _, k := varint64(r); k == 0 {
		return false
	} else {
		r = r[k:]
	}
	if _, k := varint32(r); k == 0 {
		return false
	} else {
		r = r[k:]
	}
	var ok bool
	if r, ok = x.field(r, x.fill); !ok {
		return false
	}
	if r, ok = x.field(r, x.fill); !ok {
		return false
	}
	h, k := varint32(r)
	if k == 0 || h < 0 {
		return false
	}
	r = r[k:]
	for range h {
		if r, ok = x.field(r, x.keys); !ok {
			return false
		}
		if r, ok = x.field(r, x.fill); !ok {
			return false
		}
	}
	return len(r) == 0
}

// field passes a varint-prefixed byte field, replacing it by fill when
// fill is set.
func (x *Redactor) field(r []byte, fill Fill) ([]byte, bool) {
	l, k := varint32(r)
	if k == 0 || int(l) > len(r)-k {
		return nil, false
	}
	r = r[k:]
	if l <= 0 {
		return r, true
	}
	if fill != nil {
		fill(r[:l])
	}
	return r[l:], true
}

// legacy redacts a magic 0/1 entry: its key and value, or for a
// compressed wrapper the messages inside it, re-compressed.
func (x *Redactor) legacy(b *Batch, nb []byte) []byte {
	key, val, ok := legacyFields(nb)
	if !ok {
		return nb
	}
	if b.Codec() == CodecNone {
		x.fillNonNil(key)
		x.fillNonNil(val)
		return x.sealLegacy(nb, b.CRCValid)
	}
	if b.inner == nil || b.innerErr != nil {
		clear(val)
		return nb
	}
	inner := append([]byte(nil), b.inner...)
	for p := 0; p < len(inner); {
		size := int(binary.BigEndian.Uint32(inner[p+8:]))
		m := inner[p : p+LogOverhead+size]
		valid := crc32.ChecksumIEEE(m[crcStartLegacy:]) == binary.BigEndian.Uint32(m[12:])
		if k, v, ok := legacyFields(m); ok {
			x.fillNonNil(k)
			x.fillNonNil(v)
			x.sealLegacy(m, valid)
		}
		p += len(m)
	}
	packed, err := x.comp.compress(b.Codec(), b.Magic, isXerial(val), inner)
	if err != nil {
		clear(val)
		return nb
	}
	head := nb[:len(nb)-len(val)-4]
	out := append(head[:len(head):len(head)], make([]byte, 4+len(packed))...)
	binary.BigEndian.PutUint32(out[len(head):], uint32(len(packed)))
	copy(out[len(head)+4:], packed)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-LogOverhead))
	return x.sealLegacy(out, b.CRCValid)
}

func (x *Redactor) fillNonNil(p []byte) {
	if len(p) > 0 {
		x.fill(p)
	}
}

// sealLegacy gives a magic 0/1 message the CRC-32 of its bytes when its
// CRC held.
func (x *Redactor) sealLegacy(m []byte, valid bool) []byte {
	if valid {
		binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[crcStartLegacy:]))
	}
	return m
}

// legacyFields returns views of a whole magic 0/1 entry's key and value
// (nil when null), or false when the entry does not parse.
func legacyFields(m []byte) (key, val []byte, ok bool) {
	lm, why := parseLegacy(m)
	if why != "" {
		return nil, nil, false
	}
	return lm.key, lm.value, true
}

// RemapOffsetIndex returns a copy of an offset index (.index) whose
// positions are mapped through pos; the relative offsets and any bytes
// after the last whole entry are kept.
func RemapOffsetIndex(data []byte, pos func(int64) int64) []byte {
	out := append([]byte(nil), data...)
	for i := 0; i+OffsetIndexEntrySize <= len(out); i += OffsetIndexEntrySize {
		e := out[i : i+OffsetIndexEntrySize]
		if binary.BigEndian.Uint64(e) == 0 && i > 0 {
			continue // the zeroed slots of a preallocated index
		}
		p := int64(binary.BigEndian.Uint32(e[4:]))
		binary.BigEndian.PutUint32(e[4:], uint32(pos(p)))
	}
	return out
}
