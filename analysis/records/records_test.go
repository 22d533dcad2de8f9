package records

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
)

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Range
		err  bool
	}{
		{"10..20", Range{10, 20}, false},
		{"10..", Range{10, math.MaxInt64}, false},
		{"..20", Range{math.MinInt64, 20}, false},
		{"7", Range{7, 7}, false},
		{" 0..0 ", Range{0, 0}, false},
		{"..", All, true},
		{"", All, true},
		{"20..10", All, true},
		{"-1..5", All, true},
		{"1...5", All, true},
		{"a..b", All, true},
		{"1..9223372036854775808", All, true},
	} {
		got, err := ParseRange(c.in)
		if (err != nil) != c.err || err == nil && got != c.want {
			t.Errorf("ParseRange(%q) = %v, %v; want %v, error %t", c.in, got, err, c.want, c.err)
		}
		if err == nil && c.in != "7" && strings.TrimSpace(c.in) != got.String() {
			t.Errorf("Range %q prints as %q", c.in, got.String())
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"1700047595227", 1700047595227, false},
		{"0", 0, false},
		{"2023-11-15T11:26:35.227Z", 1700047595227, false},
		{"2023-11-15T12:26:35.227+01:00", 1700047595227, false},
		{"2023-11-15T11:26:35Z", 1700047595000, false},
		{"2023-11-15T11:26:35.2279Z", 1700047595227, false}, // below a millisecond is dropped
		{"2023-11-15 11:26:35", 0, true},                    // no zone: ambiguous
		{"2023-11-15T11:26:35", 0, true},
		{"-5", 0, true},
		{"", 0, true},
		{"99999999999999999999", 0, true},
		{"yesterday", 0, true},
	} {
		got, err := ParseTime(c.in)
		if (err != nil) != c.err || err == nil && got != c.want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d, error %t", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseWindow(t *testing.T) {
	w, err := ParseWindow("1000", "")
	if err != nil || w.Since != 1000 || w.Until != math.MaxInt64 || w.Contains(999) || !w.Contains(1000) || w.Contains(-1) {
		t.Errorf("since 1000: %+v %v", w, err)
	}
	w, err = ParseWindow("", "1970-01-01T00:00:02Z")
	if err != nil || !w.Contains(0) || !w.Contains(1999) || w.Contains(2000) || w.Contains(-1) {
		t.Errorf("until 2s: %+v %v", w, err)
	}
	if _, err := ParseWindow("2000", "2000"); err == nil {
		t.Error("an empty window is accepted")
	}
	if w, err := ParseWindow("", ""); err != nil || !w.IsAlways() || !w.Contains(-1) {
		t.Errorf("no window: %+v %v", w, err)
	}
}

// TestWindowErrorBound checks that a window's errors say which bound is
// wrong, and name no command-line flag: the command maps bounds to flags.
func TestWindowErrorBound(t *testing.T) {
	for _, c := range []struct {
		since, until string
		bound        Bound
	}{
		{"yesterday", "", BoundSince},
		{"", "99999999999999999999", BoundUntil},
		{"1000", "yesterday", BoundUntil},
		{"2000", "1000", BoundOrder},
	} {
		_, err := ParseWindow(c.since, c.until)
		var we *WindowError
		if !errors.As(err, &we) {
			t.Errorf("ParseWindow(%q, %q): %v is no *WindowError", c.since, c.until, err)
			continue
		}
		if we.Bound != c.bound || we.Since != c.since || we.Until != c.until {
			t.Errorf("ParseWindow(%q, %q) = %+v, want bound %d", c.since, c.until, we, c.bound)
		}
		if (we.Err == nil) != (c.bound == BoundOrder) {
			t.Errorf("ParseWindow(%q, %q): cause %v", c.since, c.until, we.Err)
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("ParseWindow(%q, %q): %q names a flag", c.since, c.until, err)
		}
	}
}

// sample copies the generated log dir, so that its indexes can be damaged.
func sample(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "logdirs", "generated")
	dst := filepath.Join(t.TempDir(), "generated")
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// find runs a selection over dir and returns one line per record, the
// kinds of the findings and the counts.
func find(t *testing.T, dir string, o Options) (lines []string, kinds []string, st Stats) {
	t.Helper()
	ins, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	st, err = Run(context.Background(), ins, []string{"s"}, o, Sink{
		Record: func(r *Record) error {
			lines = append(lines, fmt.Sprintf("%s %d %d %d %q %q %d", r.File, r.Position, r.Offset, r.Timestamp, r.Key, r.Value, len(r.Headers)))
			return nil
		},
		Finding: func(a analysis.AnomalyRow) { kinds = append(kinds, string(a.Kind)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines, kinds, st
}

// TestIndexFallback damages the .index and .timeindex of a segment in
// every way that leaves them unusable, or usable but wrong, and checks
// that the records found stay those of a read without indexes.
func TestIndexFallback(t *testing.T) {
	t.Parallel()
	o := New()
	o.Topic = nil
	o.Offsets = Range{40, 60}
	dir := sample(t)
	want, _, full := find(t, dir, func() Options { x := o; x.NoIndex = true; return x }())
	got, kinds, st := find(t, dir, o)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) < 20 || len(kinds) != 0 {
		t.Fatalf("intact indexes: %d records, want %d; findings %v", len(got), len(want), kinds)
	}
	if st.Seeked == 0 || st.BytesRead >= full.BytesRead || st.Fallbacks != 0 {
		t.Fatalf("intact indexes: %+v, without: %+v", st, full)
	}
	seg := filepath.Join(dir, "codecs-0", "00000000000000000000")
	intact, err := os.ReadFile(seg + ".index")
	if err != nil {
		t.Fatal(err)
	}
	put := func(data []byte) {
		if data == nil {
			os.Remove(seg + ".index")
			return
		}
		if err := os.WriteFile(seg+".index", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(f func(b []byte)) []byte {
		b := append([]byte(nil), intact...)
		f(b)
		return b
	}
	// Entry 0 is offset 34 at byte 1385 (the batch of offsets 26..34), the
	// one a read of 40..60 starts at; the batches before and after it
	// start at bytes 907 and 1865.
	if binary.BigEndian.Uint32(intact[0:]) != 34 || binary.BigEndian.Uint32(intact[4:]) != 1385 {
		t.Fatalf("the sample's index changed: %x", intact[:8])
	}
	pos := func(p uint32) []byte { return edit(func(b []byte) { binary.BigEndian.PutUint32(b[4:], p) }) }
	for _, c := range []struct {
		name     string
		data     []byte
		fallback bool // the index parses and is tried, and the log disagrees
	}{
		{"missing", nil, false},
		{"torn", intact[:len(intact)-3], false},
		{"zeroed", make([]byte, len(intact)), false},
		{"position inside a batch", pos(1390), true},
		{"position of an earlier batch", pos(907), true},
		{"position of a later batch", pos(1865), true},
		{"offset not in its batch", edit(func(b []byte) { binary.BigEndian.PutUint32(b[0:], 25) }), true},
		{"positions out of order", pos(1 << 20), false},
		{"beyond the log", edit(func(b []byte) { binary.BigEndian.PutUint32(b[len(b)-4:], 1<<30) }), false},
	} {
		put(c.data)
		got, kinds, st := find(t, dir, o)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s index: %d records, want %d", c.name, len(got), len(want))
		}
		if c.fallback != (st.Fallbacks == 1) || c.fallback != (len(kinds) == 1 && kinds[0] == "index-mismatch") {
			t.Errorf("%s index: %d fallbacks, findings %v", c.name, st.Fallbacks, kinds)
		}
		t.Logf("%s index: %d records, %+v", c.name, len(got), st)
	}
	put(intact)

	// A time selection with damaged time indexes.
	to := New()
	to.Window = Window{Since: 1700047596000, Until: math.MaxInt64}
	want, _, full = find(t, dir, func() Options { x := to; x.NoIndex = true; return x }())
	got, _, st = find(t, dir, to)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) < 20 || st.BytesRead >= full.BytesRead {
		t.Fatalf("intact time indexes: %d records, want %d; %+v vs %+v", len(got), len(want), st, full)
	}
	tseg := filepath.Join(dir, "codecs-0", "00000000000000000000.timeindex")
	tintact, err := os.ReadFile(tseg)
	if err != nil {
		t.Fatal(err)
	}
	swapped := append([]byte(nil), tintact...)
	copy(swapped[0:8], tintact[12:20])
	copy(swapped[12:20], tintact[0:8])
	// One entry that parses and is in order but lies: an old timestamp
	// for the segment's last offset (the batch there says otherwise), for
	// an offset past the segment, or a negative timestamp (random bytes
	// have the sign bit set half the time). Each would hide the records
	// after since that it covers.
	last := binary.BigEndian.Uint32(tintact[len(tintact)-4:])
	entry := func(ts int64, rel uint32) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, uint64(ts)), rel)
	}
	for name, c := range map[string]struct {
		data     []byte
		fallback bool
	}{
		"torn":                      {tintact[:len(tintact)-5], false},
		"zeroed":                    {make([]byte, len(tintact)), false},
		"out of order":              {swapped, false},
		"old time, last offset":     {entry(1, last), true},
		"old time, past the log":    {entry(1, 1<<30), false},
		"negative time, any offset": {entry(-5, last), false},
	} {
		if err := os.WriteFile(tseg, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, kinds, st := find(t, dir, to)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s time index: %d records, want %d", name, len(got), len(want))
		}
		if c.fallback != (st.Fallbacks == 1 && slices.Contains(kinds, "index-mismatch")) {
			t.Errorf("%s time index: %d fallbacks, findings %v", name, st.Fallbacks, kinds)
		}
	}
}

// TestDecodeValue: a DecodeValue rendering is what --value-regex matches
// and what the record carries; values it declines stay raw.
func TestDecodeValue(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "logdirs", "generated")
	o := New()
	calls := 0
	o.DecodeValue = func(topic string, v []byte) ([]byte, string, bool) {
		calls++
		if topic != "txn" {
			return nil, "", false
		}
		return []byte(strings.ToUpper("decoded:" + string(v))), "test", true
	}
	o.ValueRegex = regexp.MustCompile(`^DECODED:`)
	ins, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = Run(context.Background(), ins, []string{"s"}, o, Sink{Record: func(r *Record) error {
		n++
		if r.Topic != "txn" || r.DecodedEncoding != "test" || !strings.HasPrefix(string(r.Decoded), "DECODED:") || r.Value == nil {
			t.Errorf("offset %d of %s: decoded %q (%s)", r.Offset, r.Topic, r.Decoded, r.DecodedEncoding)
		}
		return nil
	}})
	if err != nil || n < 10 || calls <= n {
		t.Errorf("%d records matched, %d calls, %v", n, calls, err)
	}
}
