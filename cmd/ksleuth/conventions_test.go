package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestReportRefusesOverwrite: report --html, like scan --out, replaces an
// existing file only with --force.
func TestReportRefusesOverwrite(t *testing.T) {
	t.Parallel()
	page := filepath.Join(t.TempDir(), "r.html")
	os.WriteFile(page, []byte("an earlier report"), 0o644)
	if _, _, code := runCLI(t, "report", sampleDir, "--html", page); code != exitUsage {
		t.Errorf("existing --html without --force: exit %d, want 2", code)
	}
	if data, _ := os.ReadFile(page); string(data) != "an earlier report" {
		t.Errorf("the existing file was touched")
	}
	if _, errOut, code := runCLI(t, "report", sampleDir, "--html", page, "--force"); code != exitOK {
		t.Errorf("--force: exit %d: %s", code, errOut)
	}
}

// TestJobsClamped: a huge --jobs is clamped to a few workers a core.
func TestJobsClamped(t *testing.T) {
	t.Parallel()
	if n := clampJobs(1000000); n != 4*runtime.NumCPU() {
		t.Errorf("clampJobs(1000000) = %d", n)
	}
	if n := clampJobs(0); n != runtime.NumCPU() {
		t.Errorf("clampJobs(0) = %d", n)
	}
	if _, errOut, code := runCLI(t, "dups", sampleDir, "--jobs", "1000000"); code != exitOK {
		t.Errorf("dups --jobs 1000000: exit %d: %s", code, errOut)
	}
}
