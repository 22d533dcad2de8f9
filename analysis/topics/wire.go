package topics

import (
	"encoding/binary"
	"fmt"
	"math"
)

// cursor reads the Kafka message-schema primitives from one key or value.
// Errors are sticky: after the first failure every read returns a zero
// value and err keeps the first cause, with the byte position inside the
// key or value where it happened. No read allocates from a length it has not
// checked against the bytes that remain.
type cursor struct {
	b    []byte
	off  int
	err  error
	part string // "key" or "value", for error messages
	// ed, when set, collects the replacements of identifying fields
	// (Rewrite); the reads are the same with or without it.
	ed *editor
}

func newCursor(b []byte, part string) *cursor { return &cursor{b: b, part: part} }

func (c *cursor) fail(what string) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %s at byte %d of the %s (%d bytes)", ErrMalformed, what, c.off, c.part, len(c.b))
	}
}

func (c *cursor) left() int { return len(c.b) - c.off }

func (c *cursor) take(n int, what string) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > c.left() {
		c.fail(what + " runs past the end")
		return nil
	}
	s := c.b[c.off : c.off+n : c.off+n]
	c.off += n
	return s
}

func (c *cursor) int8(what string) int8 {
	s := c.take(1, what)
	if s == nil {
		return 0
	}
	return int8(s[0])
}

func (c *cursor) bool(what string) bool { return c.int8(what) != 0 }

func (c *cursor) int16(what string) int16 {
	s := c.take(2, what)
	if s == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(s))
}

func (c *cursor) uint16(what string) uint16 { return uint16(c.int16(what)) }

func (c *cursor) int32(what string) int32 {
	s := c.take(4, what)
	if s == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(s))
}

func (c *cursor) int64(what string) int64 {
	s := c.take(8, what)
	if s == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(s))
}

// UUID is a Kafka uuid: 16 raw bytes, shown in Kafka's URL-safe base64
// form by String.
type UUID [16]byte

func (c *cursor) uuid(what string) UUID {
	var u UUID
	copy(u[:], c.take(16, what))
	return u
}

// uvarint reads an unsigned varint of at most 5 bytes (Kafka's
// ByteUtils.readUnsignedVarint: 32 bits).
func (c *cursor) uvarint(what string) uint32 {
	if c.err != nil {
		return 0
	}
	var v uint32
	for i := 0; i < 5; i++ {
		if c.off >= len(c.b) {
			c.fail(what + " (varint) runs past the end")
			return 0
		}
		x := c.b[c.off]
		c.off++
		if i == 4 && x > 0x0f {
			c.fail(what + " (varint) is longer than 32 bits")
			return 0
		}
		v |= uint32(x&0x7f) << (7 * i)
		if x < 0x80 {
			return v
		}
	}
	return v
}

// length reads a string/bytes/array length: int16 or int32 in classic
// versions, uvarint(len+1) in flexible ones. It returns -1 for null.
func (c *cursor) length(flex bool, wide bool, what string) int {
	if flex {
		n := c.uvarint(what + " length")
		if c.err != nil {
			return 0
		}
		if uint64(n) > math.MaxInt32 {
			c.fail(what + " length too large")
			return 0
		}
		return int(n) - 1
	}
	if wide {
		n := c.int32(what + " length")
		if n < -1 {
			c.fail(fmt.Sprintf("%s length %d is negative", what, n))
		}
		return int(n)
	}
	n := c.int16(what + " length")
	if n < -1 {
		c.fail(fmt.Sprintf("%s length %d is negative", what, n))
	}
	return int(n)
}

func (c *cursor) nullableString(flex bool, what string) *string {
	n := c.length(flex, false, what)
	if c.err != nil || n < 0 {
		return nil
	}
	s := string(c.take(n, what))
	if c.err != nil {
		return nil
	}
	return &s
}

// string reads a non-nullable string. A null where the schema forbids it is
// read as "" and flagged by nullSeen, since brokers never write one.
func (c *cursor) string(flex bool, what string) string {
	n := c.length(flex, false, what)
	if c.err != nil {
		return ""
	}
	if n < 0 {
		c.fail(what + " is null where the schema does not allow it")
		return ""
	}
	return string(c.take(n, what))
}

// bytesLen reads a bytes field and returns its length (-1 for null) and a
// view of it.
func (c *cursor) bytes(flex bool, what string) []byte {
	n := c.length(flex, true, what)
	if c.err != nil || n < 0 {
		return nil
	}
	return c.take(n, what)
}

// arrayLen reads an array count and checks it against the bytes left,
// given the smallest encoded size of one element, so a hostile count never
// drives an allocation. -1 is a null array.
func (c *cursor) arrayLen(flex bool, minElem int, what string) int {
	n := c.length(flex, true, what)
	if c.err != nil {
		return 0
	}
	if n > 0 && n > c.left()/max(minElem, 1) {
		c.fail(fmt.Sprintf("%s count %d exceeds the %d bytes left", what, n, c.left()))
		return 0
	}
	return n
}

func (c *cursor) int32Array(flex bool, what string) []int32 {
	n := c.arrayLen(flex, 4, what)
	if c.err != nil || n < 0 {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = c.int32(what)
	}
	return out
}

func (c *cursor) uuidArray(flex bool, what string) []UUID {
	n := c.arrayLen(flex, 16, what)
	if c.err != nil || n < 0 {
		return nil
	}
	out := make([]UUID, n)
	for i := range out {
		out[i] = c.uuid(what)
	}
	return out
}

// tags reads a tagged-field section (flexible versions): uvarint count,
// then per field uvarint tag, uvarint size and the data. fn gets each field
// with a cursor over exactly its data; unknown tags are skipped, as Kafka
// does. It returns the tags seen, in order.
func (c *cursor) tags(fn func(tag uint32, f *cursor)) []uint32 {
	n := c.uvarint("tagged field count")
	if c.err != nil {
		return nil
	}
	if int(n) > c.left()/2 {
		c.fail(fmt.Sprintf("tagged field count %d exceeds the %d bytes left", n, c.left()))
		return nil
	}
	var seen []uint32
	for i := uint32(0); i < n && c.err == nil; i++ {
		start := c.off
		tag := c.uvarint("tag")
		size := c.uvarint("tagged field size")
		data := c.take(int(size), fmt.Sprintf("tagged field %d", tag))
		if c.err != nil {
			return seen
		}
		seen = append(seen, tag)
		if fn != nil {
			f := &cursor{b: data, part: fmt.Sprintf("tagged field %d of the %s", tag, c.part)}
			if c.ed != nil {
				f.ed = &editor{r: c.ed.r}
			}
			fn(tag, f)
			if f.err != nil && c.err == nil {
				c.err = f.err
			}
			c.retag(f, tag, start)
		}
	}
	return seen
}

// done checks that the whole input was read.
func (c *cursor) done() error {
	if c.err == nil && c.left() > 0 {
		c.err = fmt.Errorf("%w: %d unread bytes after the %s at byte %d", ErrTrailing, c.left(), c.part, c.off)
	}
	return c.err
}

// apiHeader is the framing of a record value that Kafka writes as an
// ApiMessageAndVersion (the metadata log, __remote_log_metadata): a frame
// version, the apiKey and the record's version, unsigned varints, with
// where the last two were read, for errors that name the byte.
type apiHeader struct {
	frame, key, version uint32
	keyAt, versionAt    int
}

// apiFrame reads an apiHeader; c.err says whether it parsed.
func (c *cursor) apiFrame() apiHeader {
	var h apiHeader
	h.frame = c.uvarint("frame version")
	h.keyAt = c.off
	h.key = c.uvarint("apiKey")
	h.versionAt = c.off
	h.version = c.uvarint("version")
	return h
}
