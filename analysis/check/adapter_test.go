package check_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Finding is a finding as the tests compare it: positions and offsets
// -1 when none applies.
type Finding struct {
	Kind             finding.Kind
	Severity         finding.Severity
	File             string
	Position, Offset int64
	ProducerID       int64
	Line             int
	Message          string
}

func (f Finding) Counts() bool { return finding.Counts(f.Severity) }

func (f Finding) String() string {
	s := string(f.Severity) + " " + string(f.Kind)
	if f.Position >= 0 {
		s += fmt.Sprintf(" at byte %d", f.Position)
	}
	if f.Offset >= 0 {
		s += fmt.Sprintf(" (offset %d)", f.Offset)
	}
	return s + ": " + f.Message
}

// Stats count what one run read.
type Stats struct{ Files, Segments, Batches, Records int64 }

// Report is one run of the engine seen by the tests.
type Report struct {
	Findings []Finding
	Stats    Stats
	Gaps     []analysis.GapRow
	Verdicts []check.Verdict
	Result   *pipeline.Result
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// runPaths runs the whole engine, as verify does, over paths.
func runPaths(t testing.TB, paths ...string) *Report {
	t.Helper()
	return runPathsWith(t, check.Options{}, paths...)
}

// runPathsWith is runPaths with the checker's options o.
func runPathsWith(t testing.TB, o check.Options, paths ...string) *Report {
	t.Helper()
	inputs, err := source.Classify(paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(context.Background(), inputs, pipeline.Options{
		Scan: scan.Config{Jobs: 2, Records: true, Compact: true}, Attribution: true, Check: o}, pipeline.Sinks{})
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Gaps: res.Check.Gaps, Verdicts: res.Check.Partitions, Result: res}
	for _, a := range res.Scan.Anomalies {
		pid := int64(-1)
		if a.ProducerID != nil {
			pid = *a.ProducerID
		}
		line := 0
		if a.Line != nil {
			line = int(*a.Line)
		}
		rep.Findings = append(rep.Findings, Finding{Kind: a.Kind, Severity: a.Severity, File: a.File, Position: deref(a.Position),
			Offset: deref(a.Offset), ProducerID: pid, Line: line, Message: a.Message})
	}
	rep.Stats = Stats{Files: int64(len(res.Scan.Files)), Batches: res.Scan.Batches, Records: res.Scan.Records}
	for _, p := range res.Scan.Partitions {
		rep.Stats.Segments += int64(p.Segments)
	}
	return rep
}

// writeFS writes the files of mfs under a new temporary dir (only those
// below prefix, when it is not "") and returns the dir.
func writeFS(t testing.TB, mfs fstest.MapFS, prefix string) string {
	t.Helper()
	root := t.TempDir()
	for name, f := range mfs {
		if prefix != "" && !strings.HasPrefix(name, prefix+"/") {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// verifyFS runs the engine over a log dir held in memory.
func verifyFS(t testing.TB, mfs fstest.MapFS) *Report {
	t.Helper()
	return runPaths(t, writeFS(t, mfs, ""))
}

// verifyFSWith is verifyFS with the topics' retention settings rs.
func verifyFSWith(t testing.TB, mfs fstest.MapFS, rs map[string]check.Retention) *Report {
	t.Helper()
	return runPathsWith(t, check.Options{TopicRetention: rs}, writeFS(t, mfs, ""))
}

// verifyPartitionFS runs the engine over one partition dir of mfs (its
// log dir's other partitions and root files left out).
func verifyPartitionFS(t testing.TB, mfs fstest.MapFS, part string) *Report {
	t.Helper()
	return runPaths(t, writeFS(t, mfs, part))
}

// counting returns the findings that count for the exit code.
func counting(r *Report) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Counts() {
			out = append(out, f)
		}
	}
	return out
}
