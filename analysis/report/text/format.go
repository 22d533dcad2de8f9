// Package text writes what the commands print for people: the summaries
// of scan and verify, the recovery plan, the open transactions, and the
// tables fitted to a terminal (Table), through a writer that makes the
// control characters of hostile names visible (SafeWriter). It is fed the
// pipeline's Result and Summary only.
package text

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Time is a time in milliseconds since the epoch, in UTC to the second
// ("-" for none).
func Time(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02T15:04:05Z")
}

// Itoa is n in decimal.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Range is an offset range a..b ("-" when either end is unknown).
func Range(a, b *int64) string {
	if a == nil || b == nil {
		return "-"
	}
	return fmt.Sprintf("%d..%d", *a, *b)
}

// Plural is one when n is 1, else many.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and the noun, plural unless n is 1: "1 note", "2 notes",
// "3 batches".
func Count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "s") || strings.HasSuffix(noun, "x") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, noun[:len(noun)-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ErrWriter keeps the first write error, so that a writer of many lines
// checks once.
type ErrWriter struct {
	W   io.Writer
	Err error
}

func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	return n, err
}

// ByKind renders " (2 crc-mismatch, 1 offset-gap)", kinds sorted by name.
func ByKind[K ~string](m map[K]int64) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
