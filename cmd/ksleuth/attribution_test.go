package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
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

// writeAttributionLogDir writes a log dir holding a data topic, its
// __transaction_state and the KRaft metadata log:
//   - PID 4000 epochs 0 and 1: transactional id payments-app (a restart
//     bumped the epoch), block [4000, 4999] of broker 2;
//   - PID 5000 epoch 0: payments-app again after epoch exhaustion
//     (PreviousProducerId 4000), block [5000, 5999] of broker 3; it
//     resends "b" of PID 4000 (offset 4 repeats 2);
//   - PIDs 6001 and 6002: idempotent only, no transactional id, broker 1;
//     6002 resends "d" of 6001 (offset 7 repeats 6).
func writeAttributionLogDir(t *testing.T) string {
	t.Helper()
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
		data(4, 5000, 0, true, "b"), segtest.MarkerBatch(5, 5000, 0, true, 0, ts+5, 0),
		data(6, 6001, 0, false, "d"), data(7, 6002, 0, false, "d"))
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
	return dir
}

// The sessions of orders in writeAttributionLogDir and their attribution.
var attributedSessions = map[[2]int64]struct {
	tid    string
	broker int32
}{{4000, 0}: {"payments-app", 2}, {4000, 1}: {"payments-app", 2}, {5000, 0}: {"payments-app", 3}, {6001, 0}: {"", 1}, {6002, 0}: {"", 1}}

// The dups report lines of the two runs of writeAttributionLogDir, up to
// the gap, and what follows it; the explanations of the later copies end
// with the same words.
const (
	rotatedRun      = "orders-0: PID 5000 (epoch 0, txn id payments-app, block of broker 3) possibly resent 1 record first written by PID 4000 (txn id payments-app, broker 2) — offset 4 repeats 2"
	rotatedChange   = "; PID change under the stable transactional id payments-app: the coordinator rotated it from PID 4000 to PID 5000 (epoch exhaustion) [possible restart-resend: too few records]"
	idempotentRun   = "orders-0: PID 6002 (epoch 0, block of broker 1) possibly resent 1 record first written by PID 6001 (broker 1) — offset 7 repeats 6"
	idempotentChang = "; idempotent-only restart: no transactional id, so every restart gets a new PID [possible restart-resend: too few records]"
)

// TestScanAttribution scans writeAttributionLogDir and checks that every
// producer session and duplicate of the data topic is attributed.
func TestScanAttribution(t *testing.T) {
	t.Parallel()
	dir := writeAttributionLogDir(t)
	out := filepath.Join(t.TempDir(), "out")
	if so, se, code := runCLI(t, "scan", dir, "--out", out); code != 0 {
		t.Fatalf("scan: exit %d\n%s\n%s", code, so, se)
	}
	wants := attributedSessions
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
	checkAttributedDups(t, readTable[analysis.DuplicateRow](t, filepath.Join(out, tableDups)))
}

// checkAttributedDups checks the later copies of writeAttributionLogDir:
// the attribution columns and the explanations' wording.
func checkAttributedDups(t *testing.T, rows []analysis.DuplicateRow) {
	t.Helper()
	type want struct {
		tid, refTid     string
		broker, refBrkr int32
		change, tail    string
	}
	wants := map[int64]want{
		4: {"payments-app", "payments-app", 3, 2, analysis.PIDChangeRotation, strings.TrimSuffix(rotatedChange, " [possible restart-resend: too few records]")},
		7: {"", "", 1, 1, analysis.PIDChangeIdempotentRestart, strings.TrimSuffix(idempotentChang, " [possible restart-resend: too few records]")},
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

// TestDupsProducersAttribution: the dups and producers commands attribute
// PIDs as scan does, over the same log dir.
func TestDupsProducersAttribution(t *testing.T) {
	t.Parallel()
	dir := writeAttributionLogDir(t)
	out, errs, code := runCLI(t, "dups", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("dups: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("ksleuth dups %s:\n%s", dir, out)
	for _, w := range [][2]string{{rotatedRun, rotatedChange}, {idempotentRun, idempotentChang}} {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, w[0]) {
				line = l
			}
		}
		if !strings.HasSuffix(line, w[1]) {
			t.Errorf("dups report: no line %q…%q in\n%s", w[0], w[1], out)
		}
	}
	groups, _ := dupsJSON(t, dir)
	var rows []analysis.DuplicateRow
	for _, g := range groups {
		rows = append(rows, g.Members...)
	}
	checkAttributedDups(t, rows)

	// --topic without the internal topics: nothing to attribute by.
	groups, _ = dupsJSON(t, "--topic", "^orders$", dir)
	for _, g := range groups {
		for _, r := range g.Members {
			if r.TransactionalID != "" || r.AllocatedByBroker != nil || r.PIDChange != "" || strings.Contains(r.Explanation, "transactional id") {
				t.Errorf("--topic orders: attributed %+v", r)
			}
		}
	}

	out, errs, code = runCLI(t, "producers", "--json", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("producers: exit %d\n%s\n%s", code, out, errs)
	}
	seen := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var s jsonl.SessionLine
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "session" || s.Topic != "orders" {
			continue
		}
		seen++
		w, ok := attributedSessions[[2]int64{s.ProducerID, int64(s.ProducerEpoch)}]
		if !ok || s.TransactionalID != w.tid || s.AllocatedByBroker == nil || *s.AllocatedByBroker != w.broker {
			t.Errorf("producers: session %d/%d: transactional_id %q allocated_by_broker %v; want %+v", s.ProducerID, s.ProducerEpoch, s.TransactionalID, s.AllocatedByBroker, w)
		}
	}
	if seen != len(attributedSessions) {
		t.Errorf("producers: %d sessions of orders, want %d", seen, len(attributedSessions))
	}
	out, _, _ = runCLI(t, "producers", "--progress", "never", dir)
	if !regexp.MustCompile(`TXN ID +BROKER\n`).MatchString(out) || !regexp.MustCompile(`(?m)^orders +0 +5000 .* payments-app +3$`).MatchString(out) {
		t.Errorf("producers text: no attribution columns:\n%s", out)
	}
	// --topic without the internal topics: nothing attributed, no columns.
	if out, _, _ = runCLI(t, "producers", "--topic", "^orders$", "--progress", "never", dir); strings.Contains(out, "TXN ID") {
		t.Errorf("producers --topic orders:\n%s", out)
	}
}

// TestAttributionAcrossBrokers: a cluster's __transaction_state and
// metadata log usually lie on other brokers than its data. Truth: the
// files of writeAttributionLogDir split over two brokers of cluster c1
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
	src := writeAttributionLogDir(t)
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
		Records: []segtest.Record{{Key: be(int16(0), "other-app"), Value: txnStateValue(6001, 0, 4, -1)}}}
	if err := os.MkdirAll(filepath.Join(b3, "__transaction_state-3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b3, "__transaction_state-3", "00000000000000000000.log"), other.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	ins := []string{b1, b2, b3}
	if oneInput {
		ins = []string{root}
	}
	if so, se, code := runCLI(t, append([]string{"scan", "--out", out}, ins...)...); code != 0 {
		t.Fatalf("scan: exit %d\n%s\n%s", code, so, se)
	}
	seen := 0
	for _, r := range readTable[analysis.ProducerRow](t, filepath.Join(out, tableProducers)) {
		if r.Topic != "orders" {
			continue
		}
		seen++
		w := attributedSessions[[2]int64{r.ProducerID, int64(r.ProducerEpoch)}]
		if r.TransactionalID != w.tid || r.AllocatedByBroker == nil || *r.AllocatedByBroker != w.broker {
			t.Errorf("session %d/%d on broker 1: transactional_id %q allocated_by_broker %v; want %+v", r.ProducerID, r.ProducerEpoch, r.TransactionalID, r.AllocatedByBroker, w)
		}
	}
	if seen != len(attributedSessions) {
		t.Errorf("%d sessions of orders, want %d", seen, len(attributedSessions))
	}
}
