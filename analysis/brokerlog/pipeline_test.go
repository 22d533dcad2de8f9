package brokerlog_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/brokerlog"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestBrokerLogsInARun: a broker's dir holds its log dir and its logs,
// one beside the segments. The logs are never read as segments, their
// events reach the cluster timeline, and their unparsed lines are counted.
func TestBrokerLogsInARun(t *testing.T) {
	root := t.TempDir()
	seg := segtest.Batch{Magic: 2, PartitionLeaderEpoch: 0, FirstTimestamp: 1_700_000_000_000, AutoDeltas: true,
		Records: []segtest.Record{{Value: []byte("v")}}}.Encode()
	log := "[2026-12-02 04:28:03,000] INFO [UnifiedLog partition=t-0, dir=/d] Truncating to offset 44 (x)\nnot a log line\n"
	files := map[string]string{
		"data/meta.properties":              "version=1\nnode.id=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n",
		"data/t-0/00000000000000000000.log": string(seg),
		"data/server.log":                   log, // misplaced, still a broker log
		"logs/server.log.1":                 log,
		"logs/state-change.log":             "[2026-12-02 04:28:02,419] INFO [Broker id=1] Leader t-0 with topic id Some(x) starts at leader epoch 1 from offset 44 (state.change.logger)\n",
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inputs, err := source.Classify([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(context.Background(), inputs, pipeline.Options{Scan: scan.Config{Jobs: 2}}, pipeline.Sinks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scan.Batches != 1 || len(res.Scan.Anomalies) != 0 {
		t.Errorf("%d batches, findings %+v: want the one segment's batch and nothing about the logs", res.Scan.Batches, res.Scan.Anomalies)
	}
	kinds := map[string]string{}
	for _, f := range res.Scan.Files {
		kinds[f.Path] = f.Kind
	}
	for _, p := range []string{"data/server.log", "logs/server.log.1", "logs/state-change.log"} {
		if kinds[p] != scan.KindBrokerLog {
			t.Errorf("%s: kind %q", p, kinds[p])
		}
	}
	evs := res.ClusterEvents()
	n := map[string]int{}
	for _, e := range evs {
		if e.Source != brokerlog.Source || e.Line == nil || e.Time == nil {
			t.Errorf("event %+v", e)
		}
		n[e.Kind]++
	}
	if n[brokerlog.KindTruncation] != 2 || n["leader-change"] != 1 || len(evs) != 3 {
		t.Errorf("events by kind %v", n)
	}
	if st := res.BrokerLogs; st.Files != 3 || st.Lines != 5 || st.Unparsed != 2 || st.Events != 3 {
		t.Errorf("broker log stats %+v", st)
	}
}
