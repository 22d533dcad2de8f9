package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
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

// TestProducersFindingLines: producers --json writes its findings as
// "finding" lines with the columns of anomalies.parquet, as verify does.
func TestProducersFindingLines(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join(sampleDir, "codecs-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	src[200] ^= 0xff // inside the first batch: a CRC mismatch
	dir := filepath.Join(t.TempDir(), "codecs-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "producers", "--json", filepath.Dir(dir))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cols := parquetColumns(reflect.TypeOf(analysis.AnomalyRow{}), map[string]bool{"type": true})
	findings := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		switch m["type"] {
		case "session":
		case "finding":
			findings++
			if len(m) != len(cols) {
				t.Errorf("finding has %d keys, anomalies.parquet %d columns: %s", len(m), len(cols)-1, l)
			}
			for k := range m {
				if !cols[k] {
					t.Errorf("finding key %q is no anomalies column", k)
				}
			}
			if m["kind"] != "crc-mismatch" || m["source"] == "" {
				t.Errorf("finding %s", l)
			}
		default:
			t.Errorf("line of type %v: %s", m["type"], l)
		}
	}
	if findings == 0 {
		t.Errorf("no finding line:\n%s", out)
	}
}

// TestFailOnFindingsHelp: --fail-on-findings has one help text, and it
// says what counts.
func TestFailOnFindingsHelp(t *testing.T) {
	t.Parallel()
	root := newRootCmd(defaultSettings())
	n := 0
	for _, c := range root.Commands() {
		f := c.Flags().Lookup("fail-on-findings")
		if f == nil {
			if c.Name() != "version" && c.Name() != "help" && c.Name() != "completion" {
				t.Errorf("%s has no --fail-on-findings", c.Name())
			}
			continue
		}
		n++
		if f.Usage != failOnFindingsHelp {
			t.Errorf("%s --fail-on-findings: %q", c.Name(), f.Usage)
		}
		// verify always exits 3 on findings: there the flag is accepted
		// but not listed.
		if f.Hidden != (c.Name() == "verify") {
			t.Errorf("%s --fail-on-findings hidden: %t", c.Name(), f.Hidden)
		}
	}
	if n < 6 || !strings.Contains(failOnFindingsHelp, "error") || !strings.Contains(failOnFindingsHelp, "notes never fail") {
		t.Errorf("%d commands; help %q", n, failOnFindingsHelp)
	}
}

// TestDumpNotesNeverFail: a note (a zeroed tail) is printed but does not
// fail dump --fail-on-findings; an error does.
func TestDumpNotesNeverFail(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join(sampleDir, "codecs-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, append(src, make([]byte, 100)...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "dump", "--fail-on-findings", path)
	if code != exitOK || !strings.Contains(errOut, ": note zero-tail at byte ") {
		t.Errorf("zero tail: exit %d, stderr %q", code, errOut)
	}
	src[200] ^= 0xff
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runCLI(t, "dump", "--fail-on-findings", path); code != exitFindings {
		t.Errorf("crc mismatch: exit %d, want 3", code)
	}
}

// TestBuildVersion: a build from a checkout reads devel+REV whatever go
// stamped as the module version; a tag is the version.
func TestBuildVersion(t *testing.T) {
	t.Parallel()
	const rev = "d571fc6887b489c2d87fe0589acc1b5bdb94b5af"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	cases := []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v0.0.0-20261202051847-d571fc6887b4", vcs("false"), "devel+d571fc6887b4"},
		{"v0.0.0-20261202051847-d571fc6887b4+dirty", vcs("true"), "devel+d571fc6887b4-dirty"},
		{"v1.2.4-0.20261202051847-d571fc6887b4", vcs("false"), "devel+d571fc6887b4"},
		{"(devel)", vcs("true"), "devel+d571fc6887b4-dirty"},
		{"v1.2.3", vcs("false"), "v1.2.3"},
		{"v1.2.3", nil, "v1.2.3"},
		{"(devel)", nil, "devel"},
		{"", nil, "devel"},
	}
	for _, c := range cases {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/ksleuth/ksleuth", Version: c.main}, Settings: c.settings}
		if got := buildVersion(bi); got != c.want {
			t.Errorf("main %q, settings %v: %q, want %q", c.main, c.settings, got, c.want)
		}
	}
}
