package pipeline

import (
	"encoding/hex"
	"path"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/consumers"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/producer"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/snapshot"
)

// feed hands the streamed rows of a scan to the producer sessions, the
// duplicate detector and the attribution of the internal topics.
type feed struct {
	tracker *producer.Tracker
	det     *dups.Detector // nil: no duplicate detection
	hasher  *dups.Hasher
	attr    *attributor // nil: no attribution
	// cons reads __consumer_offsets (with attribution).
	cons *consumers.Collector
	live liveFilter

	lastSeg  string
	lastIn   int32
	lastPart dups.PartID
	batch    batchStart
}

// batchStart follows the batches of record rows in file order: the offset
// of the first record of the batch being read, for the detector to tell
// two copies in one batch (never a retry) from two batches.
type batchStart struct {
	in     int32
	seg    string
	pos    int64
	start  int64
	active bool
}

func (b *batchStart) of(in int32, seg string, pos, off int64) int64 {
	if !b.active || in != b.in || seg != b.seg || pos != b.pos {
		*b = batchStart{in: in, seg: seg, pos: pos, start: off, active: true}
	}
	return b.start
}

// needPayload tells whether records must carry keys, values and headers:
// a fingerprint over other parts than the default is computed here.
func (f *feed) needPayload() bool { return f.det != nil && !f.hasher.Default() }

// entries feeds the detector from scan's compact entries (scan.Config.
// Compact), exactly as records does from rows.
func (f *feed) entries(bs []scan.EntryBatch) error {
	if f.det == nil {
		return nil
	}
	for i := range bs {
		b := &bs[i]
		if !f.live.is(b.Segment) || f.live.raft(b.Topic) {
			continue
		}
		if b.Input != f.lastIn || b.Segment != f.lastSeg {
			f.lastIn, f.lastSeg = b.Input, b.Segment
			f.lastPart = f.det.Partition(b.Input, b.Source, b.Topic, b.Partition, analysis.PartitionDir(b.Segment))
		}
		if err := f.det.AddBatch(f.lastPart, b.ProducerID, int16(b.ProducerEpoch), b.Damaged, b.LogAppendTime, b.Entries); err != nil {
			return err
		}
	}
	return nil
}

// records takes all rows for the attribution, and adds the data records
// of live segments, rows, to the detector. With a hasher over other
// parts it replaces each row's fingerprint by the one over the chosen
// parts, so that the records table holds what duplicates were judged on
// (and dups --from-tables can judge them again).
func (f *feed) records(all, rows []analysis.PayloadRecordRow) error {
	if f.attr != nil {
		f.attr.records(all)
	}
	if f.cons != nil {
		// Commits of live segments only: a segment in transit (.swap,
		// .cleaned, .deleted) repeats commits of the live log.
		f.cons.Add(rows)
	}
	if f.det == nil {
		return nil
	}
	for i := range rows {
		r := &rows[i]
		if r.IsControl || f.live.raft(r.Topic) {
			continue
		}
		if r.Input != f.lastIn || r.Segment != f.lastSeg {
			f.lastIn, f.lastSeg = r.Input, r.Segment
			f.lastPart = f.det.Partition(r.Input, r.Source, r.Topic, r.Partition, analysis.PartitionDir(r.Segment))
		}
		rec := dups.Record{Part: f.lastPart, Offset: r.Offset, Timestamp: -1, ProducerID: r.ProducerID,
			Epoch: int16(r.ProducerEpoch), Sequence: r.Sequence, Txn: analysis.ParseTxnState(r.TxnState),
			Damaged: r.Damaged, HasBatch: true}
		rec.BatchStart = f.batch.of(r.Input, r.Segment, r.BatchPosition, r.Offset)
		if r.Timestamp != nil {
			rec.Timestamp = *r.Timestamp
		}
		switch {
		case f.hasher.Default() && r.HasFP:
			rec.Fingerprint = r.FP
		case f.hasher.Default():
			fp, err := dups.ParseFingerprint(r.Fingerprint)
			if err != nil {
				return err
			}
			rec.Fingerprint = fp
		default:
			rec.Fingerprint = f.hasher.Sum(r.Key, r.Value, r.Headers)
			r.Fingerprint = hex.EncodeToString(rec.Fingerprint[:])
		}
		if err := f.det.Add(&rec); err != nil {
			return err
		}
	}
	return nil
}

// attributor gathers the records of __transaction_state and
// __cluster_metadata and, once finished, names the transactional id and
// the allocating broker of producer ids.
type attributor struct {
	a *cluster.Attribution
	// configs replays the metadata log's topic configs: a topic with
	// cleanup.policy=compact explains the gaps of its partitions.
	configs *cluster.TopicConfigs
	events  *cluster.ClusterEvents
	// remote folds __remote_log_metadata: the segments of tiered topics.
	remote    *cluster.RemoteSegments
	anomalies []analysis.AnomalyRow
	// lastTopic caches whether the topic of the previous row is one the
	// attribution reads: rows come in runs of one topic.
	lastTopic string
	lastRead  bool
}

func newAttributor() *attributor {
	return &attributor{a: cluster.NewAttribution(), configs: cluster.NewTopicConfigs(), events: cluster.NewClusterEvents(),
		remote: cluster.NewRemoteSegments()}
}

// records takes streamed record rows; rows of the two internal topics carry
// their key and value (package scan fills them for these topics).
func (t *attributor) records(rows []analysis.PayloadRecordRow) {
	for i := range rows {
		r := &rows[i]
		if r.IsControl {
			continue
		}
		if r.Topic != t.lastTopic {
			k := topics.TopicOf(r.Topic)
			t.lastTopic, t.lastRead = r.Topic, k == topics.TransactionState || k == topics.ClusterMetadata || k == topics.RemoteLogMetadata
		}
		if !t.lastRead {
			continue
		}
		if topics.TopicOf(r.Topic) == topics.RemoteLogMetadata {
			t.remoteRecord(r)
			continue
		}
		if topics.TopicOf(r.Topic) == topics.ClusterMetadata {
			// Its decode problems are the attribution's findings below.
			if m, err := topics.DecodeMetadata(r.Value); err == nil {
				t.configs.Apply(m)
				if metadataHistory(r.Segment) {
					t.events.Add(r.Input, r.Segment, r.Offset, r.Timestamp, m)
				}
			}
		}
		n := len(t.a.Findings)
		t.a.Add(r.Input, r.Topic, r.Partition, r.Segment, r.BatchPosition, r.Offset, r.Timestamp, r.IsControl, r.Key, r.Value)
		for _, f := range t.a.Findings[n:] {
			w := finding.Where{Input: r.Input, Topic: r.Topic, Partition: r.Partition, File: r.Segment}
			t.anomalies = append(t.anomalies, finding.FromDecode(w, f.Kind(), f.Position, f.Offset, f.Err))
		}
	}
}

// remoteRecord folds a __remote_log_metadata record into the remote
// segments; one that does not decode is a finding.
func (t *attributor) remoteRecord(r *analysis.PayloadRecordRow) {
	m, err := topics.DecodeRemoteLogMetadata(r.Value)
	if err != nil {
		w := finding.Where{Input: r.Input, Topic: r.Topic, Partition: r.Partition, File: r.Segment}
		t.anomalies = append(t.anomalies, finding.FromDecode(w, topics.Kind(err), r.BatchPosition, r.Offset, err))
	}
	if m.Complete() {
		t.remote.Add(r.Input, r.Segment, r.Offset, m)
	}
}

// internalTopic reports whether the records of topic carry their key and
// value in every run: those of __transaction_state, __cluster_metadata,
// __consumer_offsets and __remote_log_metadata, which the attribution, the
// consumers and the remote segments' fold decode.
func internalTopic(topic string) bool {
	switch topics.TopicOf(topic) {
	case topics.TransactionState, topics.ClusterMetadata, topics.ConsumerOffsets, topics.RemoteLogMetadata:
		return true
	}
	return false
}

// metadataHistory reports whether a file's metadata records are the
// cluster's history: the live log, and the KRaft snapshots that set the
// state its changes are judged against; not a segment in transit, which
// repeats records of the live log.
func metadataHistory(seg string) bool {
	n := snapshot.ParseName(path.Base(seg))
	return n.Suffix == "" && !n.Leftover && (n.Kind == snapshot.KindLog || n.Kind == snapshot.KindKRaftSnapshot)
}

// liveFilter keeps the records of live segments: a KRaft snapshot's
// records have their own offsets, from 0, and a segment in transit
// (.deleted, .cleaned, .swap) repeats records of the live log, so neither
// is a partition's record for the records table or the duplicates.
type liveFilter struct {
	last    string
	lastIs  bool
	scratch []analysis.PayloadRecordRow
	topic   string
	isRaft  bool
}

// raft reports whether topic is __cluster_metadata: the controllers' own
// log, whose records (NoOp heartbeats among them) no producer wrote, so
// they are never duplicates of anything.
func (l *liveFilter) raft(topic string) bool {
	if topic != l.topic {
		l.topic, l.isRaft = topic, topics.TopicOf(topic) == topics.ClusterMetadata
	}
	return l.isRaft
}

func (l *liveFilter) is(seg string) bool {
	if seg != l.last {
		n := snapshot.ParseName(path.Base(seg))
		l.last, l.lastIs = seg, n.Kind == snapshot.KindLog && n.Suffix == "" && !n.Leftover
	}
	return l.lastIs
}

// rows returns rows without those of other files, rows itself when all
// are live (the common case: no copy).
func (l *liveFilter) rows(rows []analysis.PayloadRecordRow) []analysis.PayloadRecordRow {
	all := true
	for i := range rows {
		if !l.is(rows[i].Segment) {
			all = false
			break
		}
	}
	if all {
		return rows
	}
	l.scratch = l.scratch[:0]
	for i := range rows {
		if l.is(rows[i].Segment) {
			l.scratch = append(l.scratch, rows[i])
		}
	}
	return l.scratch
}
