package pipeline

import "testing"

// TestParseSize: binary and decimal units, a bare number, and what is no
// size.
func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"123": 123, "64KiB": 64 << 10, "512MiB": 512 << 20, "2GiB": 2 << 30, "1.5 GB": 1.5e9,
		"3k": 3 << 10, "10B": 10, " 7 M ": 7 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "lots", "5 parsecs"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) gives no error", in)
		}
	}
}
