package realcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

// verifyLines runs verify --json on paths and returns its lines by type.
func verifyLines(t *testing.T, paths ...string) map[string][]map[string]any {
	args := append([]string{"verify", "--json", "--progress", "never"}, paths...)
	out, errs, code := clitest.Run(t, args...)
	if code != clitest.ExitOK && code != clitest.ExitFindings {
		t.Fatalf("verify: exit %d\n%s\n%s", code, errs, out)
	}
	by := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		by[fmt.Sprint(m["type"])] = append(by[fmt.Sprint(m["type"])], m)
	}
	return by
}

// checkTieredRemoteRoot: the remote root given beside the log dir is
// read, and on clean tiering verify finds nothing: the offsets below the
// local start stay remote-only, and scan's remote_segments say every
// segment's files are there at the size the metadata gives.
func checkTieredRemoteRoot(t *testing.T, data, root string, local int64) {
	by := verifyLines(t, data, root)
	for _, f := range by["finding"] {
		if f["severity"] != "note" {
			t.Errorf("finding on clean tiering with the remote root: %v", f)
		}
	}
	var gaps []map[string]any
	for _, g := range by["gap"] {
		if g["dir"] == "tiered-0" {
			gaps = append(gaps, g)
		}
	}
	if len(gaps) != 1 || gaps[0]["cause"] != "remote-only" || gaps[0]["first_offset"] != 0.0 || gaps[0]["last_offset"] != float64(local-1) {
		t.Errorf("tiered-0 gaps %v, want one remote-only range 0..%d", gaps, local-1)
	}
	out := filepath.Join(t.TempDir(), "out")
	clitest.MustRun(t, "scan", data, root, "--out", out, "--progress", "never")
	rows := clitest.ReadTable[analysis.RemoteSegmentRow](t, filepath.Join(out, "remote_segments.parquet"))
	for _, r := range rows {
		if r.FilesPresent == nil || !strings.HasPrefix(*r.FilesPresent, "log,index,timeindex") || r.SizeMatch == nil || !*r.SizeMatch {
			t.Errorf("segment %s: files_present %v, size_match %v; want its files, the size matching", r.SegmentID, r.FilesPresent, r.SizeMatch)
		}
	}
}

// checkTieredRemoteDeleted: a copy of the remote root without one remote
// segment's .log (deleted by hand after tiering): that segment is
// remote-segment-missing, its offsets and only them are lost, and the
// rest stays remote-only.
func checkTieredRemoteDeleted(t *testing.T, data, root string, local int64) {
	cp := filepath.Join(t.TempDir(), "remote")
	logs := copyRemote(t, root, cp)
	if len(logs) < 3 {
		t.Fatalf("%d remote segments, want 3 or more", len(logs))
	}
	gone := logs[1]
	var first, next int64
	if _, err := fmt.Sscanf(filepath.Base(gone), "%020d-", &first); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscanf(filepath.Base(logs[2]), "%020d-", &next); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	by := verifyLines(t, data, cp)
	missing := 0
	for _, f := range by["finding"] {
		if f["kind"] == "remote-segment-missing" && f["offset"] == float64(first) {
			missing++
		}
	}
	if missing != 1 {
		t.Errorf("%d remote-segment-missing findings at offset %d, want 1: %v", missing, first, by["finding"])
	}
	lost := 0.0
	for _, g := range by["gap"] {
		if g["dir"] != "tiered-0" || g["cause"] == "remote-only" {
			continue
		}
		if g["first_offset"] != float64(first) || g["last_offset"] != float64(next-1) {
			t.Errorf("gap %v, want the missing segment's offsets %d..%d", g, first, next-1)
		}
		lost += g["last_offset"].(float64) - g["first_offset"].(float64) + 1
	}
	if lost != float64(next-first) {
		t.Errorf("%v offsets lost, want %d", lost, next-first)
	}
}

// copyRemote copies the remote root's partition dirs to dst (the input
// is never modified) and returns the copied .log files, sorted.
func copyRemote(t *testing.T, root, dst string) []string {
	files, _ := filepath.Glob(filepath.Join(root, "*", "*"))
	var logs []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		to := filepath.Join(dst, rel)
		raw, err := os.ReadFile(f)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(to), 0o755)
		}
		if err == nil {
			err = os.WriteFile(to, raw, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(to, ".log") {
			logs = append(logs, to)
		}
	}
	return logs
}
