package producer

import (
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// The expected values were printed by a JVM: String.hashCode, and
// Utils.abs(hashCode) % 50 and % 7 as TransactionStateManager.partitionFor
// computes them.
func TestCoordinatorPartitionMatchesJava(t *testing.T) {
	for _, c := range []struct {
		id        string
		hash      int32
		of50, of7 int32
	}{
		{"hello", 99162322, 22, 0},
		{"live-7", -1102435434, 34, 2},
		{"polygenelubricants", -2147483648, 0, 0},    // Integer.MIN_VALUE: Utils.abs gives 0
		{"txn-\u20ac-\U0001F600", -1424418905, 5, 0}, // a surrogate pair counts as two code units
		{"payments-app", -480600191, 41, 1},
	} {
		if h := HashCode(c.id); h != c.hash {
			t.Errorf("HashCode(%q) = %d, Java says %d", c.id, h, c.hash)
		}
		if p := CoordinatorPartition(c.id, 50); p != c.of50 {
			t.Errorf("CoordinatorPartition(%q, 50) = %d, want %d", c.id, p, c.of50)
		}
		if p := CoordinatorPartition(c.id, 7); p != c.of7 {
			t.Errorf("CoordinatorPartition(%q, 7) = %d, want %d", c.id, p, c.of7)
		}
	}
	if p := CoordinatorPartition("x", 0); p != -1 {
		t.Errorf("no partitions: %d", p)
	}
}

func ts(v int64) *int64 { return &v }

const seg = "orders-0/00000000000000000000.log"

func data(off int64, n int32, pid int64, epoch int32, txn bool, at int64) analysis.BatchRow {
	return analysis.BatchRow{Topic: "orders", Partition: 0, Segment: seg, Position: off * 100, BaseOffset: off, LastOffset: off + int64(n) - 1,
		RecordCount: n, Magic: 2, IsTransactional: txn, ProducerID: pid, ProducerEpoch: epoch, FirstTimestamp: ts(at), MaxTimestamp: ts(at + int64(n)),
		PartitionLeaderEpoch: 3}
}

func marker(off, pid int64, epoch int32, typ string, coord int32, at int64) analysis.BatchRow {
	return analysis.BatchRow{Topic: "orders", Partition: 0, Segment: seg, Position: off * 100, BaseOffset: off, LastOffset: off, RecordCount: 1,
		Magic: 2, IsTransactional: true, IsControl: true, ControlType: typ, ProducerID: pid, ProducerEpoch: epoch,
		FirstTimestamp: ts(at), MaxTimestamp: ts(at), HasMarker: true, MarkerEpoch: coord, PartitionLeaderEpoch: 3}
}

// One partition: a committed transaction, an empty aborted one (a marker
// with no data), an idempotent batch, two transactions left open (the
// earlier holds the LSO) and a fencing ABORT under a bumped epoch.
func partitionBatches() []analysis.BatchRow {
	return []analysis.BatchRow{
		data(0, 5, 10, 0, true, 1000),
		data(5, 3, 11, 0, false, 1010),
		marker(8, 10, 0, "COMMIT", 4, 1020),
		marker(9, 12, 2, "ABORT", 4, 1030), // empty: nothing of PID 12 before it
		data(10, 4, 13, 1, true, 2000),     // open, holds the LSO
		data(14, 2, 10, 0, true, 2100),     // PID 10's second transaction
		data(16, 2, 14, 0, true, 2200),
		marker(18, 14, 1, "ABORT", 5, 2300), // fenced: the bumped epoch ends it
		data(19, 6, 10, 0, true, 5000),      // still PID 10's open transaction
	}
}

func run(t *testing.T, c TxnContext) *TxnResult {
	t.Helper()
	tr := New()
	rows := partitionBatches()
	for i := range rows {
		tr.Batch(&rows[i])
	}
	return tr.Transactions(c)
}

func TestTransactionsAndLSO(t *testing.T) {
	res := run(t, TxnContext{})
	if len(res.Rows) != 5 {
		t.Fatalf("%d transactions, want 5: %+v", len(res.Rows), res.Rows)
	}
	byFirst := map[int64]analysis.PartitionTxnRow{}
	for _, r := range res.Rows {
		byFirst[r.FirstOffset] = r
	}
	c := byFirst[0]
	if c.EndMarker != "COMMIT" || *c.EndOffset != 8 || c.Records != 5 || c.Open || c.Empty || *c.MarkerCoordinatorEpoch != 4 || *c.DurationMillis != 20 {
		t.Errorf("committed: %+v", c)
	}
	e := byFirst[9]
	if !e.Empty || e.EndMarker != "ABORT" || e.Records != 0 || e.LastDataOffset != -1 || e.Open {
		t.Errorf("empty: %+v", e)
	}
	f := byFirst[16]
	if f.EndMarker != "ABORT" || f.ProducerEpoch != 1 || f.Open {
		t.Errorf("fenced: %+v", f)
	}
	o := byFirst[10]
	if !o.Open || !o.HoldsLSO || o.EndMarker != "" || o.EndOffset != nil || o.Records != 4 {
		t.Errorf("open, holding the LSO: %+v", o)
	}
	o2 := byFirst[14]
	if !o2.Open || o2.HoldsLSO || o2.Records != 8 || o2.Batches != 2 || o2.LastDataOffset != 24 {
		t.Errorf("second open: %+v", o2)
	}
	// Open until the partition's last write (5006), from 2000.
	if *o.DurationMillis != 3006 {
		t.Errorf("open duration %d, want 3006", *o.DurationMillis)
	}
	if len(res.Partitions) != 1 {
		t.Fatalf("partitions: %+v", res.Partitions)
	}
	p := res.Partitions[0]
	if p.LastStableOffset != 10 || p.LSOFrom != "open transaction" || p.LogEndOffset != 25 || p.Invisible != 15 || p.OpenTransactions != 2 {
		t.Errorf("LSO: %+v", p)
	}
	if len(res.Open) != 2 || len(res.Findings) != 2 {
		t.Fatalf("open %d, findings %d", len(res.Open), len(res.Findings))
	}
	for _, f := range res.Findings {
		if f.Kind != finding.KindHangingTransaction || f.Severity != finding.Warning || f.File != seg {
			t.Errorf("finding: %+v", f)
		}
	}
	if !strings.Contains(res.Findings[0].Message, "holds the last stable offset at 10, 15 offsets below the log end") {
		t.Errorf("message: %s", res.Findings[0].Message)
	}
	// PID 10 has a marker (coordinator epoch 4): the abort takes it.
	var h10 analysis.OpenTxn
	for _, h := range res.Open {
		if h.ProducerID == 10 {
			h10 = h
		}
	}
	if h10.CoordinatorEpoch != 4 || !strings.HasSuffix(h10.Abort,
		"abort --topic orders --partition 0 --producer-id 10 --producer-epoch 0 --coordinator-epoch 4") {
		t.Errorf("abort for PID 10: %d %q", h10.CoordinatorEpoch, h10.Abort)
	}
	if *h10.OpenForMillis != 5006-2100 {
		t.Errorf("open for %d", *h10.OpenForMillis)
	}
}

func TestLSOCappedByHighWatermark(t *testing.T) {
	res := run(t, TxnContext{HighWatermark: func(int32, string, int32) int64 { return 7 }})
	p := res.Partitions[0]
	// The open transactions start at 10 and 14, above the high
	// watermark: the LSO is the high watermark.
	if p.LastStableOffset != 7 || p.LSOFrom != "high watermark" || p.Invisible != 0 {
		t.Errorf("LSO: %+v", p)
	}
	for _, r := range res.Rows {
		if r.HoldsLSO {
			t.Errorf("no transaction holds an LSO at the high watermark: %+v", r)
		}
	}
}

func TestCoordinatorState(t *testing.T) {
	pid13, pid10 := int64(13), int64(10)
	state := []analysis.TransactionRow{
		{TransactionalID: "app-a", Offset: 1, ProducerID: &pid13, State: "Ongoing", Partitions: "orders-0,orders-1",
			Segment: "__transaction_state-3/00000000000000000000.log"},
		{TransactionalID: "app-b", Offset: 2, ProducerID: &pid10, State: "Ongoing", Partitions: "orders-0"},
		// app-b's transaction was completed without a marker here.
		{TransactionalID: "app-b", Offset: 5, ProducerID: &pid10, State: "CompleteCommit", Partitions: ""},
	}
	names := map[int64]string{13: "app-a", 10: "app-b"}
	res := run(t, TxnContext{
		TxnState:           state,
		TransactionalID:    func(_ int32, _ string, pid int64) string { return names[pid] },
		TxnStatePartitions: 7, CountFrom: CountFromMetadata,
	})
	got := map[int64]analysis.OpenTxn{}
	for _, h := range res.Open {
		got[h.ProducerID] = h
	}
	a, b := got[13], got[10]
	if a.CoordinatorState != analysis.CoordinatorOngoing || b.CoordinatorState != analysis.CoordinatorHanging {
		t.Fatalf("states: 13 %s (%s), 10 %s (%s)", a.CoordinatorState, a.Why, b.CoordinatorState, b.Why)
	}
	if !strings.Contains(b.Why, "CompleteCommit") {
		t.Errorf("why: %s", b.Why)
	}
	// Utils.abs("app-a".hashCode()) % 7, as computed by HashCode.
	want := CoordinatorPartition("app-a", 7)
	if a.CoordinatorPartition == nil || *a.CoordinatorPartition != want || a.TxnStatePartitions != 7 || a.PartitionCountFrom != CountFromMetadata {
		t.Errorf("coordinator partition: %+v", a.PartitionTxnRow)
	}
	sev := map[int64]finding.Severity{}
	for _, f := range res.Findings {
		sev[*f.ProducerID] = f.Severity
	}
	if sev[13] != finding.Note || sev[10] != finding.Warning {
		t.Errorf("severities: %v", sev)
	}
	// PID 13 has no marker in the partition and no snapshot: the broker
	// holds -1.
	if a.CoordinatorEpoch != -1 || !strings.HasSuffix(a.Abort, "--coordinator-epoch -1") {
		t.Errorf("unknown coordinator epoch: %d %s", a.CoordinatorEpoch, a.Abort)
	}
}

func TestCoordinatorEpochFromSnapshotAndCoordinatorLeaderEpoch(t *testing.T) {
	names := map[int64]string{13: "live-7"} // __transaction_state-34 of 50
	snaps := []analysis.SnapshotRow{{File: "orders-0/00000000000000000009.snapshot", EndOffset: 9, CRCValid: true, ProducerID: 10, CoordinatorEpoch: 9}}
	tr := New()
	rows := partitionBatches()
	// A batch of the coordinator partition, under leader epoch 6.
	rows = append(rows, analysis.BatchRow{Topic: "__transaction_state", Partition: 34, Segment: "__transaction_state-34/00000000000000000000.log",
		BaseOffset: 0, LastOffset: 0, RecordCount: 1, Magic: 2, ProducerID: -1, PartitionLeaderEpoch: 6})
	for i := range rows {
		tr.Batch(&rows[i])
	}
	res := tr.Transactions(TxnContext{TransactionalID: func(_ int32, _ string, pid int64) string { return names[pid] }, Snapshots: snaps,
		Broker: func(int32, string) int32 { return 2 }})
	for _, h := range res.Open {
		switch h.ProducerID {
		case 13:
			if h.CoordinatorEpoch != 6 || *h.CoordinatorPartition != 34 || h.PartitionCountFrom != CountFromDefault ||
				h.CoordinatorState != analysis.CoordinatorUnknown {
				t.Errorf("PID 13: %+v", h)
			}
			if h.FindHanging != "kafka-transactions.sh --bootstrap-server HOST:PORT find-hanging --broker-id 2" {
				t.Errorf("find-hanging: %s", h.FindHanging)
			}
		case 10:
			// Its own marker (4) wins over the snapshot (9).
			if h.CoordinatorEpoch != 4 {
				t.Errorf("PID 10: %d from %s", h.CoordinatorEpoch, h.EpochFrom)
			}
		}
	}
}

// A PID no record names is hanging when the input holds every partition
// of __transaction_state, unknown otherwise.
func TestUnnamedPIDWithCompleteTxnState(t *testing.T) {
	for _, complete := range []bool{false, true} {
		res := run(t, TxnContext{TxnStateComplete: func(int32, string) bool { return complete }})
		want := analysis.CoordinatorUnknown
		if complete {
			want = analysis.CoordinatorHanging
		}
		for _, h := range res.Open {
			if h.CoordinatorState != want {
				t.Errorf("complete %v: PID %d is %s, want %s", complete, h.ProducerID, h.CoordinatorState, want)
			}
		}
	}
}

// TestCoordinatorStateOfOwnCluster: the coordinator's state for an open
// transaction is read from the transaction's own cluster. Truth: the data
// is input 0's (cluster c1); input 1, also c1, holds the coordinator's
// Ongoing state for PID 13's transactional id with orders-0 in it; input
// 2, of cluster c2, holds a later CompleteCommit for the same id, another
// cluster's producer. PID 13's transaction is ongoing; without clusters
// known, no state is read for it from other inputs and it is unknown.
func TestCoordinatorStateOfOwnCluster(t *testing.T) {
	pid := int64(13)
	states := []analysis.TransactionRow{
		{Input: 1, TransactionalID: "app", State: "Ongoing", Partitions: "orders-0", ProducerID: &pid, Offset: 5, Segment: "__transaction_state-7/0.log"},
		{Input: 2, TransactionalID: "app", State: "CompleteCommit", ProducerID: &pid, Offset: 50, Segment: "__transaction_state-7/0.log"},
	}
	tid := func(_ int32, _ string, p int64) string {
		if p == pid {
			return "app"
		}
		return ""
	}
	clusters := map[int32]string{0: "c1", 1: "c1", 2: "c2"}
	for _, c := range []struct {
		cluster func(int32, string) string
		want    string
	}{
		{func(in int32, _ string) string { return clusters[in] }, analysis.CoordinatorOngoing},
		{nil, analysis.CoordinatorUnknown},
	} {
		res := run(t, TxnContext{TransactionalID: tid, TxnState: states, Cluster: c.cluster})
		found := false
		for _, h := range res.Open {
			if h.ProducerID == pid {
				found = true
				if h.CoordinatorState != c.want {
					t.Errorf("clusters known %v: PID 13 is %s (%s), want %s", c.cluster != nil, h.CoordinatorState, h.Why, c.want)
				}
			}
		}
		if !found {
			t.Errorf("PID 13's open transaction is not listed: %+v", res.Open)
		}
	}
}

// TestCoordinatorStateOfOwnLogDirCluster: one input holds log dirs of two
// clusters. Truth: PID 13's open transaction is in prod-1 (cluster prod);
// prod-2 holds prod's coordinator state, Ongoing with orders-0, and dr-1,
// of cluster dr, a later CompleteCommit for the same transactional id.
// PID 13's transaction is ongoing, and find-hanging names prod-1's broker.
func TestCoordinatorStateOfOwnLogDirCluster(t *testing.T) {
	pid := int64(13)
	states := []analysis.TransactionRow{
		{Input: 0, TransactionalID: "app", State: "Ongoing", Partitions: "orders-0", ProducerID: &pid, Offset: 5,
			Segment: "prod-2/__transaction_state-7/0.log"},
		{Input: 0, TransactionalID: "app", State: "CompleteCommit", ProducerID: &pid, Offset: 50, Segment: "dr-1/__transaction_state-7/0.log"},
	}
	logDir := func(dir string) string { return strings.SplitN(dir, "/", 2)[0] }
	c := TxnContext{TxnState: states,
		TransactionalID: func(_ int32, dir string, p int64) string {
			if p == pid && logDir(dir) == "prod-1" {
				return "app"
			}
			return ""
		},
		Cluster: func(_ int32, dir string) string { return strings.TrimRight(logDir(dir), "-0123456789") },
		Broker: func(_ int32, dir string) int32 {
			return map[string]int32{"prod-1": 1, "prod-2": 2, "dr-1": 1}[logDir(dir)]
		},
	}
	tr := New()
	b := data(10, 4, pid, 1, true, 2000)
	b.Segment = "prod-1/" + b.Segment
	tr.Batch(&b)
	res := tr.Transactions(c)
	if len(res.Open) != 1 {
		t.Fatalf("open transactions %+v", res.Open)
	}
	if h := res.Open[0]; h.CoordinatorState != analysis.CoordinatorOngoing || !strings.Contains(h.FindHanging, "--broker-id 1") {
		t.Errorf("PID 13 is %s (%s), find-hanging %q; want ongoing on broker 1", h.CoordinatorState, h.Why, h.FindHanging)
	}
}
