package cluster_test

import "encoding/binary"

// enc writes the Kafka message-schema primitives, for building fixtures.
// It is the mirror of package topics' cursor, written from the schema text
// (the apache/kafka JSON schemas), not from the decoder.
type enc struct{ b []byte }

func (e *enc) i8(v int8) *enc   { e.b = append(e.b, byte(v)); return e }
func (e *enc) i16(v int16) *enc { e.b = binary.BigEndian.AppendUint16(e.b, uint16(v)); return e }
func (e *enc) i32(v int32) *enc { e.b = binary.BigEndian.AppendUint32(e.b, uint32(v)); return e }
func (e *enc) i64(v int64) *enc { e.b = binary.BigEndian.AppendUint64(e.b, uint64(v)); return e }
func (e *enc) uv(v uint64) *enc { e.b = binary.AppendUvarint(e.b, v); return e }
func (e *enc) raw(p []byte) *enc {
	e.b = append(e.b, p...)
	return e
}

// str writes a string: int16 length (classic) or uvarint length+1
// (flexible).
func (e *enc) str(flex bool, s string) *enc {
	if flex {
		e.uv(uint64(len(s)) + 1)
	} else {
		e.i16(int16(len(s)))
	}
	e.b = append(e.b, s...)
	return e
}

// nstr writes a nullable string; nil is null.
func (e *enc) nstr(flex bool, s *string) *enc {
	if s == nil {
		if flex {
			return e.uv(0)
		}
		return e.i16(-1)
	}
	return e.str(flex, *s)
}

// count writes an array count; -1 is null.
func (e *enc) count(flex bool, n int) *enc {
	if flex {
		return e.uv(uint64(n + 1))
	}
	return e.i32(int32(n))
}

func (e *enc) i32s(flex bool, vs []int32) *enc {
	if vs == nil {
		return e.count(flex, -1)
	}
	e.count(flex, len(vs))
	for _, v := range vs {
		e.i32(v)
	}
	return e
}

// tag is one tagged field.
type tag struct {
	n    uint64
	data []byte
}

// tags writes a tagged-field section.
func (e *enc) tags(ts ...tag) *enc {
	e.uv(uint64(len(ts)))
	for _, t := range ts {
		e.uv(t.n).uv(uint64(len(t.data)))
		e.b = append(e.b, t.data...)
	}
	return e
}

func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func sp(s string) *string { return &s }

// txnV0 encodes a TransactionLogValue v0 (classic encoding).
func txnV0(pid int64, epoch int16, state int8, parts map[string][]int32, order []string) []byte {
	e := new(enc).i16(0).i64(pid).i16(epoch).i32(60000).i8(state)
	if parts == nil {
		e.count(false, -1)
	} else {
		e.count(false, len(order))
		for _, tp := range order {
			e.str(false, tp).i32s(false, parts[tp])
		}
	}
	return e.i64(1700000000100).i64(1700000000000).b
}

// metaHeader starts a metadata record: frame version, api key, version.
func metaHeader(apiKey, version uint64) *enc { return new(enc).uv(1).uv(apiKey).uv(version) }

// uuidBytes is a topic id whose last byte is b.
func uuidBytes(b byte) []byte {
	u := make([]byte, 16)
	u[15] = b
	return u
}
