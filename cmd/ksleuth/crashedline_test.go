package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashedCopyLine: a log dir holding .lock and no
// .kafka_cleanshutdown (a broker that crashed, or ran while it was
// copied) gets the same one line in every command's text, near its top,
// and the JSON summaries count it; the clean sample gets none.
func TestCrashedCopyLine(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, sampleDir)
	if err := os.Remove(filepath.Join(dir, ".kafka_cleanshutdown")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const line = "9 partition copies in 1 log dir were not shut down cleanly (crashed, or running when copied)"
	for _, cmd := range [][]string{{"verify"}, {"producers"}, {"dups"}, {"consumers"}, {"replicas"}, {"scan", "--out", t.TempDir()}} {
		args := append(append([]string{}, cmd...), "--progress", "never", dir)
		out, errOut, _ := runCLI(t, args...)
		head := strings.Join(strings.SplitN(out, "\n", 5)[:min(4, strings.Count(out, "\n"))], "\n")
		if !strings.Contains(head, line) {
			t.Errorf("%s: no crashed line near the top (stderr %s):\n%s", cmd[0], errOut, out)
		}
		if clean, _, _ := runCLI(t, append(append([]string{}, cmd[:1]...), "--progress", "never", sampleDir)...); cmd[0] != "scan" &&
			strings.Contains(clean, "not shut down cleanly") {
			t.Errorf("%s: a crashed line on the clean sample:\n%s", cmd[0], clean)
		}
	}
	for _, cmd := range []string{"verify", "dups", "consumers"} {
		out, _, _ := runCLI(t, cmd, "--json", "--progress", "never", dir)
		all := strings.Split(strings.TrimSpace(out), "\n")
		var sum struct {
			Type    string `json:"type"`
			Copies  *int   `json:"crashed_copies"`
			LogDirs *int   `json:"crashed_log_dirs"`
		}
		if err := json.Unmarshal([]byte(all[len(all)-1]), &sum); err != nil || sum.Type != "summary" || sum.Copies == nil || *sum.Copies != 9 ||
			sum.LogDirs == nil || *sum.LogDirs != 1 {
			t.Errorf("%s --json: summary %s (%v)", cmd, all[len(all)-1], err)
		}
	}
}
