package topics

import (
	"encoding/binary"
	"math"
	"strconv"
)

// The cursor reads below cover the shapes the KRaft metadata schemas use
// beyond the common primitives: non-nullable arrays (a null count there is
// damage, as Kafka's generated readers reject it), nullable tagged arrays
// kept as pointers so "absent" and "present but empty" stay apart, and
// float64.

// int32s reads a non-nullable compact int32 array.
func (c *cursor) int32s(what string) []int32 {
	n := c.count(4, what)
	if c.err != nil {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = c.int32(what)
	}
	return out
}

// optInt32s reads a nullable compact int32 array: nil for null.
func (c *cursor) optInt32s(what string) *[]int32 {
	v := c.int32Array(true, what)
	if v == nil || c.err != nil {
		return nil
	}
	return &v
}

// uuids reads a non-nullable compact uuid array.
func (c *cursor) uuids(what string) []UUID {
	n := c.count(16, what)
	if c.err != nil {
		return nil
	}
	out := make([]UUID, n)
	for i := range out {
		out[i] = c.uuid(what)
	}
	return out
}

// optUUIDs reads a nullable compact uuid array: nil for null.
func (c *cursor) optUUIDs(what string) *[]UUID {
	v := c.uuidArray(true, what)
	if v == nil || c.err != nil {
		return nil
	}
	return &v
}

// count reads a non-nullable compact array count of elements of at least
// minElem bytes each.
func (c *cursor) count(minElem int, what string) int {
	n := c.arrayLen(true, minElem, what)
	if c.err == nil && n < 0 {
		c.fail(what + " is null where the schema does not allow it")
	}
	if c.err != nil {
		return 0
	}
	return n
}

// strings reads a non-nullable compact array of non-nullable strings.
func (c *cursor) strings(what string) []string {
	n := c.count(1, what)
	out := make([]string, 0, n)
	for i := 0; i < n && c.err == nil; i++ {
		out = append(out, c.string(true, what))
	}
	return out
}

// compactBytes reads a non-nullable compact bytes field as a copy, so a
// decoded record outlives the segment buffer it came from.
func (c *cursor) compactBytes(what string) []byte {
	n := c.length(true, false, what)
	if c.err != nil {
		return nil
	}
	if n < 0 {
		c.fail(what + " is null where the schema does not allow it")
		return nil
	}
	s := c.take(n, what)
	if s == nil {
		return nil
	}
	return append([]byte{}, s...)
}

func (c *cursor) float64(what string) JavaDouble {
	s := c.take(8, what)
	if s == nil {
		return 0
	}
	return JavaDouble(math.Float64frombits(binary.BigEndian.Uint64(s)))
}

// JavaDouble is a float64 that renders in JSON as Java's Double.toString
// does (1024.0, 1.0E7), the form kafka-dump-log prints quota values in.
// NaN and the infinities, which JSON has no number for, become the strings
// "NaN", "Infinity" and "-Infinity".
type JavaDouble float64

func (d JavaDouble) MarshalJSON() ([]byte, error) {
	f := float64(d)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return []byte(javaDoubleString(f)), nil
}

// javaDoubleString formats a finite f as Double.toString: plain decimal
// with at least one fractional digit for 1e-3 <= |f| < 1e7 (and zero),
// otherwise d.dddE±n with at least one fractional digit and no '+'.
func javaDoubleString(f float64) string {
	a := math.Abs(f)
	if a == 0 || a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if f == 0 && math.Signbit(f) {
			s = "-0"
		}
		if !containsByte(s, '.') {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+07, 1.5e-05
	i := 0
	for i < len(s) && s[i] != 'e' {
		i++
	}
	mant, exp := s[:i], s[i+1:]
	if !containsByte(mant, '.') {
		mant += ".0"
	}
	if exp[0] == '+' {
		exp = exp[1:]
	}
	sign := ""
	if exp[0] == '-' {
		sign, exp = "-", exp[1:]
	}
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	return mant + "E" + sign + exp
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// since reports whether a tagged field that the schema adds in version
// first may appear in version; when it may not, it fails the cursor, as
// Kafka's generated readers reject such a tag rather than skip it.
func (c *cursor) since(version, first, tag uint32) bool {
	if version < first {
		c.fail("tag " + strconv.FormatUint(uint64(tag), 10) + " is not valid for version " + strconv.FormatUint(uint64(version), 10))
		return false
	}
	return true
}
