// Package txns rebuilds the transactions of every partition from its
// batches, the way the broker's producer state sees them: a transaction of
// a producer starts at its first transactional data batch and ends at the
// next COMMIT or ABORT marker of that producer id, whatever the epoch (a
// fencing abort carries the bumped epoch). From the transactions still
// open at the end of the input it computes each partition's last stable
// offset, which read_committed consumers cannot read past, and tells the
// hanging ones (those no coordinator will end) from those in progress.
//
//	t := txns.New()
//	for each batch of a partition dir, in offset order { t.Batch(&row) }
//	res := t.Finish(ctx)
//
// Pure computation: no files, no printing.
package txns

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// Coordinator states of an open transaction (PartitionTxnRow.CoordinatorState).
const (
	StateOngoing = "ongoing"
	StateHanging = "hanging"
	StateUnknown = "unknown"
)

// DefaultTxnStatePartitions is the broker's default
// transaction.state.log.num.partitions.
const DefaultTxnStatePartitions = 50

// Where the partition count of __transaction_state comes from.
const (
	CountFromMetadata = "metadata"
	CountFromDirs     = "partition-dirs"
	CountFromDefault  = "default"
)

type dirKey struct {
	input int32
	dir   string
}

type txn struct {
	row analysis.PartitionTxnRow
	seg string // the segment of its first batch
	pos int64  // and that batch's byte position
}

type part struct {
	key       dirKey
	topic     string
	partition int32
	open      map[int64]*txn // per producer id
	txns      []*txn
	logEnd    int64 // last offset + 1 of the greatest batch so far
	lastWrite *int64
	// leaderEpoch is the partition leader epoch of the last batch: of a
	// __transaction_state partition, the epoch its coordinator writes
	// markers with.
	leaderEpoch int32
}

// Tracker accumulates the transactions of every partition dir. Not safe
// for concurrent use.
type Tracker struct {
	parts map[dirKey]*part
	order []*part
	// Batches come in runs of one segment.
	lastIn  int32
	lastSeg string
	last    *part
}

// New returns an empty Tracker.
func New() *Tracker { return &Tracker{parts: map[dirKey]*part{}} }

// Batch adds one batch of a live segment. Batches of one partition dir
// must come in offset order.
func (t *Tracker) Batch(b *analysis.BatchRow) {
	if t.last == nil || b.Input != t.lastIn || b.Segment != t.lastSeg {
		k := dirKey{b.Input, analysis.PartitionDir(b.Segment)}
		p := t.parts[k]
		if p == nil {
			p = &part{key: k, topic: b.Topic, partition: b.Partition, open: map[int64]*txn{}}
			t.parts[k] = p
			t.order = append(t.order, p)
		}
		t.last, t.lastIn, t.lastSeg = p, b.Input, b.Segment
	}
	p := t.last
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

func (p *part) begin(b *analysis.BatchRow) *txn {
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

// Context is what the rest of the run knows that the transactions are
// judged with. Every field may be left zero.
type Context struct {
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

// Partition is one partition dir's stable-offset view.
type Partition struct {
	Type      string `json:"type"` // "lso"
	Input     int32  `json:"input"`
	Source    string `json:"source"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Dir       string `json:"dir"`
	// LogEndOffset is one past the last batch; HighWatermark the
	// checkpointed one (-1 unknown).
	LogEndOffset  int64 `json:"log_end_offset"`
	HighWatermark int64 `json:"high_watermark"`
	// LastStableOffset is what the broker computes: the first offset of
	// the earliest open transaction, capped by the high watermark (or,
	// without one, the log end). LSOFrom says which rule gave it.
	LastStableOffset int64  `json:"last_stable_offset"`
	LSOFrom          string `json:"lso_from"`
	// Invisible counts offsets from the LSO to the high watermark (or log
	// end) that read_committed consumers cannot read until it moves.
	Invisible int64 `json:"invisible_offsets"`
	// LastWrite is the greatest batch timestamp of the partition.
	LastWrite        *int64 `json:"last_write"`
	OpenTransactions int    `json:"open_transactions"`
	Transactions     int    `json:"transactions"`
}

// Hanging is an open transaction with what an operator would run for it.
type Hanging struct {
	Type string `json:"type"` // "open_transaction"
	analysis.PartitionTxnRow
	// OpenForMillis is how long it had been open at the last write in the
	// partition (null without timestamps).
	OpenForMillis *int64 `json:"open_for_ms"`
	// CoordinatorEpoch is the value for abort's --coordinator-epoch (-1
	// unknown) and EpochFrom where it was read.
	CoordinatorEpoch int32  `json:"coordinator_epoch"`
	EpochFrom        string `json:"coordinator_epoch_from"`
	// FindHanging and Abort are kafka-transactions.sh command lines;
	// ksleuth never runs them.
	FindHanging string `json:"find_hanging_command"`
	Abort       string `json:"abort_command"`
	Why         string `json:"why"`
	file        string
	pos         int64
}

// Result is the outcome of Finish.
type Result struct {
	Rows       []analysis.PartitionTxnRow
	Partitions []Partition
	Open       []Hanging
	Findings   []analysis.AnomalyRow
}

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

// Finish returns the transactions, sorted by input, topic, partition, dir
// and first offset, the partitions' stable offsets, the open
// transactions and one hanging-transaction finding per open transaction.
func (t *Tracker) Finish(c Context) *Result {
	count, from := c.TxnStatePartitions, c.CountFrom
	if count <= 0 {
		count, from = DefaultTxnStatePartitions, CountFromDefault
	}
	latest := c.latestState()
	coordEpochs := snapshotEpochs(c.Snapshots)
	res := &Result{}
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
	coordParts := map[coordKey]*part{}
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
		lp := Partition{Type: "lso", Input: p.key.input, Source: src, Topic: p.topic, Partition: p.partition, Dir: p.key.dir,
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
			h := Hanging{Type: "open_transaction", OpenForMillis: span(r.FirstTimestamp, p.lastWrite), Why: why, file: x.seg, pos: x.pos}
			h.CoordinatorEpoch, h.EpochFrom = coordinatorEpoch(p, r, coordEpochs)
			if cp := r.CoordinatorPartition; h.CoordinatorEpoch < 0 && cp != nil {
				if tp := coordParts[coordKey{c.originOf(r.Input, r.Dir), *cp}]; tp != nil && tp.leaderEpoch >= 0 {
					h.CoordinatorEpoch = tp.leaderEpoch
					h.EpochFrom = fmt.Sprintf("no marker of this producer in the partition (the broker holds -1 for it); the leader epoch of the last batch of %s, "+
						"the epoch its coordinator writes markers with", tp.key.dir)
				}
			}
			broker := int32(-1)
			if c.Broker != nil {
				broker = c.Broker(r.Input, r.Dir)
			}
			h.FindHanging, h.Abort = commands(r, broker, h.CoordinatorEpoch)
			h.PartitionTxnRow = *r
			res.Open = append(res.Open, h)
			res.Findings = append(res.Findings, openFinding(&h, &lp))
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

// origin is where a record was read: its input and the cluster of its
// log dir ("" unknown, or clusters not known).
type origin struct {
	input   int32
	cluster string
}

func (c Context) originOf(input int32, dir string) origin {
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
func (c Context) latestState() map[stateKey]*analysis.TransactionRow {
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
func (c Context) latestOf(latest map[stateKey]*analysis.TransactionRow, r *analysis.PartitionTxnRow) *analysis.TransactionRow {
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
		return StateHanging, "no record of __transaction_state, whose every partition the inputs of this cluster hold, names this producer id: no coordinator " +
			"knows the transaction, so none will write its marker (find-hanging's \"transactional id not found\" case)"
	}
	if r.TransactionalID == "" || strings.Contains(r.TransactionalID, ",") {
		return StateUnknown, "no __transaction_state record in the input names this producer id; whether its coordinator still tracks the transaction is unknown"
	}
	if s == nil {
		return StateUnknown, "the input's __transaction_state names no state for " + strconv.Quote(r.TransactionalID)
	}
	at := fmt.Sprintf("__transaction_state record at offset %d of %s", s.Offset, s.Segment)
	if s.Tombstone {
		return StateHanging, "the coordinator expired " + strconv.Quote(r.TransactionalID) + " (tombstone, " + at + "): no marker will come"
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
			return StateOngoing, fmt.Sprintf("the coordinator's last state is %s with %s in the transaction (%s): "+
				"it will write the marker, or abort at the transaction timeout",
				s.State, tp, at)
		}
	}
	what := fmt.Sprintf("the coordinator's last state for %q is %s", r.TransactionalID, s.State)
	if !pidOK && s.ProducerID != nil {
		what += fmt.Sprintf(" under producer id %d", *s.ProducerID)
	} else if !listed {
		what += " without " + tp
	}
	return StateHanging, what + " (" + at + "): no marker will come for this partition, unless the partition's copy was taken before the marker was written"
}

type pidEpoch struct {
	dir dirKey
	pid int64
}

// snapshotEpochs is the coordinator epoch of every producer in the newest
// snapshot of each partition dir.
func snapshotEpochs(snaps []analysis.SnapshotRow) map[pidEpoch]analysis.SnapshotRow {
	m := map[pidEpoch]analysis.SnapshotRow{}
	for _, s := range snaps {
		if !s.CRCValid {
			continue
		}
		k := pidEpoch{dirKey{s.Input, analysis.PartitionDir(s.File)}, s.ProducerID}
		if cur, ok := m[k]; !ok || s.EndOffset > cur.EndOffset {
			m[k] = s
		}
	}
	return m
}

// coordinatorEpoch is the epoch the broker holds for the producer in the
// partition: its last marker's, else the snapshot's. The broker rejects a
// marker whose coordinator epoch is below it.
func coordinatorEpoch(p *part, r *analysis.PartitionTxnRow, snaps map[pidEpoch]analysis.SnapshotRow) (int32, string) {
	for i := len(p.txns) - 1; i >= 0; i-- {
		x := &p.txns[i].row
		if x.ProducerID == r.ProducerID && x.MarkerCoordinatorEpoch != nil {
			return *x.MarkerCoordinatorEpoch, fmt.Sprintf("the producer's last marker in the partition, at offset %d", *x.EndOffset)
		}
	}
	if s, ok := snaps[pidEpoch{p.key, r.ProducerID}]; ok && s.CoordinatorEpoch >= 0 {
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
	abort := "kafka-transactions.sh --bootstrap-server HOST:PORT abort" +
		fmt.Sprintf(" --topic %s --partition %d", r.Topic, r.Partition) +
		fmt.Sprintf(" --producer-id %d --producer-epoch %d --coordinator-epoch %d", r.ProducerID, r.ProducerEpoch, epoch)
	return find, abort
}

// openFinding is the hanging-transaction finding of an open transaction:
// a warning when it holds back read_committed consumers with no
// coordinator known to end it, a note while its coordinator lists it.
func openFinding(h *Hanging, lp *Partition) analysis.AnomalyRow {
	sev := finding.Warning
	if h.CoordinatorState == StateOngoing {
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
	w := finding.Where{Input: h.Input, Topic: h.Topic, Partition: h.Partition, File: h.file}
	return finding.WithProducer(finding.NewSev(w, finding.KindHangingTransaction, sev, h.pos, h.FirstOffset, "%s", msg), h.ProducerID)
}

func bound(lp *Partition) string {
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
