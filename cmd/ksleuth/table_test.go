package main

import (
	"unicode/utf8"

	"github.com/ksleuth/ksleuth/analysis/report/text"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongTopicTables: a topic name of 200 characters widens the tables
// of scan, producers and dups no further than 120 columns or what a name
// of text.MinNameWidth characters takes, is shortened in the middle, and
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
	longDir, shortDir := logDir(long), logDir(strings.Repeat("s", text.MinNameWidth))
	widest := func(out string) int {
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "TOPIC") || strings.Contains(l, "orders.") || strings.Contains(l, "ssss") {
				if strings.Contains(l, ": PID ") || strings.HasSuffix(l, ":") {
					continue // a run's sentence (its name alone when wider than a line), not a table
				}
				n = max(n, utf8.RuneCountInString(l))
			}
		}
		return n
	}
	for _, cmd := range []string{"scan", "producers", "dups"} {
		run := func(dir string, extra ...string) string {
			args := append([]string{cmd, dir, "--progress", "never"}, extra...)
			switch cmd {
			case "scan":
				args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
			case "producers":
				args = append(args, "--all") // the sessions with nothing to note too
			}
			out, errOut, code := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			return out
		}
		got, short, wide := run(longDir), run(shortDir), run(longDir, "--wide")
		if w, ws := widest(got), widest(short); w > max(text.TerminalWidth, ws) || ws == 0 {
			t.Errorf("%s: tables %d columns wide with a long topic, %d with one of %d characters:\n%s", cmd, w, ws, text.MinNameWidth, got)
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
		if utf8.RuneCountInString(l) > text.TerminalWidth || !strings.Contains(l, "…") || !strings.Contains(l, ".parquet ") {
			t.Errorf("table line of %d columns: %q", utf8.RuneCountInString(l), l)
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
			if utf8.RuneCountInString(l) > text.TerminalWidth {
				t.Errorf("%s: line of %d columns: %q", c.args[0], utf8.RuneCountInString(l), l)
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
