package payload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/hamba/avro/v2"
)

// The decoder's bounds. A body comes from the wire: every length in it is
// checked against the bytes left before anything is allocated, and values
// that take no bytes at all (nulls, empty records) are bounded by a count,
// so that a block count of 2^62 nulls costs an error, not a loop.
const (
	maxDepth  = 64       // nesting of records, arrays, maps and unions
	maxValues = 1 << 20  // values decoded from one body
	maxOutput = 16 << 20 // bytes of JSON written for one body
)

var (
	errShort    = errors.New("runs past the end of the body")
	errTooDeep  = fmt.Errorf("nested deeper than %d levels", maxDepth)
	errTooMany  = fmt.Errorf("more than %d values", maxValues)
	errTooLarge = fmt.Errorf("more than %d bytes of JSON", maxOutput)
)

// DecodeAvro decodes one Avro binary datum of schema s to the Avro JSON
// encoding (the Avro specification's, which is what Confluent's
// kafka-avro-console-consumer prints): a union's non-null branch is an
// object {"branch type name": value}; bytes and fixed are strings with one
// code point U+0000..U+00FF per byte; logical types are written as their
// underlying type (a date is its int of days, a decimal its bytes), so the
// text holds the datum exactly. A float or double that JSON cannot hold
// (NaN, ±Inf) is the string "NaN", "Infinity" or "-Infinity". The datum
// must take the whole body.
func DecodeAvro(s avro.Schema, body []byte) ([]byte, error) {
	d := avroDecoder{b: body}
	if err := d.value(s, 0); err != nil {
		return nil, fmt.Errorf("avro: at body byte %d: %w", d.pos, err)
	}
	if d.pos != len(body) {
		return nil, fmt.Errorf("avro: %d byte(s) left after the value, at body byte %d", len(body)-d.pos, d.pos)
	}
	return d.out, nil
}

type avroDecoder struct {
	b      []byte
	pos    int
	out    []byte
	values int
}

func (d *avroDecoder) long() (int64, error) {
	v, n, err := zigzag(d.b[d.pos:])
	if err != nil {
		return 0, err
	}
	d.pos += n
	return v, nil
}

// length reads a string, bytes or block-size length and checks it against
// the bytes left.
func (d *avroDecoder) length() (int, error) {
	n, err := d.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("negative length %d", n)
	}
	if n > int64(len(d.b)-d.pos) {
		return 0, fmt.Errorf("length %d %s (%d left)", n, errShort, len(d.b)-d.pos)
	}
	return int(n), nil
}

func (d *avroDecoder) take(n int) ([]byte, error) {
	if n > len(d.b)-d.pos {
		return nil, errShort
	}
	p := d.b[d.pos : d.pos+n]
	d.pos += n
	return p, nil
}

func (d *avroDecoder) value(s avro.Schema, depth int) error {
	if depth > maxDepth {
		return errTooDeep
	}
	if d.values++; d.values > maxValues {
		return errTooMany
	}
	if len(d.out) > maxOutput {
		return errTooLarge
	}
	switch t := s.(type) {
	case *avro.RefSchema:
		return d.value(t.Schema(), depth+1)
	case *avro.NullSchema:
		d.out = append(d.out, "null"...)
		return nil
	case *avro.PrimitiveSchema:
		return d.primitive(t.Type())
	case *avro.RecordSchema:
		d.out = append(d.out, '{')
		for i, f := range t.Fields() {
			if i > 0 {
				d.out = append(d.out, ',')
			}
			d.out = appendString(d.out, f.Name())
			d.out = append(d.out, ':')
			if err := d.value(f.Type(), depth+1); err != nil {
				return fmt.Errorf("field %s: %w", f.Name(), err)
			}
		}
		d.out = append(d.out, '}')
		return nil
	case *avro.EnumSchema:
		i, err := d.long()
		if err != nil {
			return err
		}
		syms := t.Symbols()
		if i < 0 || i >= int64(len(syms)) {
			return fmt.Errorf("enum %s: index %d of %d symbols", t.FullName(), i, len(syms))
		}
		d.out = appendString(d.out, syms[i])
		return nil
	case *avro.FixedSchema:
		p, err := d.take(t.Size())
		if err != nil {
			return fmt.Errorf("fixed %s of %d bytes: %w", t.FullName(), t.Size(), err)
		}
		d.out = appendLatin1(d.out, p)
		return nil
	case *avro.ArraySchema:
		d.out = append(d.out, '[')
		err := d.blocks(depth, func(first bool) error {
			if !first {
				d.out = append(d.out, ',')
			}
			return d.value(t.Items(), depth+1)
		})
		d.out = append(d.out, ']')
		return err
	case *avro.MapSchema:
		d.out = append(d.out, '{')
		err := d.blocks(depth, func(first bool) error {
			if !first {
				d.out = append(d.out, ',')
			}
			n, err := d.length()
			if err != nil {
				return fmt.Errorf("map key: %w", err)
			}
			d.out = appendString(d.out, string(d.b[d.pos:d.pos+n]))
			d.pos += n
			d.out = append(d.out, ':')
			return d.value(t.Values(), depth+1)
		})
		d.out = append(d.out, '}')
		return err
	case *avro.UnionSchema:
		i, err := d.long()
		if err != nil {
			return err
		}
		types := t.Types()
		if i < 0 || i >= int64(len(types)) {
			return fmt.Errorf("union index %d of %d branches", i, len(types))
		}
		branch := types[i]
		if branch.Type() == avro.Null {
			d.out = append(d.out, "null"...)
			return nil
		}
		d.out = append(d.out, '{')
		d.out = appendString(d.out, branchName(branch))
		d.out = append(d.out, ':')
		if err := d.value(branch, depth+1); err != nil {
			return err
		}
		d.out = append(d.out, '}')
		return nil
	}
	return fmt.Errorf("schema type %s not decoded", s.Type())
}

// blocks reads the blocks of an array or map: a count, negative when a
// byte size follows it, then that many items, until a count of 0.
func (d *avroDecoder) blocks(depth int, item func(first bool) error) error {
	first := true
	for {
		n, err := d.long()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n < 0 {
			if n == math.MinInt64 {
				return fmt.Errorf("block count %d", n)
			}
			n = -n
			if _, err := d.length(); err != nil {
				return fmt.Errorf("block size: %w", err)
			}
		}
		// Each item is counted against maxValues as it is decoded, so a
		// huge count ends in errTooMany (or errShort) and allocates nothing.
		for ; n > 0; n-- {
			if err := item(first); err != nil {
				return err
			}
			first = false
		}
	}
}

func (d *avroDecoder) primitive(t avro.Type) error {
	switch t {
	case avro.Null:
		d.out = append(d.out, "null"...)
	case avro.Boolean:
		p, err := d.take(1)
		if err != nil {
			return err
		}
		switch p[0] {
		case 0:
			d.out = append(d.out, "false"...)
		case 1:
			d.out = append(d.out, "true"...)
		default:
			return fmt.Errorf("boolean byte %d", p[0])
		}
	case avro.Int, avro.Long:
		v, err := d.long()
		if err != nil {
			return err
		}
		if t == avro.Int && (v < math.MinInt32 || v > math.MaxInt32) {
			return fmt.Errorf("int %d out of range", v)
		}
		d.out = strconv.AppendInt(d.out, v, 10)
	case avro.Float:
		p, err := d.take(4)
		if err != nil {
			return err
		}
		d.out = appendFloat(d.out, float64(math.Float32frombits(binary.LittleEndian.Uint32(p))), 32)
	case avro.Double:
		p, err := d.take(8)
		if err != nil {
			return err
		}
		d.out = appendFloat(d.out, math.Float64frombits(binary.LittleEndian.Uint64(p)), 64)
	case avro.String:
		n, err := d.length()
		if err != nil {
			return err
		}
		d.out = appendString(d.out, string(d.b[d.pos:d.pos+n]))
		d.pos += n
	case avro.Bytes:
		n, err := d.length()
		if err != nil {
			return err
		}
		d.out = appendLatin1(d.out, d.b[d.pos:d.pos+n])
		d.pos += n
	default:
		return fmt.Errorf("primitive type %s not decoded", t)
	}
	return nil
}

// branchName is the name of a union branch in the Avro JSON encoding: the
// full name of a named type, otherwise the type's name.
func branchName(s avro.Schema) string {
	switch t := s.(type) {
	case *avro.RefSchema:
		return t.Schema().FullName()
	case avro.NamedSchema:
		return t.FullName()
	}
	return string(s.Type())
}

func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// appendString appends s as a JSON string; bytes that are not UTF-8 become
// U+FFFD, as encoding/json writes them.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b = appendASCII(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// appendLatin1 appends bytes as the Avro JSON encoding writes bytes and
// fixed: a string of one code point per byte.
func appendLatin1(b []byte, p []byte) []byte {
	b = append(b, '"')
	for _, c := range p {
		if c < utf8.RuneSelf {
			b = appendASCII(b, c)
		} else {
			b = utf8.AppendRune(b, rune(c))
		}
	}
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

func appendASCII(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	if c < 0x20 || c == 0x7f {
		return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
	}
	return append(b, c)
}
