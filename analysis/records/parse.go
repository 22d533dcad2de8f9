package records

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Range is an inclusive range of offsets, From..To. An open end is
// math.MinInt64 or math.MaxInt64.
type Range struct {
	From, To int64
}

// All is the range that holds every offset.
var All = Range{math.MinInt64, math.MaxInt64}

// Contains reports whether offset o lies in the range.
func (r Range) Contains(o int64) bool { return o >= r.From && o <= r.To }

// IsAll reports whether the range selects nothing away.
func (r Range) IsAll() bool { return r == All }

func (r Range) String() string {
	var b strings.Builder
	if r.From != math.MinInt64 {
		b.WriteString(strconv.FormatInt(r.From, 10))
	}
	b.WriteString("..")
	if r.To != math.MaxInt64 {
		b.WriteString(strconv.FormatInt(r.To, 10))
	}
	return b.String()
}

// ParseRange parses "A..B" (both inclusive), "A.." (A and after), "..B"
// (up to B) and a single offset "A" (A..A). Offsets are not negative, and
// A may not exceed B.
func ParseRange(s string) (Range, error) {
	r := All
	from, to, ok := strings.Cut(strings.TrimSpace(s), "..")
	if !ok {
		to = from
	}
	if from == "" && to == "" {
		return r, fmt.Errorf("offset range %q: give A..B, A.. or ..B", s)
	}
	parse := func(part string) (int64, error) {
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("offset range %q: %q is not an offset (a whole number, 0 or more)", s, part)
		}
		return n, nil
	}
	var err error
	if from != "" {
		if r.From, err = parse(from); err != nil {
			return All, err
		}
	}
	if to != "" {
		if r.To, err = parse(to); err != nil {
			return All, err
		}
	}
	if r.From > r.To {
		return All, fmt.Errorf("offset range %q: %d comes after %d", s, r.From, r.To)
	}
	return r, nil
}

// ParseTime parses a point in time as RFC 3339 (with a zone, fractions of
// a second allowed) or as milliseconds since the epoch (digits only, as
// Kafka's timestamps are), and returns it in epoch milliseconds.
func ParseTime(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty time: give RFC 3339 (2026-03-01T03:12:00Z) or epoch milliseconds")
	}
	if isDigits(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("time %q: too large for epoch milliseconds", s)
		}
		return n, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("time %q is neither RFC 3339 (2026-03-01T03:12:00Z, 2026-03-01T04:12:00+01:00) nor epoch milliseconds", s)
	}
	return t.UnixMilli(), nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Window is a range of timestamps in epoch milliseconds: Since inclusive,
// Until exclusive, so that consecutive windows do not overlap. An open end
// is math.MinInt64 or math.MaxInt64.
type Window struct {
	Since, Until int64
}

// Always is the window that holds every timestamp.
var Always = Window{math.MinInt64, math.MaxInt64}

// IsAlways reports whether the window selects nothing away.
func (w Window) IsAlways() bool { return w == Always }

// Contains reports whether a record timestamp lies in the window. A
// record without a timestamp (-1, magic 0) lies in no window but Always.
func (w Window) Contains(ts int64) bool {
	if w.IsAlways() {
		return true
	}
	return ts >= 0 && ts >= w.Since && ts < w.Until
}

// Bound names the part of a time window that a WindowError is about.
type Bound int

const (
	// BoundSince is the window's inclusive start.
	BoundSince Bound = iota + 1
	// BoundUntil is the window's exclusive end.
	BoundUntil
	// BoundOrder is both bounds together: each parsed, but the start is
	// not before the end.
	BoundOrder
)

// WindowError is a window that could not be built. It carries which bound
// is wrong and the texts given, so that a caller can name the bounds in
// its own terms (a command line its flags).
type WindowError struct {
	Bound        Bound
	Since, Until string
	// Err is why the bound's text is not a time; nil for BoundOrder.
	Err error
}

func (e *WindowError) Error() string {
	switch e.Bound {
	case BoundSince:
		return "window start: " + e.Err.Error()
	case BoundUntil:
		return "window end: " + e.Err.Error()
	}
	return fmt.Sprintf("window start %s is not before its end %s", e.Since, e.Until)
}

func (e *WindowError) Unwrap() error { return e.Err }

// ParseWindow builds a window from the texts of its start and end (either
// may be empty, for an open end). Its errors are *WindowError.
func ParseWindow(since, until string) (Window, error) {
	w := Always
	var err error
	if since != "" {
		if w.Since, err = ParseTime(since); err != nil {
			return Always, &WindowError{Bound: BoundSince, Since: since, Until: until, Err: err}
		}
	}
	if until != "" {
		if w.Until, err = ParseTime(until); err != nil {
			return Always, &WindowError{Bound: BoundUntil, Since: since, Until: until, Err: err}
		}
	}
	if w.Since >= w.Until {
		return Always, &WindowError{Bound: BoundOrder, Since: since, Until: until}
	}
	return w, nil
}
