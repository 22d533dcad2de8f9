package pipeline_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// attributionLogDir is segtest.WriteAttributionLogDir in a new dir.
func attributionLogDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := segtest.WriteAttributionLogDir(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The sessions of orders in the attribution log dir and their attribution.
var attributedSessions = map[[2]int64]struct {
	tid    string
	broker int32
}{{4000, 0}: {"payments-app", 2}, {4000, 1}: {"payments-app", 2}, {5000, 0}: {"payments-app", 3}, {6001, 0}: {"", 1}, {6002, 0}: {"", 1}}

// checkAttributedSessions checks the sessions of orders against
// attributedSessions.
func checkAttributedSessions(t *testing.T, what string, sessions []analysis.ProducerRow) {
	t.Helper()
	seen := 0
	for _, r := range sessions {
		if r.Topic != "orders" {
			continue
		}
		seen++
		w, ok := attributedSessions[[2]int64{r.ProducerID, int64(r.ProducerEpoch)}]
		if !ok || r.TransactionalID != w.tid || r.AllocatedByBroker == nil || *r.AllocatedByBroker != w.broker {
			t.Errorf("%s: session %d/%d: transactional_id %q allocated_by_broker %v; want %+v", what, r.ProducerID, r.ProducerEpoch,
				r.TransactionalID, r.AllocatedByBroker, w)
		}
	}
	if seen != len(attributedSessions) {
		t.Errorf("%s: %d sessions of orders, want %d", what, seen, len(attributedSessions))
	}
}

// checkAttributedDups checks the later copies of the attribution log dir:
// the attribution columns and the explanations' wording.
func checkAttributedDups(t *testing.T, rows []analysis.DuplicateRow) {
	t.Helper()
	type want struct {
		tid, refTid     string
		broker, refBrkr int32
		change, tail    string
	}
	wants := map[int64]want{
		4: {"payments-app", "payments-app", 3, 2, analysis.PIDChangeRotation,
			"; PID change under the stable transactional id payments-app: the coordinator rotated it from PID 4000 to PID 5000 (epoch exhaustion)"},
		7: {"", "", 1, 1, analysis.PIDChangeIdempotentRestart, "; idempotent-only restart: no transactional id, so every restart gets a new PID"},
	}
	later := 0
	for _, r := range rows {
		if r.Class == "" {
			continue
		}
		later++
		w, ok := wants[r.Offset]
		if !ok || r.Class != "restart-resend" || r.TransactionalID != w.tid || r.RefTransactionalID != w.refTid ||
			r.AllocatedByBroker == nil || *r.AllocatedByBroker != w.broker || r.RefAllocatedByBroker == nil || *r.RefAllocatedByBroker != w.refBrkr ||
			r.PIDChange != w.change || !strings.HasSuffix(r.Explanation, w.tail) {
			t.Errorf("later copy at %d: %+v; want %+v", r.Offset, r, w)
		}
	}
	if later != len(wants) {
		t.Errorf("%d later copies, want %d", later, len(wants))
	}
}

// TestScanAttribution: a scan of the attribution log dir attributes every
// producer session and duplicate of the data topic, and lists the
// transactional ids' history and the PID blocks.
func TestScanAttribution(t *testing.T) {
	t.Parallel()
	res, rows := runDups(t, pipeline.Plan{Command: pipeline.Scan}, attributionLogDir(t))
	checkAttributedSessions(t, "scan", res.Sessions)
	txns := res.Transactions()
	var changes []string
	for _, r := range txns {
		changes = append(changes, r.Change)
	}
	if len(txns) != 6 || changes[3] != "epoch-bump" || changes[5] != "pid-change" || *txns[5].PreviousProducerID != 4000 {
		t.Errorf("transactions %v: %+v", changes, txns)
	}
	if blocks := res.PIDBlocks(); len(blocks) != 3 || blocks[2].FirstProducerID != 6000 || blocks[2].BrokerID != 1 {
		t.Errorf("pid blocks %+v", blocks)
	}
	checkAttributedDups(t, rows)
}

// TestDupsProducersAttribution: the runs of dups and producers attribute
// PIDs as scan does, over the same log dir; a topic filter that leaves
// out the internal topics still reads them, as the evidence of who wrote
// the partitions it selects.
func TestDupsProducersAttribution(t *testing.T) {
	t.Parallel()
	dir := attributionLogDir(t)
	_, rows := runDups(t, pipeline.Plan{Command: pipeline.Dups}, dir)
	checkAttributedDups(t, rows)
	_, rows = runDups(t, pipeline.Plan{Command: pipeline.Dups, Topic: regexp.MustCompile("^orders$")}, dir)
	checkAttributedDups(t, rows)
	res, _ := runPlan(t, pipeline.Plan{Command: pipeline.Producers}, dir)
	checkAttributedSessions(t, "producers", res.Sessions)
	res, _ = runPlan(t, pipeline.Plan{Command: pipeline.Producers, Topic: regexp.MustCompile("^orders$")}, dir)
	checkAttributedSessions(t, "producers --topic orders", res.Sessions)
}

// TestAttributionAcrossBrokers: a cluster's __transaction_state and
// metadata log usually lie on other brokers than its data. Truth: the
// files of the attribution log dir split over two brokers of cluster c1
// (orders-0 on broker 1, the internal topics on broker 2) give the
// sessions of orders the attribution of attributedSessions; broker 3,
// of cluster c2, names PID 6001 other-app in its own __transaction_state,
// which is another cluster's PID and attributes nothing. The same holds
// when one input (an archive of both clusters' brokers) holds the three
// log dirs: each log dir keeps its own cluster.
func TestAttributionAcrossBrokers(t *testing.T) {
	t.Parallel()
	for _, oneInput := range []bool{false, true} {
		t.Run(map[bool]string{false: "inputs", true: "one-input"}[oneInput], func(t *testing.T) { attributionAcrossBrokers(t, oneInput) })
	}
}

func attributionAcrossBrokers(t *testing.T, oneInput bool) {
	src := attributionLogDir(t)
	root := t.TempDir()
	meta := func(dir string, id int, cluster string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		props := "version=1\nnode.id=" + string(rune('0'+id)) + "\ncluster.id=" + cluster + "\n"
		if err := os.WriteFile(filepath.Join(dir, "meta.properties"), []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b1, b2, b3 := filepath.Join(root, "broker-1"), filepath.Join(root, "broker-2"), filepath.Join(root, "broker-3")
	meta(b1, 1, "c1")
	meta(b2, 2, "c1")
	meta(b3, 3, "c2")
	for dir, parts := range map[string][]string{b1: {"orders-0"}, b2: {"__transaction_state-3", "__cluster_metadata-0"}} {
		for _, p := range parts {
			if err := os.Rename(filepath.Join(src, p), filepath.Join(dir, p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	other := segtest.Batch{Magic: 2, FirstTimestamp: 1700000000000,
		Records: []segtest.Record{{Key: segtest.Fields(int16(0), "other-app"), Value: segtest.TxnStateValue(6001, 0, 4, -1)}}}
	writeSegments(t, filepath.Join(b3, "__transaction_state-3"), [][]segtest.Batch{{other}})
	ins := []string{b1, b2, b3}
	if oneInput {
		ins = []string{root}
	}
	res, _ := runDups(t, pipeline.Plan{Command: pipeline.Scan}, ins...)
	checkAttributedSessions(t, "broker 1", res.Sessions)
}
