package topics_test

import "encoding/binary"

// enc writes the Kafka message-schema primitives, for building fixtures.
// It is the mirror of the package's cursor, written from the schema text
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
func (e *enc) boolean(v bool) *enc {
	if v {
		return e.i8(1)
	}
	return e.i8(0)
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

// bytes writes a bytes field: int32 length or uvarint length+1; nil is
// null.
func (e *enc) bytes(flex bool, p []byte) *enc {
	switch {
	case p == nil && flex:
		return e.uv(0)
	case p == nil:
		return e.i32(-1)
	case flex:
		e.uv(uint64(len(p)) + 1)
	default:
		e.i32(int32(len(p)))
	}
	e.b = append(e.b, p...)
	return e
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

func be16(v int16) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func sp(s string) *string { return &s }
func ip(v int32) *int32   { return &v }
