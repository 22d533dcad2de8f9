package records

import (
	"math"
	"testing"
)

// FuzzParseRange holds --offsets to its contract on any text: no panic, a
// range that is never inverted nor negative, and one its own String
// parses back to.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"10..20", "10..", "..20", "7", "..", "", "20..10", "-1..5", "1...5", "+3..4", " 0..0 ", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRange(s)
		if err != nil {
			if r != All {
				t.Fatalf("ParseRange(%q) failed with %v but returned %v", s, err, r)
			}
			return
		}
		if r.From > r.To || r.From < 0 && r.From != math.MinInt64 || r.To < 0 {
			t.Fatalf("ParseRange(%q) = %v", s, r)
		}
		if r.IsAll() {
			t.Fatalf("ParseRange(%q) selects everything without an error", s)
		}
		back, err := ParseRange(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRange(%q) = %v, whose String %q parses to %v, %v", s, r, r.String(), back, err)
		}
	})
}

// FuzzParseWindow: --since and --until never give an empty or inverted
// window, and a failure returns Always with an error.
func FuzzParseWindow(f *testing.F) {
	f.Add("2026-03-01T03:12:00Z", "2026-03-01T04:12:00+01:00")
	f.Add("1700000000000", "")
	f.Add("", "0")
	f.Add("9223372036854775807", "")
	f.Add("0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z")
	f.Fuzz(func(t *testing.T, since, until string) {
		w, err := ParseWindow(since, until)
		if err != nil {
			if w != Always {
				t.Fatalf("ParseWindow(%q, %q) failed with %v but returned %v", since, until, err, w)
			}
			return
		}
		if w.Since >= w.Until {
			t.Fatalf("ParseWindow(%q, %q) = %+v: empty or inverted", since, until, w)
		}
		if since == "" && w.Since != math.MinInt64 || until == "" && w.Until != math.MaxInt64 {
			t.Fatalf("ParseWindow(%q, %q) = %+v", since, until, w)
		}
	})
}
