package segment

import (
	"encoding/binary"
	"hash/crc32"
)

// Rewrite returns what a record's key and value become (nil: null), of
// any length: the record is encoded again around them. control says the
// record is a control record (a transaction marker, or a KRaft control
// record of the metadata log); returning key and value keeps a record as
// it was.
type Rewrite func(key, value []byte, control bool) (newKey, newValue []byte)

// RewriteRecords makes the Redactor rewrite the keys and values of v2
// records with rewrite instead of filling payloads: headers are kept,
// each record is encoded again with its new lengths, and the batch gets
// its new length, its codec's compression again and, when its CRC held,
// the CRC of its new bytes. The internal topics' records are structure
// the broker reads (a group, a topic, a broker's endpoints), so their
// names are replaced field by field, never filled. Magic 0/1 messages
// are encoded again the same way, those inside a compressed wrapper too
// (Kafka 0.10 wrote __consumer_offsets so).
func (x *Redactor) RewriteRecords(rewrite Rewrite) { x.rewrite = rewrite }

// rewriteBatch returns the batch b with its records rewritten.
func (x *Redactor) rewriteBatch(b *Batch, nb []byte) []byte {
	if b.Magic < 2 {
		return x.rewriteLegacy(b, nb)
	}
	body := nb[BatchHeaderSize:]
	plain := body
	if b.Codec() != CodecNone {
		var ok bool
		if plain, ok = x.decompress(b.Codec(), b.Magic, body); !ok {
			return nb
		}
	}
	records, ok := x.rewritten(plain, b.IsControl())
	if !ok {
		return nb // a record that does not parse: the batch stays as it is
	}
	if b.Codec() != CodecNone {
		packed, err := x.comp.compress(b.Codec(), b.Magic, isXerial(body), records)
		if err != nil {
			return nb
		}
		records = packed
	}
	out := append(nb[:BatchHeaderSize:BatchHeaderSize], records...)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-LogOverhead))
	return x.seal(out, b.CRCValid)
}

// rewritten returns the v2 records of p encoded again with their keys
// and values rewritten, or false when one does not parse.
func (x *Redactor) rewritten(p []byte, control bool) ([]byte, bool) {
	var out, rec []byte
	for len(p) > 0 {
		l, k := varint32(p)
		if k == 0 || l < 0 || int(l) > len(p)-k {
			return nil, false
		}
		r := p[k : k+int(l)]
		p = p[k+int(l):]
		head, ok := recordHead(r)
		if !ok {
			return nil, false
		}
		key, at, ok := lengthField(r, head)
		if !ok {
			return nil, false
		}
		value, at, ok := lengthField(r, at)
		if !ok {
			return nil, false
		}
		nk, nv := x.rewrite(key, value, control)
		rec = append(rec[:0], r[:head]...)
		rec = appendField(rec, nk)
		rec = appendField(rec, nv)
		rec = append(rec, r[at:]...) // the headers, as they were
		out = binary.AppendVarint(out, int64(len(rec)))
		out = append(out, rec...)
	}
	return out, true
}

// recordHead is the length of a v2 record's attributes, timestamp delta
// and offset delta, which are kept as they are.
func recordHead(r []byte) (int, bool) {
	head := 1
	if len(r) < head {
		return 0, false
	}
	_, n := varint64(r[head:])
	if n == 0 {
		return 0, false
	}
	head += n
	_, n = varint32(r[head:])
	if n == 0 {
		return 0, false
	}
	return head + n, true
}

// lengthField reads a varint-length field (key or value, nil for -1) of
// a v2 record at byte at, and where what follows it starts.
func lengthField(r []byte, at int) ([]byte, int, bool) {
	if at > len(r) {
		return nil, 0, false
	}
	l, n := varint32(r[at:])
	if n == 0 || l < -1 || int(l) > len(r)-at-n {
		return nil, 0, false
	}
	if l < 0 {
		return nil, at + n, true
	}
	return r[at+n : at+n+int(l)], at + n + int(l), true
}

// appendField appends a varint-length field, -1 for nil.
func appendField(b, f []byte) []byte {
	if f == nil {
		return binary.AppendVarint(b, -1)
	}
	return append(binary.AppendVarint(b, int64(len(f))), f...)
}

// rewriteLegacy returns a magic 0/1 entry with its key and value
// rewritten, or for a compressed wrapper the messages inside it,
// compressed again; one that does not parse stays as it is.
func (x *Redactor) rewriteLegacy(b *Batch, nb []byte) []byte {
	key, val, ok := legacyFields(nb)
	if !ok {
		return nb
	}
	if b.Codec() == CodecNone {
		k, v := x.rewrite(key, val, false)
		return x.sealLegacy(relegacy(nb, k, v), b.CRCValid)
	}
	if b.inner == nil || b.innerErr != nil {
		return nb
	}
	var inner []byte
	for p := 0; p < len(b.inner); {
		size := int(binary.BigEndian.Uint32(b.inner[p+8:]))
		m := b.inner[p : p+LogOverhead+size]
		p += len(m)
		k, v, ok := legacyFields(m)
		if !ok {
			inner = append(inner, m...)
			continue
		}
		valid := crc32.ChecksumIEEE(m[crcStartLegacy:]) == binary.BigEndian.Uint32(m[12:])
		k, v = x.rewrite(k, v, false)
		inner = append(inner, x.sealLegacy(relegacy(m, k, v), valid)...)
	}
	packed, err := x.comp.compress(b.Codec(), b.Magic, isXerial(val), inner)
	if err != nil {
		return nb
	}
	return x.sealLegacy(relegacy(nb, key, packed), b.CRCValid)
}

// relegacy returns a copy of the magic 0/1 message m with key and
// value (nil: null) in place of its own: offset, magic, attributes and
// timestamp kept, the size field set to the new length. The CRC is the
// caller's (sealLegacy).
func relegacy(m, key, val []byte) []byte {
	head := LogOverhead + 4 + 1 + 1
	if m[16] == 1 {
		head += 8
	}
	out := append([]byte(nil), m[:head]...)
	out = appendBytes32(out, key)
	out = appendBytes32(out, val)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-LogOverhead))
	return out
}

// appendBytes32 appends an int32-length field, -1 for nil.
func appendBytes32(b, f []byte) []byte {
	if f == nil {
		return binary.BigEndian.AppendUint32(b, 0xffffffff)
	}
	return append(binary.BigEndian.AppendUint32(b, uint32(len(f))), f...)
}
