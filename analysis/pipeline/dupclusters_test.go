package pipeline_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestDupsAcrossClusters: records of two clusters are never duplicates of
// each other. Truth: log dir a (cluster prod) holds orders-0 offsets 0-9
// by PID 1000; log dir b holds the same ten records at offsets 100-109 by
// PID 5000, as a mirror writes them, with the same timestamps. When b is
// of cluster dr, nothing is a duplicate; when b is of cluster prod, or
// names no cluster (it joins the run's only known one), PID 5000 resent
// the ten records. The same holds when one input (an archive of both
// clusters' brokers) holds both log dirs: each log dir keeps its own
// cluster.
func TestDupsAcrossClusters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cluster  string
		oneInput bool
	}{{"dr", false}, {"prod", false}, {"", false}, {"dr", true}, {"prod", true}, {"", true}} {
		root := t.TempDir()
		for _, d := range []struct {
			name, cluster string
			pid, base     int64
		}{{"a", "prod", 1000, 0}, {"b", c.cluster, 5000, 100}} {
			dir := filepath.Join(root, d.name)
			if err := os.MkdirAll(filepath.Join(dir, "orders-0"), 0o755); err != nil {
				t.Fatal(err)
			}
			if d.cluster != "" {
				if err := os.WriteFile(filepath.Join(dir, "meta.properties"), []byte("version=1\nnode.id=1\ncluster.id="+d.cluster+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var recs []segtest.Record
			for i := range 10 {
				recs = append(recs, segtest.Record{Key: []byte{'k', byte('0' + i)}, Value: []byte("order payload " + string(rune('0'+i)))})
			}
			b := segtest.Batch{Magic: 2, BaseOffset: d.base, FirstTimestamp: 1700000000000, AutoDeltas: true,
				Producer: &segtest.Producer{ID: d.pid}, Records: recs}
			if err := os.WriteFile(filepath.Join(dir, "orders-0", segtest.SegmentFileName(d.base)), b.Encode(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		paths := []string{filepath.Join(root, "a"), filepath.Join(root, "b")}
		if c.oneInput {
			paths = []string{root}
		}
		_, rows := runDups(t, pipeline.Plan{Command: pipeline.Dups}, paths...)
		later := 0
		for _, m := range rows {
			if m.Class != "" {
				later++
			}
		}
		want := 10
		if c.cluster == "dr" {
			want = 0
		}
		if later != want {
			t.Errorf("b of cluster %q, one input %v: %d later copies, want %d\n%+v", c.cluster, c.oneInput, later, want, rows)
		}
	}
}
