package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShorten(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		how  cut
		want string
	}{
		{"orders.eu-west-1.v2", 40, cutMiddle, "orders.eu-west-1.v2"},
		{"orders.eu-west-1.v2", 11, cutMiddle, "order…-1.v2"},
		{"orders.eu-west-1.v2", 11, cutEnd, "orders.eu-…"},
		{"orders.eu-west-1.v2", 11, keepWhole, "orders.eu-west-1.v2"},
		{"ümläut-topic-name", 8, cutMiddle, "ümlä…ame"},
	} {
		if got := shorten(c.in, c.n, c.how); got != c.want || (c.how != keepWhole && width(got) > c.n) {
			t.Errorf("shorten(%q, %d, %d) = %q, want %q", c.in, c.n, c.how, got, c.want)
		}
	}
}

// TestTextTableFits: a name column gives up its width, the widest first,
// down to minNameWidth, until the table fits terminalWidth; the other
// columns keep theirs; wide keeps everything.
func TestTextTableFits(t *testing.T) {
	t.Parallel()
	tt := &textTable{cols: []column{{head: "TOPIC", cut: cutMiddle}, {head: "N", right: true}, {head: "PATH", cut: cutMiddle}}}
	tt.add(strings.Repeat("t", 100), "7", "/a/"+strings.Repeat("p", 100)+"/z.log")
	tt.add("short", "12345", "x")
	var b strings.Builder
	if err := tt.write(&b, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, l := range lines {
		if width(l) > terminalWidth {
			t.Errorf("line of %d columns: %q", width(l), l)
		}
	}
	if !strings.HasSuffix(lines[1], "/z.log") || !strings.Contains(lines[1], "…") || !strings.Contains(lines[2], "12345") {
		t.Errorf("table:\n%s", b.String())
	}
	if ws := tt.widths(false); ws[0]+ws[1]+ws[2]+4 != terminalWidth || ws[1] != 5 {
		t.Errorf("widths %v", ws)
	}
	b.Reset()
	tt.write(&b, true)
	if !strings.Contains(b.String(), strings.Repeat("t", 100)+"  ") {
		t.Errorf("--wide cut a name:\n%s", b.String())
	}
	// Only columns that are never cut: the table stays as wide as it is.
	wideNums := &textTable{cols: []column{{head: "A"}, {head: "B"}}}
	wideNums.add(strings.Repeat("1", 80), strings.Repeat("2", 80))
	if ws := wideNums.widths(false); ws[0] != 80 || ws[1] != 80 {
		t.Errorf("numbers cut: %v", ws)
	}
}

// TestLongTopicTables: a topic name of 200 characters widens the tables
// of scan, producers and dups no further than 120 columns or what a name
// of minNameWidth characters takes, is shortened in the middle, and
// --wide prints it whole.
func TestLongTopicTables(t *testing.T) {
	t.Parallel()
	long := "orders." + strings.Repeat("x", 186) + ".events"
	logDir := func(topic string) string {
		dir := filepath.Join(t.TempDir(), "logs")
		if err := os.CopyFS(filepath.Join(dir, topic+"-0"), os.DirFS(filepath.Join(sampleDir, "idempotent-0"))); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	longDir, shortDir := logDir(long), logDir(strings.Repeat("s", minNameWidth))
	widest := func(out string) int {
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "TOPIC") || strings.Contains(l, "orders.") || strings.Contains(l, "ssss") {
				if strings.Contains(l, ": PID ") {
					continue // a run's sentence, not a table
				}
				n = max(n, width(l))
			}
		}
		return n
	}
	for _, cmd := range []string{"scan", "producers", "dups"} {
		run := func(dir string, extra ...string) string {
			args := append([]string{cmd, dir, "--progress", "never"}, extra...)
			if cmd == "scan" {
				args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
			}
			out, errOut, code := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			return out
		}
		got, short, wide := run(longDir), run(shortDir), run(longDir, "--wide")
		if w, ws := widest(got), widest(short); w > max(terminalWidth, ws) || ws == 0 {
			t.Errorf("%s: tables %d columns wide with a long topic, %d with one of %d characters:\n%s", cmd, w, ws, minNameWidth, got)
		}
		if !strings.Contains(got, "orders.x") || !strings.Contains(got, ".events") || !strings.Contains(got, "…") {
			t.Errorf("%s: the long topic is not shortened in the middle:\n%s", cmd, got)
		}
		if !strings.Contains(wide, long+"  ") {
			t.Errorf("%s --wide: the topic is not whole:\n%s", cmd, wide)
		}
	}
}

// TestScanLongOutPath: the table paths of the summary are shortened to
// fit, keeping the file names.
func TestScanLongOutPath(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), strings.Repeat("d", 150), "out")
	stdout := mustScan(t, "scan", sampleDir, "--out", out, "--progress", "never")
	_, after, _ := strings.Cut(stdout, "tables in ")
	lines := strings.Split(strings.TrimSpace(after), "\n")[1:]
	if len(lines) < 9 {
		t.Fatalf("tables list:\n%s", after)
	}
	for _, l := range lines {
		if width(l) > terminalWidth || !strings.Contains(l, "…") || !strings.Contains(l, ".parquet ") {
			t.Errorf("table line of %d columns: %q", width(l), l)
		}
	}
}

// TestSampleTablesFit120: the scan and producers tables of the sample fit
// 120 columns: the common date moves into the time heading and the
// droppable columns go, named in a closing line; --wide keeps them all.
func TestSampleTablesFit120(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args    []string
		dropped string
	}{
		{[]string{"scan", generatedDir, "--progress", "never", "--force", "--out", filepath.Join(t.TempDir(), "out")}, "BYTES, SEGMENTS, BROKER"},
		{[]string{"producers", generatedDir}, "SNAPSHOT SEQ@OFFSET"},
	} {
		out := mustScan(t, c.args...)
		for _, l := range strings.Split(out, "\n") {
			if width(l) > terminalWidth {
				t.Errorf("%s: line of %d columns: %q", c.args[0], width(l), l)
			}
		}
		if !strings.Contains(out, "TIME (UTC, 2023-11-15)") || !strings.Contains(out, "(left out to fit 120 columns: "+c.dropped+"; --wide prints them)") {
			t.Errorf("%s:\n%s", c.args[0], out)
		}
		wide := mustScan(t, append(c.args, "--wide")...)
		for _, h := range strings.Split(c.dropped, ", ") {
			if !strings.Contains(wide, h) || strings.Contains(wide, "left out") {
				t.Errorf("%s --wide lacks %s:\n%s", c.args[0], h, wide)
			}
		}
	}
}
