package cluster

import (
	"sort"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Attribution says who owned each producer id: which transactional id held
// it (from __transaction_state) and which broker the controller gave its
// block to, and when (from ProducerIdsRecords of __cluster_metadata). Feed
// it every record of those topics with Add, then call Finish; lookups are
// valid after Finish.
type Attribution struct {
	// Cluster, when set, names the cluster of a partition dir of an input
	// (its log dir's cluster.id, "" when unknown); set it before Finish.
	// Facts read from one log dir then attribute the PIDs of every log dir
	// of the same non-empty cluster, in any input (a cluster's
	// __transaction_state and metadata log usually live on other brokers
	// than the data), and never those of another cluster's log dirs in the
	// same input (an archive of a cluster and its mirror). Log dirs of
	// unknown cluster share facts with those of the same input only. When
	// nil, each input is attributed from its own records only: inputs from
	// unrelated clusters reuse the same PIDs, and a wrong owner is worse
	// than none.
	Cluster func(input int32, dir string) string

	txns   []analysis.TransactionRow
	blocks []analysis.PIDBlockRow
	// Findings are records of the internal topics that did not decode.
	Findings []*topics.Finding

	byPID map[int64]map[origin][]string // PID -> origin -> transactional ids, sorted
	// txnOrigins are the origins of __transaction_state records;
	// rotations the origins recording each move of a transactional id
	// from one PID to another (previous or next producer id).
	txnOrigins map[origin]bool
	rotations  map[rotation][]origin
	// blockOrigins are the origins of blocks, by index.
	blockOrigins []origin
}

// origin is where a fact was read: the input and the cluster of the log
// dir ("" unknown). Facts speak for the partitions of the same origin
// first, then for those of the same known cluster (see sameCluster).
type origin struct {
	input   int32
	cluster string
}

type rotation struct {
	tid      string
	from, to int64
}

// NewAttribution returns an empty Attribution.
func NewAttribution() *Attribution { return &Attribution{} }

// Add takes one record of a scan. Records of other topics are ignored.
// input and path say where it was read; path is the file (segment or
// .checkpoint), batchPos the byte position of its batch; key and value are
// the record's (nil for null).
func (a *Attribution) Add(input int32, topic string, partition int32, path string, batchPos, offset int64, timestamp *int64,
	isControl bool, key, value []byte) {
	t := topics.TopicOf(topic)
	if t != topics.TransactionState && t != topics.ClusterMetadata || isControl {
		return
	}
	rec := &segment.Record{Offset: offset, Key: key, Value: value}
	d, err := topics.Decode(t, rec)
	if err != nil {
		a.Findings = append(a.Findings, &topics.Finding{Path: path, Position: batchPos, Offset: offset, Err: err})
	}
	switch {
	case d.TxnKey != nil && (d.TxnValue != nil || d.Tombstone):
		row := analysis.TransactionRow{Input: input, Topic: topic, Partition: partition, Segment: path, Offset: offset,
			Timestamp: timestamp, TransactionalID: d.TxnKey.TransactionalID, Tombstone: d.Tombstone}
		if v := d.TxnValue; v != nil {
			row.ValueVersion = i32p(int32(v.Version))
			row.ProducerID, row.ProducerEpoch = &v.ProducerID, i32p(int32(v.ProducerEpoch))
			row.State, row.TimeoutMs = v.State.String(), &v.TimeoutMs
			row.Partitions = v.PartitionList()
			row.LastUpdateTimestamp, row.StartTimestamp = analysis.Millis(v.LastUpdateMs), analysis.Millis(v.StartMs)
			if v.Version >= 1 {
				row.PreviousProducerID, row.NextProducerID = optPID(v.PreviousProducerID), optPID(v.NextProducerID)
				if v.NextProducerEpoch >= 0 {
					row.NextProducerEpoch = i32p(int32(v.NextProducerEpoch))
				}
				row.ClientTransactionVersion = i32p(int32(v.ClientTransactionVersion))
			}
		}
		a.txns = append(a.txns, row)
	case d.Metadata != nil && d.Metadata.APIKey == topics.APIProducerIds:
		p, ok := d.Metadata.Data.(*topics.ProducerIdsRecord)
		if !ok {
			return
		}
		src := "log"
		if k := snapshot.KindOf(baseName(path)); k == snapshot.KindKRaftSnapshot || k == snapshot.KindBootstrapCheckpoint {
			src = "snapshot"
		}
		a.blocks = append(a.blocks, analysis.PIDBlockRow{Input: input, File: path, Source: src, Offset: offset, Timestamp: timestamp,
			BrokerID: p.BrokerID, BrokerEpoch: p.BrokerEpoch, NextProducerID: p.NextProducerID,
			FirstProducerID: p.NextProducerID - topics.PIDBlockSize, LastProducerID: p.NextProducerID - 1})
	}
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func i32p(v int32) *int32 { return &v }

func optPID(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// Finish orders the rows, computes each transactional id's timeline
// (TransactionRow.Change) and builds the lookups.
func (a *Attribution) Finish() {
	sort.SliceStable(a.txns, func(i, j int) bool {
		x, y := &a.txns[i], &a.txns[j]
		if x.Input != y.Input {
			return x.Input < y.Input
		}
		if x.Partition != y.Partition {
			return x.Partition < y.Partition
		}
		return x.Offset < y.Offset
	})
	type key struct {
		origin
		tid string
	}
	last := map[key]*analysis.TransactionRow{}
	a.byPID = map[int64]map[origin][]string{}
	a.txnOrigins, a.rotations = map[origin]bool{}, map[rotation][]origin{}
	for i := range a.txns {
		r := &a.txns[i]
		o := a.originOf(r.Input, analysis.PartitionDir(r.Segment))
		k := key{o, r.TransactionalID}
		r.Change = change(last[k], r)
		if p := last[k]; p != nil {
			r.PreviousState = p.State
		}
		last[k] = r
		a.txnOrigins[o] = true
		if r.ProducerID != nil && r.PreviousProducerID != nil {
			k := rotation{r.TransactionalID, *r.PreviousProducerID, *r.ProducerID}
			a.rotations[k] = append(a.rotations[k], o)
		}
		if r.ProducerID != nil && r.NextProducerID != nil {
			k := rotation{r.TransactionalID, *r.ProducerID, *r.NextProducerID}
			a.rotations[k] = append(a.rotations[k], o)
		}
		for _, pid := range []*int64{r.ProducerID, r.PreviousProducerID, r.NextProducerID} {
			if pid != nil && *pid >= 0 {
				if a.byPID[*pid] == nil {
					a.byPID[*pid] = map[origin][]string{}
				}
				a.byPID[*pid][o] = addSorted(a.byPID[*pid][o], r.TransactionalID)
			}
		}
	}
	sort.SliceStable(a.blocks, func(i, j int) bool {
		x, y := &a.blocks[i], &a.blocks[j]
		if x.Input != y.Input {
			return x.Input < y.Input
		}
		if x.File != y.File {
			return x.File < y.File
		}
		return x.Offset < y.Offset
	})
	a.blockOrigins = make([]origin, len(a.blocks))
	for i := range a.blocks {
		a.blockOrigins[i] = a.originOf(a.blocks[i].Input, analysis.PartitionDir(a.blocks[i].File))
	}
}

// originOf is the origin of the partition dir dir of input.
func (a *Attribution) originOf(input int32, dir string) origin {
	if a.Cluster == nil {
		return origin{input: input}
	}
	return origin{input, a.Cluster(input, dir)}
}

func change(prev, r *analysis.TransactionRow) string {
	switch {
	case r.Tombstone:
		return "tombstone"
	case prev == nil || prev.Tombstone || prev.ProducerID == nil:
		return "first"
	case *r.ProducerID != *prev.ProducerID:
		return "pid-change"
	case *r.ProducerEpoch > *prev.ProducerEpoch:
		return "epoch-bump"
	case *r.ProducerEpoch < *prev.ProducerEpoch:
		return "epoch-regression"
	case r.State != prev.State:
		return "state"
	}
	return "unchanged"
}

func addSorted(s []string, v string) []string {
	i := sort.SearchStrings(s, v)
	if i < len(s) && s[i] == v {
		return s
	}
	return append(s[:i], append([]string{v}, s[i:]...)...)
}

// Transactions returns the transactions.parquet rows.
func (a *Attribution) Transactions() []analysis.TransactionRow { return a.txns }

// PIDBlocks returns the pid_blocks.parquet rows.
func (a *Attribution) PIDBlocks() []analysis.PIDBlockRow { return a.blocks }

// TransactionalID is the transactional id that held pid (as its producer
// id, or as previous/next producer id across a rotation), "" when none is
// known; several are joined with commas (never seen from a healthy
// coordinator). pid is that of the partition dir dir of input. Records
// read from the same input and cluster win; without any, those of the
// other inputs of the same cluster (see Cluster) count.
func (a *Attribution) TransactionalID(input int32, dir string, pid int64) string {
	return a.transactionalID(a.originOf(input, dir), pid)
}

func (a *Attribution) transactionalID(o origin, pid int64) string {
	m := a.byPID[pid]
	if ids, ok := m[o]; ok {
		return strings.Join(ids, ",")
	}
	var all []string
	for from, ids := range m {
		if !sameCluster(from, o) {
			continue
		}
		for _, id := range ids {
			all = addSorted(all, id)
		}
	}
	return strings.Join(all, ",")
}

// sameCluster tells whether facts of origin x speak for origin y: both
// are of one known cluster, or of one input and both of unknown cluster.
func sameCluster(x, y origin) bool {
	return x.cluster == y.cluster && (x.cluster != "" || x.input == y.input)
}

// Block returns the ProducerIdsRecord whose block holds pid (of the
// partition dir dir of input) and that names a broker, read from the same
// cluster (see Cluster): preferring the same input, then one read from a
// log (it
// carries the allocation time) over one from a snapshot. (A KRaft
// snapshot keeps only the next producer id, with broker id -1: such rows
// are in pid_blocks.parquet but attribute nothing.)
func (a *Attribution) Block(input int32, dir string, pid int64) (analysis.PIDBlockRow, bool) {
	return a.block(a.originOf(input, dir), pid)
}

func (a *Attribution) block(o origin, pid int64) (analysis.PIDBlockRow, bool) {
	input := o.input
	var best *analysis.PIDBlockRow
	rank := func(b *analysis.PIDBlockRow) int {
		r := 0
		if b.Input == input {
			r += 2
		}
		if b.Source == "log" {
			r++
		}
		return r
	}
	for i := range a.blocks {
		b := &a.blocks[i]
		if pid < b.FirstProducerID || pid > b.LastProducerID || b.BrokerID < 0 || !sameCluster(a.blockOrigins[i], o) {
			continue
		}
		if best == nil || rank(b) > rank(best) {
			best = b
		}
	}
	if best == nil {
		return analysis.PIDBlockRow{}, false
	}
	return *best, true
}

// Timeline returns the transaction-state rows of one transactional id, in
// input and offset order.
func (a *Attribution) Timeline(tid string) []analysis.TransactionRow {
	var out []analysis.TransactionRow
	for _, r := range a.txns {
		if r.TransactionalID == tid {
			out = append(out, r)
		}
	}
	return out
}

// AnnotateProducer fills the attribution columns of a producer session row.
func (a *Attribution) AnnotateProducer(r *analysis.ProducerRow) {
	o := a.originOf(r.Input, r.Dir)
	r.TransactionalID = a.transactionalID(o, r.ProducerID)
	if b, ok := a.block(o, r.ProducerID); ok {
		r.AllocatedByBroker = &b.BrokerID
	}
}

// AnnotateDuplicate fills the attribution columns of a duplicate row: its
// own PID's, and for a later copy the earlier PID's and the PID change
// between them (see PIDChange; the caller knows which classes are
// restarts). Both PIDs are looked up in the cluster of the copy's own
// partition dir: a duplicate is never of two clusters.
func (a *Attribution) AnnotateDuplicate(r *analysis.DuplicateRow) {
	o := a.originOf(r.Input, r.Dir)
	r.TransactionalID = a.transactionalID(o, r.ProducerID)
	if b, ok := a.block(o, r.ProducerID); ok {
		r.AllocatedByBroker = &b.BrokerID
	}
	if r.RefProducerID == nil {
		return
	}
	ref := *r.RefProducerID
	r.RefTransactionalID = a.transactionalID(o, ref)
	if b, ok := a.block(o, ref); ok {
		r.RefAllocatedByBroker = &b.BrokerID
	}
	r.PIDChange = a.pidChange(o, r.ProducerID, ref, r.TxnState != "" && r.TxnState != "none")
}

// PIDChange says how pid relates to the earlier refPID in the partition
// dir dir of input: one of the analysis.PIDChange* values, or "" when the
// PIDs are equal, either is -1, the transactional ids differ or nothing
// is known. transactional tells whether pid's copy was written in a
// transaction.
func (a *Attribution) PIDChange(input int32, dir string, pid, refPID int64, transactional bool) string {
	return a.pidChange(a.originOf(input, dir), pid, refPID, transactional)
}

func (a *Attribution) pidChange(o origin, pid, refPID int64, transactional bool) string {
	if pid == refPID || pid < 0 || refPID < 0 {
		return ""
	}
	tid, refTid := a.transactionalID(o, pid), a.transactionalID(o, refPID)
	switch {
	case tid != "" && tid == refTid && !strings.Contains(tid, ","):
		for _, from := range a.rotations[rotation{tid, refPID, pid}] {
			if sameCluster(from, o) {
				return analysis.PIDChangeRotation
			}
		}
		return analysis.PIDChangeNewUnderTxnID
	case tid == "" && refTid == "" && !transactional && a.hasTxnState(o):
		return analysis.PIDChangeIdempotentRestart
	}
	return ""
}

// hasTxnState tells whether __transaction_state records were read from
// o's origin or (see Cluster) from another of its cluster.
func (a *Attribution) hasTxnState(o origin) bool {
	for from := range a.txnOrigins {
		if sameCluster(from, o) {
			return true
		}
	}
	return false
}
