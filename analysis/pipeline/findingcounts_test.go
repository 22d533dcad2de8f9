package pipeline_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
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

// TestScanCountsAgree: scan and verify see the same partitions, the log
// dir named like a partition dir among none of them, and a partition's
// finding count is every finding that names it, wherever the finding
// sits.
func TestScanCountsAgree(t *testing.T) {
	t.Parallel()
	root := countsSample(t)
	res, _ := runDups(t, pipeline.Plan{Command: pipeline.Scan}, root)
	sum := res.Summarize()
	_, vsum := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, root)
	if len(sum.Partitions) != 9 || len(vsum.Verdicts) != 9 {
		t.Errorf("scan has %d partitions, verify %d; the sample has 9", len(sum.Partitions), len(vsum.Verdicts))
	}
	for _, f := range res.Scan.Files {
		if f.Topic != nil && *f.Topic == "kafka-logs" {
			t.Errorf("the file rows put the log dir's %s in partition kafka-logs-%d", f.Path, *f.Partition)
		}
	}
	byPart := map[string]int64{}
	kinds := map[string]bool{}
	for _, a := range res.Scan.Anomalies {
		if a.Topic != nil {
			name := fmt.Sprintf("%s-%d", *a.Topic, *a.Partition)
			byPart[name]++
			kinds[name+" "+string(a.Kind)] = true
		}
	}
	for _, w := range []string{"codecs-0 checkpoint-ahead", "codecs-1 missing-segment"} {
		if !kinds[w] {
			t.Fatalf("the sample lacks the finding %s: %v", w, kinds)
		}
	}
	for _, p := range sum.Partitions {
		name := fmt.Sprintf("%s-%d", p.Topic, p.Partition)
		if p.Findings != byPart[name] {
			t.Errorf("scan: %s has %d findings; %d findings name it", name, p.Findings, byPart[name])
		}
	}
}

var notListed = regexp.MustCompile(`^(\d+) more (\S+ )?findings in this file (are )?not listed`)

// TestCountsPastTheCap: a segment with more findings than the per-file
// listing cap (lowered to 10 here: a real file needs 10,000) has its
// first findings listed and one findings-omitted row for the rest. Every
// count still counts each finding: the file row's findings and the
// partition's. Not parallel: the cap is the scan package's.
func TestCountsPastTheCap(t *testing.T) {
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
	res, _ := runDups(t, pipeline.Plan{Command: pipeline.Scan}, filepath.Join(root, "logs"))
	// What the rows say: each listed row is one finding, a row saying how
	// many more were not listed (the reader's past its cap, and the
	// checks' own past theirs) as many as it names.
	var listed, omitted int64
	for _, a := range res.Scan.Anomalies {
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
		t.Fatalf("the run lists %d findings and omits %d; want the cap's 10 (and the checks') and 50 or more", listed, omitted)
	}
	want := listed + omitted
	for _, f := range res.Scan.Files {
		if strings.HasSuffix(f.Path, ".log") && f.Findings != want {
			t.Errorf("file row: %s has %d findings, want %d", f.Path, f.Findings, want)
		}
	}
	if ps := res.Summarize().Partitions; len(ps) != 1 || ps[0].Findings != want {
		t.Errorf("partitions %+v, want bad-0 with %d findings", ps, want)
	}
}

// TestCountsPastTheChecksCap: the checks list at most 20 findings of one
// kind about one file (a wholly wrong index gives one per entry) and say
// how many more in one row; the counts still count each: an .index of 30
// entries that all point past the end of its .log is 30 index-mismatch
// findings in verify's counts and in the scan's file row.
func TestCountsPastTheChecksCap(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, sampleDir)
	var idx []byte
	for i := range 30 {
		idx = binary.BigEndian.AppendUint32(idx, uint32(i+1))
		idx = binary.BigEndian.AppendUint32(idx, uint32(1_000_000+10*i))
	}
	if err := os.WriteFile(filepath.Join(dir, "codecs-0", "00000000000000000000.index"), idx, 0o644); err != nil {
		t.Fatal(err)
	}
	_, vsum := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, dir)
	if n := vsum.CountedByKind[finding.KindIndexMismatch]; n != 30 {
		t.Errorf("verify counts %d index-mismatch findings, want 30", n)
	}
	res, _ := runDups(t, pipeline.Plan{Command: pipeline.Scan}, dir)
	seen := false
	for _, f := range res.Scan.Files {
		if f.Path == "codecs-0/00000000000000000000.index" {
			seen = true
			if f.Findings != 30 {
				t.Errorf("file row: %s has %d findings, want 30", f.Path, f.Findings)
			}
		}
	}
	if !seen {
		t.Errorf("no file row for codecs-0/00000000000000000000.index")
	}
}
