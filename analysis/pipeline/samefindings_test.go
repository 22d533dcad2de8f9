package pipeline_test

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// opt prints an optional number as the JSON lines do ("<nil>" for null).
func opt(p *int64) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}

// findingKeys are the findings and ledger ranges of a run, each as one
// sortable line, with file paths relative to the log dir named base.
func findingKeys(res *pipeline.Result, base string) []string {
	var keys []string
	for _, a := range res.Scan.Anomalies {
		file := strings.TrimPrefix(a.File, base+"/")
		keys = append(keys, fmt.Sprint("finding", a.Kind, "", a.Severity, file, opt(a.Position), opt(a.Offset)))
	}
	for _, g := range res.Check.Gaps {
		file := strings.TrimPrefix(g.File, base+"/")
		keys = append(keys, fmt.Sprint("gap", "", g.Cause, g.Severity, file, opt(g.Position), g.FirstOffset, opt(g.LastOffset)))
	}
	sort.Strings(keys)
	return keys
}

// TestVerifyArchive: verify reads a .tar.zst of a log dir and reports
// what it reports on the dir: the same findings and lost ranges, at the
// same files and bytes. Truth: the sample whose first segment of codecs-0
// lost its last 37 bytes (offsets 63..67).
func TestVerifyArchive(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, sampleDir)
	seg := filepath.Join(dir, "codecs-0", "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seg, data[:len(data)-37], 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(dir), p)
		data, _ := os.ReadFile(p)
		tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
		return nil
	})
	tw.Close()
	zw.Close()
	arc := filepath.Join(t.TempDir(), "broker.tar.zst")
	os.WriteFile(arc, buf.Bytes(), 0o644)
	run := func(in string) []string {
		res, _ := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, in)
		if !res.Failed() {
			t.Errorf("%s: the run does not fail on a torn segment", in)
		}
		return findingKeys(res, filepath.Base(dir))
	}
	want, got := run(dir), run(arc)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("archive:\n%v\ndir:\n%v", got, want)
	}
}

// TestScanAnomaliesEqualVerify: on every source of the real corpus, the
// scan's findings (its anomalies table) are exactly verify's.
func TestScanAnomaliesEqualVerify(t *testing.T) {
	t.Parallel()
	ents, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Skipf("real corpus not available: %v", err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			in := filepath.Join(corpusDir, e.Name())
			vres, _ := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, in)
			var fromVerify, fromScan []string
			for _, a := range vres.Scan.Anomalies {
				fromVerify = append(fromVerify, anomalyKey(&a))
			}
			sres, _ := runDups(t, pipeline.Plan{Command: pipeline.Scan}, in)
			for _, a := range sres.Scan.Anomalies {
				fromScan = append(fromScan, anomalyKey(&a))
				if _, ok := finding.Lookup(a.Kind); !ok {
					t.Errorf("kind %s is not in the vocabulary (analysis/finding)", a.Kind)
				}
			}
			sort.Strings(fromVerify)
			sort.Strings(fromScan)
			if !slices.Equal(fromScan, fromVerify) {
				t.Errorf("scan's findings (%d) differ from verify's (%d):\nscan   %v\nverify %v", len(fromScan), len(fromVerify), fromScan, fromVerify)
			}
		})
	}
}

func anomalyKey(a *analysis.AnomalyRow) string {
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s", a.Kind, a.Severity, a.File, opt(a.Position), opt(a.Offset), a.Message)
}
