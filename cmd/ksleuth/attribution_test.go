package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// txnStateValue encodes a __transaction_state value: v0 when prev < 0,
// else v1 with the PreviousProducerId tag.
func txnStateValue(pid int64, epoch int16, state int8, prev int64) []byte {
	if prev < 0 {
		parts := []byte{0xff, 0xff, 0xff, 0xff} // null
		if state != 0 {
			parts = be(int32(1), "orders", int32(1), int32(0))
		}
		return be(int16(0), pid, epoch, int32(60000), state, parts, int64(1700000000000), int64(1700000000000))
	}
	return be(int16(1), pid, epoch, int32(60000), state, []byte{2, 7}, []byte("orders"), []byte{2}, int32(0), []byte{0},
		int64(1700000000000), int64(1700000000000), []byte{1, 0, 8}, prev)
}

// TestScanAttribution scans a generated log dir holding a data topic, its
// __transaction_state and the KRaft metadata log, and checks that every
// producer session of the data topic is attributed:
//   - PID 4000 epochs 0 and 1: transactional id payments-app (a restart
//     bumped the epoch), block [4000, 4999] of broker 2;
//   - PID 5000 epoch 0: payments-app again after epoch exhaustion
//     (PreviousProducerId 4000), block [5000, 5999] of broker 3;
//   - PID 6001: idempotent only, no transactional id, broker 1.
func TestScanAttribution(t *testing.T) {
	dir := t.TempDir()
	write := func(part string, batches ...segtest.Batch) {
		p := filepath.Join(dir, part)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		var b []byte
		for _, x := range batches {
			b = append(b, x.Encode()...)
		}
		if err := os.WriteFile(filepath.Join(p, "00000000000000000000.log"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := int64(1700000000000)
	data := func(off, pid int64, epoch int16, txn bool, val string) segtest.Batch {
		return segtest.Batch{Magic: 2, BaseOffset: off, FirstTimestamp: ts + off, Transactional: txn, AutoDeltas: true,
			Producer: &segtest.Producer{ID: pid, Epoch: epoch, BaseSequence: 0}, Records: []segtest.Record{{Value: []byte(val)}}}
	}
	write("orders-0",
		data(0, 4000, 0, true, "a"), segtest.MarkerBatch(1, 4000, 0, true, 0, ts+1, 0),
		data(2, 4000, 1, true, "b"), segtest.MarkerBatch(3, 4000, 1, true, 0, ts+3, 0),
		data(4, 5000, 0, true, "c"), segtest.MarkerBatch(5, 5000, 0, true, 0, ts+5, 0),
		data(6, 6001, 0, false, "d"))
	key := be(int16(0), "payments-app")
	state := func(off int64, v []byte) segtest.Batch {
		return segtest.Batch{Magic: 2, BaseOffset: off, FirstTimestamp: ts + off, Records: []segtest.Record{{Key: key, Value: v}}}
	}
	write("__transaction_state-3",
		state(0, txnStateValue(4000, 0, 0, -1)), state(1, txnStateValue(4000, 0, 1, -1)), state(2, txnStateValue(4000, 0, 4, -1)),
		state(3, txnStateValue(4000, 1, 1, -1)), state(4, txnStateValue(4000, 1, 4, -1)),
		state(5, txnStateValue(5000, 0, 4, 4000)))
	pids := func(off int64, broker int32, next int64) segtest.Batch {
		return segtest.Batch{Magic: 2, BaseOffset: off, FirstTimestamp: ts + off,
			Records: []segtest.Record{{Value: append(append([]byte{1, 15, 0}, be(broker, int64(3), next)...), 0)}}}
	}
	write("__cluster_metadata-0", pids(0, 2, 5000), pids(1, 3, 6000), pids(2, 1, 7000))

	out := filepath.Join(t.TempDir(), "out")
	if so, se, code := runCLI(t, "scan", dir, "--out", out); code != 0 {
		t.Fatalf("scan: exit %d\n%s\n%s", code, so, se)
	}
	type want struct {
		tid    string
		broker int32
	}
	wants := map[[2]int64]want{{4000, 0}: {"payments-app", 2}, {4000, 1}: {"payments-app", 2}, {5000, 0}: {"payments-app", 3}, {6001, 0}: {"", 1}}
	seen := 0
	for _, r := range readTable[analysis.ProducerRow](t, filepath.Join(out, tableProducers)) {
		if r.Topic != "orders" {
			continue
		}
		seen++
		w, ok := wants[[2]int64{r.ProducerID, int64(r.ProducerEpoch)}]
		if !ok || r.TransactionalID != w.tid || r.AllocatedByBroker == nil || *r.AllocatedByBroker != w.broker {
			t.Errorf("session %d/%d: transactional_id %q allocated_by_broker %v; want %+v", r.ProducerID, r.ProducerEpoch, r.TransactionalID, r.AllocatedByBroker, w)
		}
	}
	if seen != len(wants) {
		t.Errorf("%d sessions of orders, want %d", seen, len(wants))
	}
	txns := readTable[analysis.TransactionRow](t, filepath.Join(out, tableTransactions))
	var changes []string
	for _, r := range txns {
		changes = append(changes, r.Change)
	}
	if len(txns) != 6 || changes[3] != "epoch-bump" || changes[5] != "pid-change" || *txns[5].PreviousProducerID != 4000 {
		t.Errorf("transactions %v: %+v", changes, txns)
	}
	if blocks := readTable[analysis.PIDBlockRow](t, filepath.Join(out, tablePIDBlocks)); len(blocks) != 3 || blocks[2].FirstProducerID != 6000 || blocks[2].BrokerID != 1 {
		t.Errorf("pid blocks %+v", blocks)
	}
}
