package pipeline

import (
	"encoding/hex"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/producers"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// feed hands the streamed rows of a scan to the producer sessions, the
// duplicate detector and the attribution of the internal topics.
type feed struct {
	tracker *producers.Tracker
	det     *dups.Detector // nil: no duplicate detection
	hasher  *dups.Hasher
	attr    *attributor // nil: no attribution

	lastSeg  string
	lastIn   int32
	lastPart dups.PartID
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
		if b.Input != f.lastIn || b.Segment != f.lastSeg {
			f.lastIn, f.lastSeg = b.Input, b.Segment
			f.lastPart = f.det.Partition(b.Input, b.Source, b.Topic, b.Partition, producers.DirOf(b.Segment))
		}
		if err := f.det.AddBatch(f.lastPart, b.ProducerID, int16(b.ProducerEpoch), b.Damaged, b.Entries); err != nil {
			return err
		}
	}
	return nil
}

// records adds the data records to the detector. With a hasher over other
// parts it replaces each row's fingerprint by the one over the chosen
// parts, so that the records table holds what duplicates were judged on
// (and dups --from-tables can judge them again).
func (f *feed) records(rows []analysis.PayloadRecordRow) error {
	if f.attr != nil {
		f.attr.records(rows)
	}
	if f.det == nil {
		return nil
	}
	for i := range rows {
		r := &rows[i]
		if r.IsControl {
			continue
		}
		if r.Input != f.lastIn || r.Segment != f.lastSeg {
			f.lastIn, f.lastSeg = r.Input, r.Segment
			f.lastPart = f.det.Partition(r.Input, r.Source, r.Topic, r.Partition, producers.DirOf(r.Segment))
		}
		rec := dups.Record{Part: f.lastPart, Offset: r.Offset, Timestamp: -1, ProducerID: r.ProducerID,
			Epoch: int16(r.ProducerEpoch), Sequence: r.Sequence, Txn: dups.ParseTxnState(r.TxnState),
			Damaged: r.Damaged}
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
	a         *topics.Attribution
	anomalies []analysis.AnomalyRow
	// lastTopic caches whether the topic of the previous row is one the
	// attribution reads: rows come in runs of one topic.
	lastTopic string
	lastRead  bool
}

func newAttributor() *attributor { return &attributor{a: topics.NewAttribution()} }

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
			t.lastTopic, t.lastRead = r.Topic, k == topics.TransactionState || k == topics.ClusterMetadata
		}
		if !t.lastRead {
			continue
		}
		n := len(t.a.Findings)
		t.a.Add(r.Input, r.Topic, r.Partition, r.Segment, r.BatchPosition, r.Offset, r.Timestamp, r.IsControl, r.Key, r.Value)
		for _, f := range t.a.Findings[n:] {
			kind := f.Kind()
			sev := "error"
			if kind == "unknown-version" || kind == "unknown-type" {
				sev = "warning"
			}
			topic, part := r.Topic, r.Partition
			t.anomalies = append(t.anomalies, analysis.AnomalyRow{Input: r.Input, Topic: &topic, Partition: &part,
				Kind: kind, Severity: sev, File: r.Segment, Position: &f.Position, Offset: &f.Offset, Message: f.Err.Error()})
		}
	}
}
