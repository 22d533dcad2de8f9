package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// transitSample is a copy of the sample with codecs-0 also copied to
// codecs-0.<id>-<suffix> (a dir Kafka renamed for deletion, a replica
// being moved between log dirs, or a stray one), without its first
// segment: offsets 0..67 are not in that dir. It returns the log dir and
// the suffixed dir's name.
func transitSample(t *testing.T, suffix string) (string, string) {
	t.Helper()
	dir := copyDir(t, sampleDir)
	name := "codecs-0.43979276bba84f3fbd5dae8bc80fe982-" + suffix
	src, dst := filepath.Join(dir, "codecs-0"), filepath.Join(dir, name)
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "00000000000000000000.") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, name
}

// TestVerifyTransitDirs: a -delete, -future or -stray partition dir
// lacking the offsets below its first segment loses nothing: its verdict
// is the dir's own state, its gaps are notes, and its one finding is the
// note of its kind naming what is on disk; verify exits as on the sample
// and counts the copy apart from the intact ones.
func TestVerifyTransitDirs(t *testing.T) {
	for _, c := range []struct{ suffix, state, kind, text, count string }{
		{"delete", "deleted", "deleted-partition-dir", "deleted, awaiting removal: offsets 68..84; not on disk: 0..67 (not a loss)",
			"intact; 1 deleted, awaiting removal"},
		{"future", "future", "future-partition-dir", "future replica being moved: offsets 68..84; not on disk: 0..67 (not a loss)",
			"intact; 1 future, being moved"},
		{"stray", "stray", "stray-partition-dir", "stray replica: offsets 68..84; not on disk: 0..67 (not a loss)", "intact; 1 stray"},
	} {
		t.Run(c.suffix, func(t *testing.T) {
			dir, name := transitSample(t, c.suffix)
			out, errs, code := runCLI(t, "verify", "--json", "--progress", "never", dir)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			var seen, notes int
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var l struct {
					Type, Dir, File, Kind, Severity, State, Cause string
					Intact                                        bool
					Lost                                          int64 `json:"lost_offsets"`
				}
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatal(err)
				}
				in := l.Dir == name || l.File == name || strings.HasPrefix(l.File, name+"/")
				switch {
				case !in:
				case l.Type == "partition":
					seen++
					if l.State != c.state || !l.Intact || l.Lost != 0 {
						t.Errorf("verdict: state %q intact %v lost %d", l.State, l.Intact, l.Lost)
					}
				case l.Severity != "note":
					t.Errorf("%s above a note: %s", l.Type, sc.Text())
				case l.Type == "finding" && l.Kind == c.kind:
					notes++
					if !strings.Contains(sc.Text(), "offsets 68..84 on disk") || !strings.Contains(sc.Text(), "0..67 (missing-segment)") {
						t.Errorf("the note does not name what is on disk and what is not: %s", sc.Text())
					}
				}
			}
			if seen != 1 || notes != 1 {
				t.Errorf("%d verdicts and %d %s notes of %s, want 1 and 1", seen, notes, c.kind, name)
			}
			out, _, _ = runCLI(t, "verify", "--all", "--progress", "never", dir)
			if !strings.Contains(strings.Join(strings.Fields(out), " "), name+": "+c.text) {
				t.Errorf("verify --all does not say %q:\n%s", c.text, out)
			}
			if strings.Contains(out, "lost offsets") {
				t.Errorf("verify counts a loss:\n%s", out)
			}
			// Without --all, the count of intact copies sets it apart.
			out, _, _ = runCLI(t, "verify", "--progress", "never", dir)
			if !strings.Contains(out, c.count) || strings.Contains(out, "lost offsets") {
				t.Errorf("verify does not count the copy as %q:\n%s", c.count, out)
			}
		})
	}
}
