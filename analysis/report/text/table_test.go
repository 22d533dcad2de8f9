package text

import (
	"strings"
	"testing"
)

func TestShorten(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		how  Cut
		want string
	}{
		{"orders.eu-west-1.v2", 40, CutMiddle, "orders.eu-west-1.v2"},
		{"orders.eu-west-1.v2", 11, CutMiddle, "order…-1.v2"},
		{"orders.eu-west-1.v2", 11, CutEnd, "orders.eu-…"},
		{"orders.eu-west-1.v2", 11, KeepWhole, "orders.eu-west-1.v2"},
		{"ümläut-topic-name", 8, CutMiddle, "ümlä…ame"},
	} {
		if got := shorten(c.in, c.n, c.how); got != c.want || (c.how != KeepWhole && width(got) > c.n) {
			t.Errorf("shorten(%q, %d, %d) = %q, want %q", c.in, c.n, c.how, got, c.want)
		}
	}
}

// TestTextTableFits: a name column gives up its width, the widest first,
// down to MinNameWidth, until the table fits TerminalWidth; the other
// columns keep theirs; wide keeps everything.
func TestTextTableFits(t *testing.T) {
	t.Parallel()
	tt := &Table{Cols: []Column{{Head: "TOPIC", Cut: CutMiddle}, {Head: "N", Right: true}, {Head: "PATH", Cut: CutMiddle}}}
	tt.Add(strings.Repeat("t", 100), "7", "/a/"+strings.Repeat("p", 100)+"/z.log")
	tt.Add("short", "12345", "x")
	var b strings.Builder
	if err := tt.Write(&b, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, l := range lines {
		if width(l) > TerminalWidth {
			t.Errorf("line of %d columns: %q", width(l), l)
		}
	}
	if !strings.HasSuffix(lines[1], "/z.log") || !strings.Contains(lines[1], "…") || !strings.Contains(lines[2], "12345") {
		t.Errorf("table:\n%s", b.String())
	}
	if ws := tt.widths(false); ws[0]+ws[1]+ws[2]+4 != TerminalWidth || ws[1] != 5 {
		t.Errorf("widths %v", ws)
	}
	b.Reset()
	tt.Write(&b, true)
	if !strings.Contains(b.String(), strings.Repeat("t", 100)+"  ") {
		t.Errorf("--wide cut a name:\n%s", b.String())
	}
	// Only columns that are never Cut: the table stays as wide as it is.
	wideNums := &Table{Cols: []Column{{Head: "A"}, {Head: "B"}}}
	wideNums.Add(strings.Repeat("1", 80), strings.Repeat("2", 80))
	if ws := wideNums.widths(false); ws[0] != 80 || ws[1] != 80 {
		t.Errorf("numbers Cut: %v", ws)
	}
}

// TestTableDropsBeforeCutting: every table leaves its droppable columns
// out before it shortens a name, so names that differ in the middle stay
// apart; a table with nothing to drop shortens its names; --wide keeps
// every column and name.
func TestTableDropsBeforeCutting(t *testing.T) {
	t.Parallel()
	a := "streams-app-aggregatedTopicPartitionTableWindows-ONE_MINUTE-repartition-0"
	b := "streams-app-aggregatedTopicPartitionTableWindows-THREE_HOURS-repartition-0"
	table := func(drop int, wide bool) string {
		tt := &Table{Cols: []Column{{Head: "PARTITION", Cut: CutMiddle}, {Head: "TIME", Drop: drop}, {Head: "N"}}}
		tt.Add(a, strings.Repeat("9", 60), "1")
		tt.Add(b, strings.Repeat("9", 60), "2")
		var out strings.Builder
		if err := tt.Write(&out, wide); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if got := table(1, false); !strings.Contains(got, "ONE_MINUTE") || !strings.Contains(got, "THREE_HOURS") || !strings.Contains(got, "left out") {
		t.Errorf("droppable column:\n%s", got)
	}
	if got := table(0, false); strings.Contains(got, "left out") || !strings.Contains(got, "…") {
		t.Errorf("nothing to drop, names shortened:\n%s", got)
	}
	if got := table(1, true); strings.Contains(got, "left out") || strings.Contains(got, "…") || !strings.Contains(got, "THREE_HOURS") {
		t.Errorf("wide:\n%s", got)
	}
}
