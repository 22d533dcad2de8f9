package producer

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
)

// DefaultTxnStatePartitions is the broker's default
// transaction.state.log.num.partitions.
const DefaultTxnStatePartitions = 50

// Where the partition count of __transaction_state comes from.
const (
	CountFromMetadata = "metadata"
	CountFromDirs     = "partition-dirs"
	CountFromDefault  = analysis.CountFromDefault
)

type txn struct {
	row analysis.PartitionTxnRow
	seg string // the segment of its first batch
	pos int64  // and that batch's byte position
}

// transaction adds a batch of partition dir p to its transactions.
func (p *dirState) transaction(b *analysis.BatchRow) {
	p.logEnd = max(p.logEnd, b.LastOffset+1)
	if b.Magic >= 2 {
		p.leaderEpoch = b.PartitionLeaderEpoch
	}
	if b.MaxTimestamp != nil && (p.lastWrite == nil || *b.MaxTimestamp > *p.lastWrite) {
		// Written in place once held: a new one at every batch would be
		// an allocation per batch.
		if p.lastWrite == nil {
			p.lastWrite = new(int64)
		}
		*p.lastWrite = *b.MaxTimestamp
	}
	if b.ProducerID < 0 || b.Magic < 2 || !b.IsTransactional {
		return
	}
	if b.IsControl {
		if b.ControlType != "COMMIT" && b.ControlType != "ABORT" {
			return
		}
		x := p.open[b.ProducerID]
		if x == nil {
			// A marker with no data before it: the partition was in the
			// transaction but got no write of it.
			x = p.begin(b)
			x.row.Empty, x.row.LastDataOffset = true, -1
		}
		delete(p.open, b.ProducerID)
		r := &x.row
		r.EndMarker = b.ControlType
		off := b.BaseOffset
		r.EndOffset = &off
		if b.HasMarker {
			e := b.MarkerEpoch
			r.MarkerCoordinatorEpoch = &e
		}
		r.EndTimestamp = copyTS(b.MaxTimestamp)
		if r.EndTimestamp == nil {
			r.EndTimestamp = copyTS(b.FirstTimestamp)
		}
		r.ProducerEpoch = max(r.ProducerEpoch, b.ProducerEpoch)
		r.DurationMillis = span(r.FirstTimestamp, r.EndTimestamp)
		return
	}
	x := p.open[b.ProducerID]
	if x == nil {
		x = p.begin(b)
		if p.open == nil {
			p.open = map[int64]*txn{}
		}
		p.open[b.ProducerID] = x
		x.row.FirstTimestamp = copyTS(b.FirstTimestamp)
	}
	r := &x.row
	r.ProducerEpoch = max(r.ProducerEpoch, b.ProducerEpoch)
	r.LastDataOffset = max(r.LastDataOffset, b.LastOffset)
	r.Batches++
	r.Records += int64(b.RecordCount)
	if r.FirstTimestamp == nil {
		r.FirstTimestamp = copyTS(b.FirstTimestamp)
	}
	if b.MaxTimestamp != nil && (r.LastTimestamp == nil || *b.MaxTimestamp > *r.LastTimestamp) {
		r.LastTimestamp = copyTS(b.MaxTimestamp)
	}
}

func (p *dirState) begin(b *analysis.BatchRow) *txn {
	x := &txn{row: analysis.PartitionTxnRow{Input: b.Input, Topic: b.Topic, Partition: b.Partition, Dir: p.key.dir,
		ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, FirstOffset: b.BaseOffset, LastDataOffset: -1}}
	x.seg, x.pos = b.Segment, b.Position
	p.txns = append(p.txns, x)
	return x
}

func copyTS(p *int64) *int64 {
	if p == nil || *p < 0 {
		return nil
	}
	v := *p
	return &v
}

func span(from, to *int64) *int64 {
	if from == nil || to == nil {
		return nil
	}
	d := *to - *from
	return &d
}

// TxnContext is what the rest of the run knows that the transactions are
// judged with. Every field may be left zero.
type TxnContext struct {
	// TransactionalID names the transactional id of a PID written to the
	// partition dir dir of input ("" unknown).
	TransactionalID func(input int32, dir string, pid int64) string
	// TxnState holds the records of __transaction_state, in input and
	// offset order (the attribution's transactions.parquet rows).
	TxnState []analysis.TransactionRow
	// TxnStatePartitions is the partition count of __transaction_state as
	// the input tells it (0: unknown), and CountFrom where it comes from.
	TxnStatePartitions int32
	CountFrom          string
	// TxnStateComplete tells whether the log dirs of the cluster of the
	// partition dir dir of input hold every partition of
	// __transaction_state (by a partition count from the metadata): a
	// producer id none of their records names then has no coordinator.
	TxnStateComplete func(input int32, dir string) bool
	// Cluster names the cluster of a partition dir of an input (its log
	// dir's cluster.id, "" unknown): the coordinator's state for a
	// transactional id is read from the log dirs of the transaction's own
	// cluster only, in any input; for a partition dir of unknown cluster,
	// from those of its input that are of unknown cluster too.
	Cluster func(input int32, dir string) string
	// HighWatermark is a partition's replication-offset-checkpoint entry
	// (-1 when there is none).
	HighWatermark func(input int32, topic string, partition int32) int64
	// Snapshots are the producer snapshot entries (snapshots.parquet).
	Snapshots []analysis.SnapshotRow
	// Broker is the broker id of the log dir of a partition dir of an
	// input (-1 unknown), for find-hanging.
	Broker func(input int32, dir string) int32
	// Source names an input.
	Source func(input int32) string
}

// StableOffset is one partition dir's stable-offset view: the last
// stable offset the broker computes (the first offset of the earliest open
// transaction, capped by the high watermark or, without one, the log end)
// and what holds it back. The outputs read it as the vocabulary's type.
type StableOffset = analysis.PartitionLSO

// TxnResult is the outcome of Transactions.
type TxnResult struct {
	Rows       []analysis.PartitionTxnRow
	Partitions []StableOffset
	Open       []analysis.OpenTxn
	Findings   []analysis.AnomalyRow
}

// Transactions returns the transactions, sorted by input, topic, partition, dir
// and first offset, the partitions' stable offsets, the open
// transactions and one hanging-transaction finding per open transaction.
func (t *Tracker) Transactions(c TxnContext) *TxnResult {
	count, from := c.TxnStatePartitions, c.CountFrom
	if count <= 0 {
		count, from = DefaultTxnStatePartitions, CountFromDefault
	}
	latest := c.latestState()
	coordEpochs := snapshotEpochs(c.Snapshots)
	res := &TxnResult{}
	sort.SliceStable(t.order, func(i, j int) bool {
		a, b := t.order[i], t.order[j]
		switch {
		case a.key.input != b.key.input:
			return a.key.input < b.key.input
		case a.topic != b.topic:
			return a.topic < b.topic
		case a.partition != b.partition:
			return a.partition < b.partition
		}
		return a.key.dir < b.key.dir
	})
	// A coordinator partition speaks for the transactions of its own
	// input and cluster.
	type coordKey struct {
		origin
		partition int32
	}
	coordParts := map[coordKey]*dirState{}
	for _, p := range t.order {
		if p.topic == "__transaction_state" {
			coordParts[coordKey{c.originOf(p.key.input, p.key.dir), p.partition}] = p
		}
	}
	for _, p := range t.order {
		if len(p.txns) == 0 {
			continue
		}
		src := ""
		if c.Source != nil {
			src = c.Source(p.key.input)
		}
		hw := int64(-1)
		if c.HighWatermark != nil && p.partition >= 0 {
			hw = c.HighWatermark(p.key.input, p.topic, p.partition)
		}
		lp := StableOffset{Type: "lso", Input: p.key.input, Source: src, Topic: p.topic, Partition: p.partition, Dir: p.key.dir,
			LogEndOffset: p.logEnd, HighWatermark: hw, LastWrite: p.lastWrite, Transactions: len(p.txns)}
		bound, boundFrom := p.logEnd, "log end"
		if hw >= 0 {
			bound, boundFrom = hw, "high watermark"
		}
		var earliest *txn
		for _, x := range p.txns {
			if _, ok := p.open[x.row.ProducerID]; ok && p.open[x.row.ProducerID] == x {
				x.row.Open = true
				lp.OpenTransactions++
				if earliest == nil || x.row.FirstOffset < earliest.row.FirstOffset {
					earliest = x
				}
			}
		}
		lp.LastStableOffset, lp.LSOFrom = bound, boundFrom
		if earliest != nil && earliest.row.FirstOffset < bound {
			earliest.row.HoldsLSO = true
			lp.LastStableOffset, lp.LSOFrom = earliest.row.FirstOffset, "open transaction"
		}
		lp.Invisible = max(bound-lp.LastStableOffset, 0)
		for _, x := range p.txns {
			r := &x.row
			r.Source = src
			if c.TransactionalID != nil {
				r.TransactionalID = c.TransactionalID(r.Input, r.Dir, r.ProducerID)
			}
			r.TxnStatePartitions, r.PartitionCountFrom = count, from
			if r.TransactionalID != "" && !strings.Contains(r.TransactionalID, ",") {
				cp := CoordinatorPartition(r.TransactionalID, count)
				r.CoordinatorPartition = &cp
			}
			if !r.Open {
				continue
			}
			r.DurationMillis = span(r.FirstTimestamp, p.lastWrite)
			complete := c.TxnStateComplete != nil && c.TxnStateComplete(r.Input, r.Dir)
			st, why := judge(r, c.latestOf(latest, r), complete)
			r.CoordinatorState = st
			h := analysis.OpenTxn{Type: "open_transaction", OpenForMillis: span(r.FirstTimestamp, p.lastWrite), Why: why}
			h.CoordinatorEpoch, h.EpochFrom = coordinatorEpoch(p, r, coordEpochs)
			if cp := r.CoordinatorPartition; h.CoordinatorEpoch < 0 && cp != nil {
				if tp := coordParts[coordKey{c.originOf(r.Input, r.Dir), *cp}]; tp != nil && tp.leaderEpoch >= 0 {
					h.CoordinatorEpoch = tp.leaderEpoch
					h.EpochFrom = fmt.Sprintf("no marker of this producer in the partition (the broker holds -1 for it); "+
						"the leader epoch of the last batch of %s, the epoch its coordinator writes markers with", tp.key.dir)
				}
			}
			broker := int32(-1)
			if c.Broker != nil {
				broker = c.Broker(r.Input, r.Dir)
			}
			h.FindHanging, h.Abort = commands(r, broker, h.CoordinatorEpoch)
			h.PartitionTxnRow = *r
			res.Open = append(res.Open, h)
			res.Findings = append(res.Findings, openFinding(&h, &lp, x))
		}
		res.Partitions = append(res.Partitions, lp)
		for _, x := range p.txns {
			res.Rows = append(res.Rows, x.row)
		}
	}
	sort.SliceStable(res.Rows, func(i, j int) bool {
		a, b := &res.Rows[i], &res.Rows[j]
		return cmp.Or(analysis.CopyOrder{Input: a.Input, Topic: a.Topic, Partition: a.Partition, Dir: a.Dir}.Compare(
			analysis.CopyOrder{Input: b.Input, Topic: b.Topic, Partition: b.Partition, Dir: b.Dir}),
			cmp.Compare(a.FirstOffset, b.FirstOffset)) < 0
	})
	return res
}
