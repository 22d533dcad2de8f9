package segment

import "encoding/binary"

// Rekey returns the key a record gets in place of key (nil: null), of any
// length: the record is encoded again around it.
type Rekey func(key []byte) []byte

// RekeyRecords makes the Redactor replace the keys of v2 records with
// rekey instead of filling payloads: values and headers are kept, each
// record is encoded again with its new key's length, and the batch gets
// its new length, its codec's compression again and, when its CRC held,
// the CRC of its new bytes. The internal topics' keys are structure the
// broker reads (a group, a topic), so they are replaced whole, never
// filled. Control batches and magic 0/1 entries are kept.
func (x *Redactor) RekeyRecords(rekey Rekey) { x.rekey = rekey }

// rekeyBatch returns the batch b with its records' keys replaced.
func (x *Redactor) rekeyBatch(b *Batch, nb []byte) []byte {
	if b.Magic < 2 || b.IsControl() {
		return nb
	}
	body := nb[BatchHeaderSize:]
	plain := body
	if b.Codec() != CodecNone {
		var ok bool
		if plain, ok = x.decompress(b.Codec(), b.Magic, body); !ok {
			return nb
		}
	}
	records, ok := x.rekeyed(plain)
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

// rekeyed returns the v2 records of p encoded again with their keys
// replaced, or false when one does not parse.
func (x *Redactor) rekeyed(p []byte) ([]byte, bool) {
	var out, rec []byte
	for len(p) > 0 {
		l, k := varint32(p)
		if k == 0 || l < 0 || int(l) > len(p)-k {
			return nil, false
		}
		r := p[k : k+int(l)]
		p = p[k+int(l):]
		// attributes, timestamp delta, offset delta: kept as they are
		head := 1
		if len(r) < head {
			return nil, false
		}
		_, n := varint64(r[head:])
		if n == 0 {
			return nil, false
		}
		head += n
		_, n = varint32(r[head:])
		if n == 0 {
			return nil, false
		}
		head += n
		kl, n := varint32(r[head:])
		if n == 0 || int(kl) > len(r)-head-n {
			return nil, false
		}
		var key []byte
		if kl >= 0 {
			key = r[head+n : head+n+int(kl)]
		}
		rest := r[head+n+max(int(kl), 0):]
		rec = append(rec[:0], r[:head]...)
		if nk := x.rekey(key); nk == nil {
			rec = binary.AppendVarint(rec, -1)
		} else {
			rec = binary.AppendVarint(rec, int64(len(nk)))
			rec = append(rec, nk...)
		}
		rec = append(rec, rest...)
		out = binary.AppendVarint(out, int64(len(rec)))
		out = append(out, rec...)
	}
	return out, true
}
