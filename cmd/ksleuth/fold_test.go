package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// foldSample is a copy of the sample with three damages: the active
// segment of codecs-0 cut at 400 bytes, the rolled first segments of
// idempotent-0 and compacted-0 cut at 1,500 and 300 bytes. Each leaves
// index entries, snapshots and checkpoints past the cut, which follow
// from it.
func foldSample(t *testing.T) string {
	t.Helper()
	dir := copyDir(t, filepath.Join("..", "..", "testdata", "logdirs", "generated"))
	for seg, size := range map[string]int64{
		"codecs-0/00000000000000000068.log":     400,
		"idempotent-0/00000000000000000000.log": 1500,
		"compacted-0/00000000000000000000.log":  300,
	} {
		if err := os.Truncate(filepath.Join(dir, seg), size); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestVerifyFoldsFollowers: verify lists the three cuts as findings, each
// with one line counting what follows from it, and says in its summary
// line how many findings follow from them; --all lists each follower under
// its cause; the JSON lines keep every finding, each follower naming its
// cause in caused_by, and count them all.
func TestVerifyFoldsFollowers(t *testing.T) {
	t.Parallel()
	dir := foldSample(t)
	out, _, code := runCLI(t, "verify", dir)
	if code != exitFindings {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var findings, followers []string
	in := false
	out = unwrap(out)
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == "findings:":
			in = true
		case in && strings.HasPrefix(l, "    "):
			followers = append(followers, l)
		case in && strings.HasPrefix(l, "  "):
			findings = append(findings, l)
		default:
			in = false
		}
	}
	if len(findings) != 3 || len(followers) != 3 {
		t.Fatalf("%d findings and %d follower lines, want 3 and 3:\n%s", len(findings), len(followers), out)
	}
	for i, seg := range []string{"codecs-0/00000000000000000068.log", "compacted-0/00000000000000000000.log", "idempotent-0/00000000000000000000.log"} {
		if w := "  " + filepath.Join(dir, seg) + ": error truncated-batch at byte "; !strings.HasPrefix(findings[i], w) {
			t.Errorf("finding %d: %q, want it to start with %q", i, findings[i], w)
		}
	}
	for i, w := range []string{
		"    +2 checkpoint-ahead, +2 index-mismatch, +1 snapshot-ahead, +4 snapshot-mismatch that follow from it (--all lists them)",
		"    +1 index-mismatch, +4 snapshot-mismatch that follow from it (--all lists them)",
		"    +6 index-mismatch, +9 snapshot-mismatch that follow from it (--all lists them)",
	} {
		if followers[i] != w {
			t.Errorf("followers of finding %d:\n%s\nwant\n%s", i, followers[i], w)
		}
	}
	summary := "32 findings"
	want := ": 3 findings (3 truncated-batch) and 29 that follow from them (2 checkpoint-ahead, 9 index-mismatch, 1 snapshot-ahead, 17 snapshot-mismatch), 0 notes;"
	if !strings.Contains(out, want) || strings.Contains(out, summary) {
		t.Errorf("summary line lacks %q:\n%s", want, out)
	}
	all, _, _ := runCLI(t, "verify", "--all", dir)
	all = unwrap(all)
	listed := 0
	for _, l := range strings.Split(all, "\n") {
		if strings.HasPrefix(l, "    + "+dir) {
			listed++
		}
	}
	if listed != 29 || !strings.Contains(all, "\n    + "+filepath.Join(dir, "idempotent-0", "00000000000000000000.index")+": error index-mismatch at byte 8 (offset 53): ") {
		t.Errorf("--all lists %d followers, want 29:\n%s", listed, all)
	}
	js, _, _ := runCLI(t, "verify", "--json", dir)
	caused, total := 0, int64(0)
	for _, l := range strings.Split(strings.TrimSpace(js), "\n") {
		var r struct {
			Type     string  `json:"type"`
			CausedBy *string `json:"caused_by"`
			Findings int64   `json:"findings"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Type == "finding" && r.CausedBy != nil:
			caused++
		case r.Type == "summary":
			total = r.Findings
		}
	}
	if caused != 29 || total != 32 {
		t.Errorf("JSON: %d findings with caused_by (want 29), %d findings in all (want 32)", caused, total)
	}
}
