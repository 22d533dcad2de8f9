package scan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestFindingsPastTheCapCounted: a segment of 60 batches, every other
// one with a broken CRC (a crc-mismatch and a bad-record finding each),
// with the list capped at 10 findings a file: 10 are listed, one row
// says what was left out, and every count (the kinds, the errors, the
// file's findings) is exact.
func TestFindingsPastTheCapCounted(t *testing.T) {
	defer func(n int) { MaxFileAnomalies = n }(MaxFileAnomalies)
	MaxFileAnomalies = 10
	dir := filepath.Join(t.TempDir(), "logs")
	part := filepath.Join(dir, "bad-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := segtest.BrokenEveryOther(60) // 60 findings
	if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	inputs, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), inputs, Config{Jobs: 1}, Output{})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, f := range res.Findings {
		counts[string(f.Severity)+" "+string(f.Kind)] = f.Count
	}
	if len(counts) != 2 || counts["error crc-mismatch"] != 30 || counts["error bad-record"] != 30 || res.Errors != 60 {
		t.Errorf("counts %v, %d errors", counts, res.Errors)
	}
	if len(res.Anomalies) != 11 {
		t.Fatalf("%d rows listed, want the 10 first and one for the rest", len(res.Anomalies))
	}
	last := res.Anomalies[10]
	if last.Kind != KindFindingsOmitted || last.Severity != "error" || last.Position == nil ||
		!strings.HasPrefix(last.Message, "50 more error findings in this file are not listed (25 bad-record, 25 crc-mismatch), at bytes ") {
		t.Errorf("the row for the rest: %+v %q", last, last.Message)
	}
	for _, a := range res.Anomalies[:10] {
		if a.Kind == KindFindingsOmitted {
			t.Errorf("listed: %+v", a)
		}
	}
	var file int64 = -1
	for _, f := range res.Files {
		if strings.HasSuffix(f.Path, ".log") {
			file = f.Findings
			if f.Status != statusDamaged {
				t.Errorf("status %s", f.Status)
			}
		}
	}
	if file != 60 {
		t.Errorf("the file row counts %d findings, want 60", file)
	}
}
