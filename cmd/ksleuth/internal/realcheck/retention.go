package realcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/segment"
)

// The retention-time scenario's copies (issue #42): real retention by
// time is retention; the oldest segment removed from the clean copy is a
// loss of its offsets; the active segment cut below its offset index's
// last entry is a loss after a clean stop, and a broker started on that
// copy comes up with the segment's base offset as its log end, which
// verify --recovery must predict (checkRestarts compares it).

// keptDir is the partition the retention-time cases alter.
const keptDir = "kept-0"

// removeOldest deletes the first segment of kept-0 and its index files.
func removeOldest(t *testing.T, data string) {
	seg := firstLog(t, filepath.Join(data, keptDir))
	for _, ext := range []string{".log", ".index", ".timeindex"} {
		if err := os.Remove(strings.TrimSuffix(seg, ".log") + ext); err != nil && ext == ".log" {
			t.Fatal(err)
		}
	}
}

// cutActive cuts kept-0's active segment ten bytes below the byte its
// offset index's last entry names: inside the batch before it.
func cutActive(t *testing.T, data string) {
	logs, _ := filepath.Glob(filepath.Join(data, keptDir, "*.log"))
	if len(logs) == 0 {
		t.Fatalf("no segment in %s", keptDir)
	}
	slices.Sort(logs)
	seg := logs[len(logs)-1]
	idx := strings.TrimSuffix(seg, ".log") + ".index"
	raw, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := segment.ParseOffsetIndex(idx, raw, -1)
	if x == nil || len(x.Entries) == 0 {
		t.Fatalf("%s has no entry to cut below", idx)
	}
	pos := int64(x.Entries[len(x.Entries)-1].Position)
	if err := os.Truncate(seg, pos-10); err != nil {
		t.Fatal(err)
	}
	t.Logf("cut %s to %d bytes, below the index's last entry at byte %d", filepath.Base(seg), pos-10, pos)
}

// gapsOfDir runs verify --json on data and returns the ledger rows of
// partition dir.
func gapsOfDir(t *testing.T, data, dir string) []map[string]any {
	out, errs, code := scanCmd(t, "verify", "--json", "--progress", "never", data)
	if code != exitOK && code != exitFindings {
		t.Fatalf("verify: exit %d\n%s", code, errs)
	}
	var gaps []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] == "gap" && m["dir"] == dir {
			gaps = append(gaps, m)
		}
	}
	return gaps
}

// wantGap fails unless gaps hold one of cause and severity.
func wantGap(t *testing.T, gaps []map[string]any, cause, sev string) {
	t.Helper()
	for _, g := range gaps {
		if g["cause"] == cause && g["severity"] == sev {
			t.Logf("%s %s: %v", sev, cause, g["explanation"])
			return
		}
	}
	t.Errorf("no %s %s gap in %v", sev, cause, gaps)
}

// retentionVerdicts checks the unaltered copy: aged-0's offsets below its
// log start are retention, a note.
func retentionVerdicts(t *testing.T, data string) {
	wantGap(t, gapsOfDir(t, data, "aged-0"), check.CauseRetention, "note")
}

func oldestRemovedVerdicts(t *testing.T, data string) {
	wantGap(t, gapsOfDir(t, data, keptDir), check.CauseMissingSegment, "error")
}

func cleanCutVerdicts(t *testing.T, data string) {
	gaps := gapsOfDir(t, data, keptDir)
	wantGap(t, gaps, check.CauseCleanStart, "error")
	wantGap(t, gaps, check.CauseTruncated, "error")
}
