package producer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// HashCode is Java's String.hashCode over the UTF-16 code units of s.
func HashCode(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// CoordinatorPartition is Kafka's TransactionStateManager.partitionFor:
// Utils.abs(transactionalId.hashCode()) % partitions, where Utils.abs maps
// Integer.MIN_VALUE to 0.
func CoordinatorPartition(tid string, partitions int32) int32 {
	if partitions <= 0 {
		return -1
	}
	h := HashCode(tid)
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % partitions
}

// origin is where a record was read: its input and the cluster of its
// log dir ("" unknown, or clusters not known).
type origin struct {
	input   int32
	cluster string
}

func (c TxnContext) originOf(input int32, dir string) origin {
	if c.Cluster == nil {
		return origin{input: input}
	}
	return origin{input, c.Cluster(input, dir)}
}

type stateKey struct {
	origin
	tid string
}

// latestState keeps the last __transaction_state record of every
// transactional id, per input and cluster.
func (c TxnContext) latestState() map[stateKey]*analysis.TransactionRow {
	m := map[stateKey]*analysis.TransactionRow{}
	for i := range c.TxnState {
		r := &c.TxnState[i]
		k := stateKey{c.originOf(r.Input, analysis.PartitionDir(r.Segment)), r.TransactionalID}
		if cur := m[k]; cur == nil || r.Offset >= cur.Offset {
			m[k] = r
		}
	}
	return m
}

// latestOf is the coordinator's last state for r's transactional id: read
// from r's own input and cluster when they hold one, else from the input
// of r's cluster whose copy of the state goes furthest (the least input of
// a tie), nil when none does.
func (c TxnContext) latestOf(latest map[stateKey]*analysis.TransactionRow, r *analysis.PartitionTxnRow) *analysis.TransactionRow {
	o := c.originOf(r.Input, r.Dir)
	if s := latest[stateKey{o, r.TransactionalID}]; s != nil {
		return s
	}
	if o.cluster == "" || r.TransactionalID == "" {
		return nil
	}
	var s *analysis.TransactionRow
	for k, v := range latest {
		if k.tid != r.TransactionalID || k.cluster != o.cluster {
			continue
		}
		if s == nil || v.Offset > s.Offset || v.Offset == s.Offset && v.Input < s.Input {
			s = v
		}
	}
	return s
}

// judge tells an open transaction in progress from a hanging one by what
// the coordinator last wrote for its transactional id (s, nil when the
// inputs hold nothing of it), the way kafka-transactions.sh find-hanging
// asks the live coordinator.
func judge(r *analysis.PartitionTxnRow, s *analysis.TransactionRow, complete bool) (string, string) {
	if r.TransactionalID == "" && complete {
		return analysis.CoordinatorHanging,
			"no record of __transaction_state, whose every partition the inputs of this cluster hold, names this producer id: no coordinator " +
				"knows the transaction, so none will write its marker (find-hanging's \"transactional id not found\" case)"
	}
	if r.TransactionalID == "" || strings.Contains(r.TransactionalID, ",") {
		return analysis.CoordinatorUnknown,
			"no __transaction_state record in the input names this producer id; whether its coordinator still tracks the transaction is unknown"
	}
	if s == nil {
		return analysis.CoordinatorUnknown, "the input's __transaction_state names no state for " + strconv.Quote(r.TransactionalID)
	}
	at := fmt.Sprintf("__transaction_state record at offset %d of %s", s.Offset, s.Segment)
	if s.Tombstone {
		return analysis.CoordinatorHanging, "the coordinator expired " + strconv.Quote(r.TransactionalID) + " (tombstone, " + at + "): no marker will come"
	}
	tp := fmt.Sprintf("%s-%d", r.Topic, r.Partition)
	listed := false
	for _, x := range strings.Split(s.Partitions, ",") {
		listed = listed || x == tp
	}
	pidOK := s.ProducerID != nil && *s.ProducerID == r.ProducerID
	switch s.State {
	case "Ongoing", "PrepareCommit", "PrepareAbort", "PrepareEpochFence":
		if pidOK && listed {
			return analysis.CoordinatorOngoing, fmt.Sprintf("the coordinator's last state is %s with %s in the transaction (%s): "+
				"it will write the marker, or abort at the transaction timeout", s.State, tp, at)
		}
	}
	what := fmt.Sprintf("the coordinator's last state for %q is %s", r.TransactionalID, s.State)
	if !pidOK && s.ProducerID != nil {
		what += fmt.Sprintf(" under producer id %d", *s.ProducerID)
	} else if !listed {
		what += " without " + tp
	}
	return analysis.CoordinatorHanging,
		what + " (" + at + "): no marker will come for this partition, unless the partition's copy was taken before the marker was written"
}

// dirPID is a producer id in a partition dir.
type dirPID struct {
	dir dirKey
	pid int64
}

// snapshotEpochs is the coordinator epoch of every producer in the newest
// snapshot of each partition dir.
func snapshotEpochs(snaps []analysis.SnapshotRow) map[dirPID]analysis.SnapshotRow {
	m := map[dirPID]analysis.SnapshotRow{}
	for _, s := range snaps {
		if !s.CRCValid {
			continue
		}
		k := dirPID{dirKey{s.Input, analysis.PartitionDir(s.File)}, s.ProducerID}
		if cur, ok := m[k]; !ok || s.EndOffset > cur.EndOffset {
			m[k] = s
		}
	}
	return m
}

// coordinatorEpoch is the epoch the broker holds for the producer in the
// partition: its last marker's, else the snapshot's. The broker rejects a
// marker whose coordinator epoch is below it.
func coordinatorEpoch(p *dirState, r *analysis.PartitionTxnRow, snaps map[dirPID]analysis.SnapshotRow) (int32, string) {
	for i := len(p.txns) - 1; i >= 0; i-- {
		x := &p.txns[i].row
		if x.ProducerID == r.ProducerID && x.MarkerCoordinatorEpoch != nil {
			return *x.MarkerCoordinatorEpoch, fmt.Sprintf("the producer's last marker in the partition, at offset %d", *x.EndOffset)
		}
	}
	if s, ok := snaps[dirPID{p.key, r.ProducerID}]; ok && s.CoordinatorEpoch >= 0 {
		return s.CoordinatorEpoch, "the producer's entry in " + s.File
	}
	return -1, "no marker of this producer in the partition and no snapshot entry with one: " +
		"the broker holds -1 for it, unless a marker older than the input's data set more"
}

// commands are the kafka-transactions.sh lines an operator would run.
func commands(r *analysis.PartitionTxnRow, broker, epoch int32) (string, string) {
	find := "kafka-transactions.sh --bootstrap-server HOST:PORT find-hanging"
	if broker >= 0 {
		find += fmt.Sprintf(" --broker-id %d", broker)
	} else {
		find += fmt.Sprintf(" --topic %s --partition %d", r.Topic, r.Partition)
	}
	abort := fmt.Sprintf("kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic %s --partition %d "+
		"--producer-id %d --producer-epoch %d --coordinator-epoch %d", r.Topic, r.Partition, r.ProducerID, r.ProducerEpoch, epoch)
	return find, abort
}

// openFinding is the hanging-transaction finding of an open transaction:
// a warning when it holds back read_committed consumers with no
// coordinator known to end it, a note while its coordinator lists it.
func openFinding(h *analysis.OpenTxn, lp *StableOffset, x *txn) analysis.AnomalyRow {
	sev := finding.Warning
	if h.CoordinatorState == analysis.CoordinatorOngoing {
		sev = finding.Note
	}
	open := "an unknown time"
	if h.OpenForMillis != nil {
		open = fmtDuration(*h.OpenForMillis)
	}
	msg := fmt.Sprintf("producer %d epoch %d: transaction open since offset %d (%d records), %s at the partition's last write; ",
		h.ProducerID, h.ProducerEpoch, h.FirstOffset, h.Records, open)
	if h.HoldsLSO {
		msg += fmt.Sprintf("it holds the last stable offset at %d, %d offsets below the %s are invisible to read_committed consumers; ",
			lp.LastStableOffset, lp.Invisible, bound(lp))
	}
	msg += h.CoordinatorState + ": " + h.Why
	w := finding.Where{Input: h.Input, Topic: h.Topic, Partition: h.Partition, File: x.seg}
	return finding.WithProducer(finding.NewSev(w, finding.KindHangingTransaction, sev, x.pos, h.FirstOffset, "%s", msg), h.ProducerID)
}

func bound(lp *StableOffset) string {
	if lp.HighWatermark >= 0 {
		return "high watermark"
	}
	return "log end"
}

func fmtDuration(ms int64) string {
	switch {
	case ms < 0:
		return fmt.Sprintf("%d ms (clocks disagree)", ms)
	case ms < 10_000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 3_600_000:
		return fmt.Sprintf("%.1f min", float64(ms)/60_000)
	}
	return fmt.Sprintf("%.1f h", float64(ms)/3_600_000)
}
