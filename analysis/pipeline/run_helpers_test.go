package pipeline_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// sampleDir is the generated log dir every command's goldens read.
const sampleDir = "../../testdata/logdirs/generated"

// runPlan runs the pipeline over paths as a command's Plan asks, and
// sums it up as every output would.
func runPlan(t *testing.T, plan pipeline.Plan, paths ...string) (*pipeline.Result, *pipeline.Summary) {
	t.Helper()
	inputs, err := source.Classify(paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(context.Background(), inputs, plan.Options(), pipeline.Sinks{})
	if err != nil {
		t.Fatalf("run %v: %v", paths, err)
	}
	return res, res.Summarize()
}

// newDetector is the duplicate detector with the defaults of the dup
// flags: records matched by key, value and headers, within a topic.
func newDetector(t *testing.T) (*dups.Detector, *dups.Hasher) {
	t.Helper()
	return newDetectorWith(t, func(*dups.Options) {})
}

// newDetectorWith is newDetector with options a test turns, as a flag
// would (--same-pid, --scope).
func newDetectorWith(t *testing.T, turn func(*dups.Options)) (*dups.Detector, *dups.Hasher) {
	t.Helper()
	match, err := dups.ParseMatch("key,value,headers")
	if err != nil {
		t.Fatal(err)
	}
	opts := dups.Options{Scope: dups.ScopeTopic, RestartWindow: dups.DefaultRestartWindow, TmpDir: t.TempDir(),
		ResendHead: dups.Threshold(dups.DefaultResendHead), ResendTail: dups.Threshold(dups.DefaultResendTail),
		ResendMinRun: dups.DefaultResendMinRun, ResendInFlight: cmp.Or(dups.DefaultResendInFlight, -1)}
	turn(&opts)
	det, err := dups.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { det.Close() })
	return det, dups.NewHasher(match, nil)
}

// runDups runs the Plan with a default detector over paths and returns
// every member of every duplicate group, annotated as the outputs get
// them.
func runDups(t *testing.T, plan pipeline.Plan, paths ...string) (*pipeline.Result, []analysis.DuplicateRow) {
	t.Helper()
	plan.Detector, plan.Hasher = newDetector(t)
	res, _ := runPlan(t, plan, paths...)
	var rows []analysis.DuplicateRow
	emit := res.AnnotateDuplicates(func(g []analysis.DuplicateRow) error {
		rows = append(rows, g...)
		return nil
	})
	if _, err := plan.Detector.Finish(context.Background(), emit); err != nil {
		t.Fatal(err)
	}
	return res, rows
}

// copyDir copies a directory tree (the sample) to a new temporary dir.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// writeSegments writes each list of batches as one segment named by its
// first base offset.
func writeSegments(t *testing.T, dir string, segs [][]segtest.Batch) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bs := range segs {
		var b []byte
		for _, x := range bs {
			b = append(b, x.Encode()...)
		}
		if err := os.WriteFile(filepath.Join(dir, segtest.SegmentFileName(bs[0].BaseOffset)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
