package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// countsSample is the sample as broker 1's log dir kafka-logs-1 (a name
// that parses as topic "kafka-logs", partition 1), with a checkpoint
// ahead of codecs-0's data and codecs-1's .log files gone: two findings
// about a partition that sit outside the partition's own files.
func countsSample(t *testing.T) string {
	t.Helper()
	logDir := filepath.Join(t.TempDir(), "kafka-logs-1")
	if err := os.Rename(copyDir(t, sampleDir), logDir); err != nil {
		t.Fatal(err)
	}
	hw := filepath.Join(logDir, "replication-offset-checkpoint")
	data, err := os.ReadFile(hw)
	if err != nil {
		t.Fatal(err)
	}
	bumped := strings.Replace(string(data), "codecs 0 85\n", "codecs 0 1000\n", 1)
	if bumped == string(data) {
		t.Fatal("the sample changed: no high watermark 85 for codecs-0")
	}
	if err := os.WriteFile(hw, []byte(bumped), 0o644); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(logDir, "codecs-1", "*.log"))
	for _, l := range logs {
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Dir(logDir)
}

// TestReportCountsAgree: the report page's data sees the sample's
// partitions and topics, the log dir named like a partition dir not among
// them, and a topic's finding count is every row of anomalies.parquet
// about it. The engine's counts are tested in analysis/pipeline.
func TestReportCountsAgree(t *testing.T) {
	t.Parallel()
	root := countsSample(t)
	out := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := runCLI(t, "scan", "--out", out, root); code != exitOK {
		t.Fatalf("scan: exit %d: %s", code, errOut)
	}
	byTopic := map[string]int64{}
	for _, a := range readTable[analysis.AnomalyRow](t, filepath.Join(out, tableAnomalies)) {
		if a.Topic != nil {
			byTopic[*a.Topic]++
		}
	}
	html := filepath.Join(t.TempDir(), "r.html")
	rout, errOut, code := runCLI(t, "report", "--json", "--html", html, root)
	if code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	var m struct {
		Partitions  int `json:"partitions"`
		Topics      int `json:"topics"`
		TopicTotals []struct {
			Topic    string `json:"topic"`
			Findings int64  `json:"findings"`
		} `json:"topic_totals"`
	}
	if err := json.Unmarshal([]byte(rout), &m); err != nil {
		t.Fatal(err)
	}
	if m.Partitions != 9 || m.Topics != 7 {
		t.Errorf("report: %d partitions in %d topics, want 9 in 7", m.Partitions, m.Topics)
	}
	for _, tt := range m.TopicTotals {
		if tt.Findings != byTopic[tt.Topic] {
			t.Errorf("report: topic %s has %d findings; anomalies.parquet has %d rows about it", tt.Topic, tt.Findings, byTopic[tt.Topic])
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestReportFindingsAsVerify: every summary says findings (errors and
// warnings) and notes apart, with verify's counts.
func TestReportFindingsAsVerify(t *testing.T) {
	t.Parallel()
	root := countsSample(t)
	vout, _, _ := runCLI(t, "verify", "--json", root)
	var v struct {
		Findings int64 `json:"findings"`
		Notes    int64 `json:"notes"`
	}
	if err := json.Unmarshal([]byte(lastLine(vout)), &v); err != nil {
		t.Fatal(err)
	}
	if v.Findings == 0 || v.Notes == 0 {
		t.Fatalf("the sample should have findings and notes: %+v", v)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	rout, _, _ := runCLI(t, "report", "--html", html, root)
	notes := fmt.Sprintf("%d notes", v.Notes)
	if v.Notes == 1 {
		notes = "1 note"
	}
	if want := fmt.Sprintf(", %d findings, %s\n", v.Findings, notes); !strings.HasSuffix(rout, want) {
		t.Errorf("report says %q; verify counts %q", rout, want)
	}
	sout, _, _ := runCLI(t, "scan", "--out", filepath.Join(t.TempDir(), "out"), root)
	if want := "; " + notes + "\n"; !strings.Contains(sout, want) {
		t.Errorf("scan summary lacks %q:\n%s", want, sout)
	}
}

// TestReplicasSingleInputSaysFindings: with nothing to compare, replicas
// still says what --fail-on-findings exits 3 on, and that it decoded no
// records.
func TestReplicasSingleInputSaysFindings(t *testing.T) {
	t.Parallel()
	dir, _, _ := tornSample(t)
	vout, _, _ := runCLI(t, "verify", "--json", dir)
	var v struct {
		Findings int64 `json:"findings"`
	}
	if err := json.Unmarshal([]byte(lastLine(vout)), &v); err != nil || v.Findings == 0 {
		t.Fatalf("verify: %+v, %v", v, err)
	}
	out, _, code := runCLI(t, "replicas", "--fail-on-findings", dir)
	if code != exitFindings {
		t.Errorf("exit %d, want 3", code)
	}
	held := fmt.Sprintf("note: the inputs hold %d findings of severity error or warning, and 1 partition copy lost offsets", v.Findings)
	for _, w := range []string{"nothing to compare", held, "batches not decoded: ksleuth verify decodes them"} {
		if !strings.Contains(out, w) {
			t.Errorf("replicas output lacks %q:\n%s", w, out)
		}
	}
}

var notListed = regexp.MustCompile(`^(\d+) more (\S+ )?findings in this file (are )?not listed`)

// TestCountsPastTheCap: a segment with more findings than the per-file
// listing cap (lowered to 10 here: a real file needs 10,000) has its
// first findings listed and one findings-omitted row for the rest. Every
// count shown still counts each finding: here the report's topic totals
// (the engine's counts are tested in analysis/pipeline). Not parallel:
// the cap is the scan package's.
func TestCountsPastTheCap(t *testing.T) {
	defer func(n int) { scan.MaxFileAnomalies = n }(scan.MaxFileAnomalies)
	scan.MaxFileAnomalies = 10
	root := t.TempDir()
	part := filepath.Join(root, "logs", "bad-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := segtest.BrokenEveryOther(60) // 60 findings
	log := filepath.Join(part, segtest.SegmentFileName(0))
	if err := os.WriteFile(log, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := runCLI(t, "scan", "--out", out, filepath.Join(root, "logs")); code != exitOK {
		t.Fatalf("scan: exit %d: %s", code, errOut)
	}
	// What the rows say: each listed row is one finding, a row saying how
	// many more were not listed (the reader's past its cap, and the
	// checks' own past theirs) as many as it names.
	var listed, omitted int64
	for _, a := range readTable[analysis.AnomalyRow](t, filepath.Join(out, tableAnomalies)) {
		m := notListed.FindStringSubmatch(a.Message)
		switch {
		case a.Kind == finding.KindFindingsOmitted && (m == nil || m[1] != "50"):
			t.Errorf("the omitted row: %q", a.Message)
		case m != nil:
			n, _ := strconv.ParseInt(m[1], 10, 64)
			omitted += n
		case a.Topic != nil:
			listed++
		}
	}
	if omitted < 50 || listed < 10 {
		t.Fatalf("anomalies.parquet lists %d findings and omits %d; want the cap's 10 (and the checks') and 50 or more", listed, omitted)
	}
	want := listed + omitted
	html := filepath.Join(t.TempDir(), "r.html")
	rout, errOut, _ := runCLI(t, "report", "--json", "--html", html, filepath.Join(root, "logs"))
	var m struct {
		TopicTotals []struct {
			Topic    string `json:"topic"`
			Findings int64  `json:"findings"`
		} `json:"topic_totals"`
	}
	if err := json.Unmarshal([]byte(rout), &m); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if len(m.TopicTotals) != 1 || m.TopicTotals[0].Findings != want {
		t.Errorf("report topic totals %+v, want bad with %d findings", m.TopicTotals, want)
	}
}

// TestCountsFromTablesPastTheCap: dups --from-tables counts the findings
// of severity error or warning from anomalies.parquet alone. A row that
// says how many findings were not listed counts as that many (its omitted
// column), so the count is the one dups gives over the same input read
// whole. Not parallel: the cap is the scan package's.
func TestCountsFromTablesPastTheCap(t *testing.T) {
	defer func(n int) { scan.MaxFileAnomalies = n }(scan.MaxFileAnomalies)
	scan.MaxFileAnomalies = 10
	root := t.TempDir()
	part := filepath.Join(root, "logs", "bad-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := segtest.BrokenEveryOther(60) // 60 findings
	if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(root, "logs")
	_, wantSum := groupLines(t, runOK(t, "dups", "--json", "--progress", "never", logs))
	out := filepath.Join(t.TempDir(), "out")
	runCLI(t, "scan", "--records", "--progress", "never", "--out", out, logs)
	_, gotSum := groupLines(t, runOK(t, "dups", "--json", "--from-tables", "--tmp", t.TempDir(), out))
	if wantSum.Findings < 60 || gotSum.Findings != wantSum.Findings {
		t.Errorf("dups --from-tables counts %d findings, dups over the input %d (want 60 or more)", gotSum.Findings, wantSum.Findings)
	}
}
