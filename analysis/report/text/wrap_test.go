package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWrap: a sentence longer than a line breaks at spaces within
// TerminalWidth, continuation lines after their own indent, and a word
// wider than a line (a path) breaks after a slash.
func TestWrap(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	words := strings.Repeat("offsets 60–75 repeat 44–59 ", 12)
	Wrap(&b, words, "  ", "    ")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "  offsets") || !strings.HasPrefix(lines[1], "    ") {
		t.Fatalf("not wrapped:\n%s", b.String())
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > TerminalWidth || strings.HasSuffix(l, " ") {
			t.Errorf("line of %d columns, or ending in a blank: %q", n, l)
		}
	}
	if got := strings.Join(strings.Fields(b.String()), " "); got != strings.TrimSpace(words) {
		t.Errorf("words changed: %q", got)
	}
	b.Reset()
	long := strings.Repeat("x", 100) + "/" + strings.Repeat("y", 50)
	Wrap(&b, "a "+long+" b", "", "  ")
	if want := "a\n  " + long[:101] + "\n  " + long[101:] + " b\n"; b.String() != want {
		t.Errorf("a long path: %q, want %q", b.String(), want)
	}
	b.Reset()
	Wrap(&b, strings.Repeat("z", 250), "", "")
	if want := strings.Repeat("z", 120) + "\n" + strings.Repeat("z", 120) + "\n" + strings.Repeat("z", 10) + "\n"; b.String() != want {
		t.Errorf("a long word without slashes: %q", b.String())
	}
}
