package cluster_test

import (
	"path"
	"reflect"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/cluster"
)

// txnV1 encodes a flexible TransactionLogValue with PreviousProducerId
// and NextProducerId tags when they are not -1.
func txnV1(pid int64, epoch int16, state int8, prev, next int64) []byte {
	e := new(enc).i16(1).i64(pid).i16(epoch).i32(60000).i8(state).count(true, 1).str(true, "orders").i32s(true, []int32{0}).tags()
	e.i64(1700000000000).i64(1700000000000)
	var ts []tag
	if prev >= 0 {
		ts = append(ts, tag{0, be64(prev)})
	}
	if next >= 0 {
		ts = append(ts, tag{1, be64(next)})
	}
	return e.tags(ts...).b
}

func pidsRecord(broker int32, next int64) []byte {
	return metaHeader(15, 0).i32(broker).i64(7).i64(next).tags().b
}

func TestAttribution(t *testing.T) {
	a := cluster.NewAttribution()
	key := new(enc).i16(0).str(false, "payments-app").b
	other := new(enc).i16(0).str(false, "ledger").b
	ts := int64(1700000000000)
	add := func(off int64, k, v []byte) {
		a.Add(0, "__transaction_state", 3, "logs/__transaction_state-3/00000000000000000000.log", off*100, off, &ts, false, k, v)
	}
	add(0, key, txnV0(4000, 0, 0, nil, nil))                                              // first
	add(1, key, txnV0(4000, 0, 1, map[string][]int32{"orders": {0}}, []string{"orders"})) // Ongoing
	add(2, other, txnV0(4001, 0, 0, nil, nil))                                            // another id, first
	add(3, key, txnV0(4000, 1, 0, nil, nil))                                              // restart: epoch bump
	add(4, key, txnV1(5000, 0, 4, 4000, -1))                                              // epoch exhausted: new PID
	add(5, key, nil)                                                                      // expired
	meta := func(path string, off int64, broker int32, next int64) {
		a.Add(0, "__cluster_metadata", 0, path, off*10, off, &ts, false, nil, pidsRecord(broker, next))
	}
	meta("logs/__cluster_metadata-0/00000000000000000000.log", 40, 2, 5000)
	meta("logs/__cluster_metadata-0/00000000000000000100-0000000001.checkpoint", 0, 3, 6000)
	// A snapshot's ProducerIds record names no broker (-1): listed, but it
	// attributes nothing.
	meta("logs/__cluster_metadata-0/00000000000000000200-0000000001.checkpoint", 0, -1, 8000)
	// Another input (another cluster's log dir) with its own transactional
	// id for PID 4000 and its own block: the same input wins.
	a.Add(1, "__transaction_state", 0, "other/__transaction_state-0/00000000000000000000.log", 0, 0, &ts, false,
		new(enc).i16(0).str(false, "elsewhere").b, txnV0(4000, 0, 0, nil, nil))
	a.Add(1, "__cluster_metadata", 0, "other/__cluster_metadata-0/00000000000000000000.log", 0, 0, &ts, false, nil, pidsRecord(9, 5000))
	// A NoOp and a control-free other record are ignored.
	a.Add(0, "__cluster_metadata", 0, "logs/__cluster_metadata-0/00000000000000000000.log", 0, 41, &ts, false, nil, metaHeader(20, 0).tags().b)
	a.Add(0, "orders", 0, "logs/orders-0/00000000000000000000.log", 0, 0, &ts, false, []byte("k"), []byte("v"))
	a.Finish()
	if len(a.Findings) != 0 {
		t.Fatal(a.Findings)
	}

	var changes []string
	for _, r := range a.Timeline("payments-app") {
		changes = append(changes, r.Change)
	}
	if want := []string{"first", "state", "epoch-bump", "pid-change", "tombstone"}; !reflect.DeepEqual(changes, want) {
		t.Errorf("timeline %v, want %v", changes, want)
	}
	rows := a.Transactions()
	if len(rows) != 7 || rows[4].PreviousProducerID == nil || *rows[4].PreviousProducerID != 4000 || rows[4].PreviousState != "Empty" ||
		rows[4].State != "CompleteCommit" {
		t.Errorf("rows %+v", rows)
	}
	for pid, want := range map[int64]string{4000: "payments-app", 5000: "payments-app", 4001: "ledger", 4002: ""} {
		if got := a.TransactionalID(0, "logs/orders-0", pid); got != want {
			t.Errorf("TransactionalID(%d) = %q, want %q", pid, got, want)
		}
	}
	for pid, want := range map[int64]int32{4000: 2, 4999: 2, 5000: 3, 5999: 3} {
		if b, ok := a.Block(0, "logs/orders-0", pid); !ok || b.BrokerID != want {
			t.Errorf("Block(%d) = %+v, %v; want broker %d", pid, b, ok, want)
		}
	}
	if _, ok := a.Block(0, "logs/orders-0", 3999); ok {
		t.Error("PID 3999 is in no block")
	}
	if _, ok := a.Block(0, "logs/orders-0", 7500); ok {
		t.Error("PID 7500 is only in a snapshot block without broker")
	}
	if got := a.TransactionalID(1, "logs/orders-0", 4000); got != "elsewhere" {
		t.Errorf("input 1: TransactionalID(4000) = %q", got)
	}
	if got := a.TransactionalID(2, "logs/orders-0", 4000); got != "" {
		t.Errorf("input 2 (no own records, no cluster): TransactionalID(4000) = %q", got)
	}
	// Inputs 0 and 2 are brokers of one cluster: input 2 borrows input
	// 0's facts, never input 1's. The clusters are taken at Finish.
	a.Cluster = func(in int32, _ string) string { return map[int32]string{0: "c0", 1: "c1", 2: "c0"}[in] }
	a.Finish()
	if got := a.TransactionalID(2, "logs/orders-0", 4000); got != "payments-app" {
		t.Errorf("input 2 of cluster c0: TransactionalID(4000) = %q", got)
	}
	if b, ok := a.Block(2, "logs/orders-0", 4500); !ok || b.BrokerID != 2 {
		t.Errorf("input 2 of cluster c0: Block(4500) = %+v", b)
	}
	a.Cluster = nil
	a.Finish()
	if b, ok := a.Block(1, "logs/orders-0", 4500); !ok || b.BrokerID != 9 {
		t.Errorf("input 1: Block(4500) = %+v", b)
	}
	if b, _ := a.Block(0, "logs/orders-0", 4500); b.Source != "log" || b.FirstProducerID != 4000 || b.LastProducerID != 4999 || b.Offset != 40 {
		t.Errorf("block of 4500: %+v", b)
	}
	if n := len(a.PIDBlocks()); n != 4 {
		t.Errorf("%d pid blocks", n)
	}

	p := analysis.ProducerRow{ProducerID: 4000}
	a.AnnotateProducer(&p)
	d := analysis.DuplicateRow{ProducerID: 7}
	a.AnnotateDuplicate(&d)
	if p.TransactionalID != "payments-app" || p.AllocatedByBroker == nil || *p.AllocatedByBroker != 2 || d.TransactionalID != "" || d.AllocatedByBroker != nil {
		t.Errorf("annotated %+v / %+v", p, d)
	}
}

// TestAttributionClusterPerLogDir: one input (an archive) holds log dirs
// of two clusters and two of none. Truth: prod-2's __transaction_state
// and metadata log name PID 4000 payments-app in broker 2's block; dr-1's
// name it other-app in broker 9's; old-1, of no known cluster, names it
// legacy-app. prod-1 and another input's prod-3 (cluster prod) get
// prod's facts only, dr-1 dr's, and old-2 old-1's, the only facts of its
// input that are of no known cluster.
func TestAttributionClusterPerLogDir(t *testing.T) {
	a := cluster.NewAttribution()
	ts := int64(1700000000000)
	state := func(logDir, tid string) {
		a.Add(0, "__transaction_state", 3, logDir+"/__transaction_state-3/00000000000000000000.log", 0, 0, &ts, false,
			new(enc).i16(0).str(false, tid).b, txnV0(4000, 0, 0, nil, nil))
	}
	state("archive/prod-2", "payments-app")
	state("archive/dr-1", "other-app")
	state("archive/old-1", "legacy-app")
	a.Add(0, "__cluster_metadata", 0, "archive/prod-2/__cluster_metadata-0/00000000000000000000.log", 0, 0, &ts, false, nil, pidsRecord(2, 5000))
	a.Add(0, "__cluster_metadata", 0, "archive/dr-1/__cluster_metadata-0/00000000000000000000.log", 0, 0, &ts, false, nil, pidsRecord(9, 5000))
	clusters := map[string]string{"archive/prod-1": "prod", "archive/prod-2": "prod", "archive/dr-1": "dr", "more/prod-3": "prod"}
	a.Cluster = func(_ int32, dir string) string { return clusters[path.Dir(dir)] }
	a.Finish()
	for _, c := range []struct {
		input  int32
		dir    string
		tid    string
		broker int32
	}{
		{0, "archive/prod-1/orders-0", "payments-app", 2},
		{1, "more/prod-3/orders-0", "payments-app", 2},
		{0, "archive/dr-1/orders-0", "other-app", 9},
		{0, "archive/old-2/orders-0", "legacy-app", -1},
		{1, "more/old-3/orders-0", "", -1},
	} {
		got := a.TransactionalID(c.input, c.dir, 4000)
		b, ok := a.Block(c.input, c.dir, 4000)
		if !ok {
			b.BrokerID = -1
		}
		if got != c.tid || b.BrokerID != c.broker {
			t.Errorf("#%d %s: PID 4000 is %q of broker %d, want %q of broker %d", c.input, c.dir, got, b.BrokerID, c.tid, c.broker)
		}
	}
}
