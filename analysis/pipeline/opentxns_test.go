package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/producer"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// corpusDir holds real brokers' log dirs, beside the checkout.
const corpusDir = "../../../shared/corpus/real"

// TestPartitionTxnsCorpus: the ksqlDB command topic of a real broker's
// dir holds one committed transaction, named by its __transaction_state.
func TestPartitionTxnsCorpus(t *testing.T) {
	in := filepath.Join(corpusDir, "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions", "kafka-data")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("real corpus not available: %v", err)
	}
	res, _ := runDups(t, pipeline.Plan{Command: pipeline.Scan}, in)
	rows := res.Txns.Rows
	if len(rows) != 1 {
		t.Fatalf("%d transactions: %+v", len(rows), rows)
	}
	r := rows[0]
	if r.Topic != "_confluent-ksql-default__command_topic" || r.ProducerID != 0 || r.FirstOffset != 0 || r.LastDataOffset != 0 ||
		r.EndMarker != "COMMIT" || r.EndOffset == nil || *r.EndOffset != 1 || r.Records != 1 || r.Open || r.Empty || r.HoldsLSO {
		t.Errorf("transaction: %+v", r)
	}
	if r.TransactionalID != "default_" || r.CoordinatorPartition == nil ||
		*r.CoordinatorPartition != producer.CoordinatorPartition("default_", r.TxnStatePartitions) || r.TxnStatePartitions <= 0 {
		t.Errorf("attribution: %q, coordinator %v of %d (%s)", r.TransactionalID, r.CoordinatorPartition, r.TxnStatePartitions, r.PartitionCountFrom)
	}
}

// TestOpenTxnGenerated: a partition whose every batch belongs to one
// transaction that never ends (segtest.RealisticOpenTxn): the run fails
// on it (a hanging-transaction warning), the LSO is its first offset,
// every offset is invisible to read_committed consumers, and without
// __transaction_state its coordinator state is unknown.
func TestOpenTxnGenerated(t *testing.T) {
	t.Parallel()
	in := filepath.Join(t.TempDir(), "logs")
	part := filepath.Join(in, "orders-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := segtest.RealisticOpenTxn(segtest.CodecNone, 64<<10, 5)
	if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	res, sum := runPlan(t, pipeline.Plan{Command: pipeline.Producers}, in)
	if !res.Failed() {
		t.Errorf("the run does not fail on a hanging transaction")
	}
	if len(sum.OpenTxns) != 1 || len(sum.TxnPartitions) != 1 {
		t.Fatalf("open %+v, lso %+v", sum.OpenTxns, sum.TxnPartitions)
	}
	h, p := sum.OpenTxns[0], sum.TxnPartitions[0]
	if h.ProducerID != 7000 || h.FirstOffset != 0 || !h.Open || !h.HoldsLSO || h.CoordinatorState != analysis.CoordinatorUnknown ||
		h.PartitionCountFrom != producer.CountFromDefault || h.Records != p.LogEndOffset {
		t.Errorf("open transaction: %+v", h)
	}
	if p.LastStableOffset != 0 || p.LSOFrom != "open transaction" || p.Invisible != p.LogEndOffset || p.LogEndOffset < 10 {
		t.Errorf("lso: %+v", p)
	}
}

// TestOpenTxnOwnClusterInOneInput: one input (an archive) holds the log
// dirs of two clusters. Truth: prod-1 (broker 1 of prod) holds PID 7000's
// open transaction in orders-0; prod-2 (broker 2 of prod) holds prod's
// coordinator state for ledger-app, Ongoing under PID 7000 with orders-0;
// dr-1 (broker 3 of dr) a later CompleteCommit of dr's own ledger-app. The
// transaction is ongoing, judged by prod's coordinator, and find-hanging
// asks broker 1, prod-1's.
func TestOpenTxnOwnClusterInOneInput(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ts := int64(1700000000000)
	for _, d := range []struct {
		name, cluster string
		id            int
	}{{"prod-1", "prod", 1}, {"prod-2", "prod", 2}, {"dr-1", "dr", 3}} {
		dir := filepath.Join(root, d.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		props := "version=1\nnode.id=" + string(rune('0'+d.id)) + "\ncluster.id=" + d.cluster + "\n"
		if err := os.WriteFile(filepath.Join(dir, "meta.properties"), []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSegments(t, filepath.Join(root, "prod-1", "orders-0"), [][]segtest.Batch{{{Magic: 2, FirstTimestamp: ts, Transactional: true,
		AutoDeltas: true, Producer: &segtest.Producer{ID: 7000}, Records: []segtest.Record{{Value: []byte("e")}}}}})
	state := func(off int64, v []byte) segtest.Batch {
		return segtest.Batch{Magic: 2, BaseOffset: off, FirstTimestamp: ts + off,
			Records: []segtest.Record{{Key: segtest.Fields(int16(0), "ledger-app"), Value: v}}}
	}
	writeSegments(t, filepath.Join(root, "prod-2", "__transaction_state-3"), [][]segtest.Batch{{state(0, segtest.TxnStateValue(7000, 0, 1, -1))}})
	writeSegments(t, filepath.Join(root, "dr-1", "__transaction_state-3"), [][]segtest.Batch{{state(50, segtest.TxnStateValue(7000, 0, 4, -1))}})
	_, sum := runPlan(t, pipeline.Plan{Command: pipeline.Producers}, root)
	if len(sum.OpenTxns) != 1 {
		t.Fatalf("open transactions %+v", sum.OpenTxns)
	}
	h := sum.OpenTxns[0]
	if h.TransactionalID != "ledger-app" || h.CoordinatorState != analysis.CoordinatorOngoing || !strings.HasSuffix(h.FindHanging, "--broker-id 1") {
		t.Errorf("PID 7000: %q %s (%s), %s; want ledger-app ongoing, find-hanging on broker 1", h.TransactionalID, h.CoordinatorState, h.Why, h.FindHanging)
	}
}
