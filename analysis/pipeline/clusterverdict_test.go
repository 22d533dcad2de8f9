package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// threeBrokers builds the cluster of docs/investigating.md §4: three
// copies of the sample log dir, broker 2's active segment of idempotent-0
// cut at 600 bytes, broker 3's removed.
func threeBrokers(t *testing.T) []string {
	t.Helper()
	root := t.TempDir()
	var dirs []string
	for b := 1; b <= 3; b++ {
		dir := filepath.Join(root, "broker-"+string(rune('0'+b)))
		if err := os.CopyFS(dir, os.DirFS("../../testdata/logdirs/generated")); err != nil {
			t.Fatal(err)
		}
		meta := filepath.Join(dir, "meta.properties")
		data, err := os.ReadFile(meta)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), "broker.id=0", "broker.id="+string(rune('0'+b)), 1))
		if err := os.WriteFile(meta, data, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	active := "idempotent-0/00000000000000000070"
	if err := os.Truncate(filepath.Join(dirs[1], active+".log"), 600); err != nil {
		t.Fatal(err)
	}
	gone, err := filepath.Glob(filepath.Join(dirs[2], active+".*"))
	if err != nil || len(gone) == 0 {
		t.Fatalf("broker 3's active segment: %v %v", gone, err)
	}
	for _, f := range gone {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

// TestClusterVerdictThreeBrokers: the copies of idempotent-0 that lost
// their tails are lost copies, not lagging ones, and the partition is
// intact across the cluster, broker 1 holding every offset.
func TestClusterVerdictThreeBrokers(t *testing.T) {
	res := run(t, threeBrokers(t)...)
	cvs := res.ClusterVerdicts()
	seen := map[string]int{}
	for _, v := range res.Check.Partitions {
		seen[fmt.Sprintf("%s-%d", v.Topic, v.Partition)]++
	}
	if len(cvs) != len(seen) || len(cvs) < 9 {
		t.Fatalf("%d cluster verdicts for %d partitions", len(cvs), len(seen))
	}
	// The summary every output prints carries them, each partition of
	// three copies once.
	if sum := res.Summarize(); len(sum.Clusters) != len(cvs) {
		t.Errorf("the summary holds %d cluster verdicts, want %d", len(sum.Clusters), len(cvs))
	}
	var idem *analysis.ClusterVerdict
	for i := range cvs {
		if cvs[i].Topic == "idempotent" && cvs[i].Partition == 0 {
			idem = &cvs[i]
		}
		if len(cvs[i].Copies) != 3 {
			t.Errorf("%s-%d: %d copies, want 3", cvs[i].Topic, cvs[i].Partition, len(cvs[i].Copies))
		}
	}
	if idem == nil {
		t.Fatal("no verdict for idempotent-0")
	}
	t.Logf("idempotent-0: %s", idem.Text)
	if idem.Verdict != analysis.CopyIntact || len(idem.LostRanges) != 0 || idem.Lost != 0 {
		t.Errorf("idempotent-0: %s, lost %v; want intact", idem.Text, idem.LostRanges)
	}
	if b := idem.BestCopy; b == nil || b.Broker == nil || *b.Broker != 1 || !idem.Full {
		t.Errorf("idempotent-0: best copy %+v (full %v), want broker 1 holding every offset", b, idem.Full)
	}
	states := map[int32]analysis.CopyState{}
	lacks := map[int32][]analysis.OffsetRange{}
	for _, c := range idem.Copies {
		states[*c.Broker] = c.State
		lacks[*c.Broker] = c.Lacks
	}
	if len(lacks[1]) != 0 || !slices.Equal(lacks[2], []analysis.OffsetRange{{First: 75, Last: 84}}) ||
		!slices.Equal(lacks[3], []analysis.OffsetRange{{First: 70, Last: 84}}) {
		t.Errorf("what each copy lacks: %v", lacks)
	}
	if states[2] != analysis.CopyLost || states[3] != analysis.CopyLost {
		t.Errorf("copy states %v, want brokers 2 and 3 lost", states)
	}
	for _, r := range res.Replicas.Rows {
		if r.Topic != "idempotent" || r.Partition != 0 || r.Broker == nil || *r.Broker == 1 {
			continue
		}
		if r.Verdict != string(analysis.CopyLost) || strings.Contains(r.Explanation, "fetches") {
			t.Errorf("broker %d: replicas says %s: %s", *r.Broker, r.Verdict, r.Explanation)
		}
	}
}

// run runs the pipeline over the paths.
func run(t *testing.T, paths ...string) *pipeline.Result {
	t.Helper()
	inputs, err := source.Classify(paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(context.Background(), inputs, pipeline.Options{Scan: scan.Config{Jobs: 2}}, pipeline.Sinks{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCrashedCopy: a log dir with .lock and no .kafka_cleanshutdown was
// not shut down cleanly, and every copy's verdict says so; the same dir
// with the marker says nothing of it.
func TestCrashedCopy(t *testing.T) {
	dirs := threeBrokers(t)
	crashed := dirs[0]
	if err := os.Remove(filepath.Join(crashed, ".kafka_cleanshutdown")); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs[:2] {
		if err := os.WriteFile(filepath.Join(d, ".lock"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, dirs[0], dirs[1])
	n := 0
	for _, v := range res.Check.Partitions {
		want := v.Input == 0
		if v.Crashed != want || want != strings.Contains(v.Text, "not shut down cleanly") {
			t.Errorf("input %d %s: crashed %v %v %q", v.Input, v.Dir, v.Crashed, v.CrashSigns, v.Text)
		}
		if want && (len(v.CrashSigns) != 1 || !strings.Contains(v.CrashSigns[0], ".lock")) {
			t.Errorf("%s: signs %q", v.Dir, v.CrashSigns)
		}
		if want {
			n++
		}
	}
	if n < 9 {
		t.Errorf("%d crashed copies, want every partition of input 0", n)
	}
	for _, cv := range res.ClusterVerdicts() {
		for _, c := range cv.Copies {
			if c.Crashed != (c.Input == 0) {
				t.Errorf("%s-%d input %d: crashed %v", cv.Topic, cv.Partition, c.Input, c.Crashed)
			}
		}
	}
}
