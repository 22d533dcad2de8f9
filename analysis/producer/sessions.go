package producer

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// Anomaly kinds, reported with their default severity: producers and
// brokers can leave these behind legitimately (compaction removes whole
// batches; recovery applies batches without sequence checks), so they are
// warnings, not damage.
const (
	KindSequenceGap        = finding.KindSequenceGap
	KindSequenceRegression = finding.KindSequenceRegression
	KindEpochRegression    = finding.KindEpochRegression
)

type sessionKey struct {
	dirKey
	pidEpoch
}

// pidEpoch keys a session within its partition dir: the dir's string is
// hashed once per segment, not at every batch.
type pidEpoch struct {
	pid   int64
	epoch int32
}

type session struct {
	row      analysis.ProducerRow
	hasData  bool
	lastSeq  int32 // last sequence of the last sound data batch, -1 before
	lastBase int64 // base offset of that batch
}

type anomaly struct {
	d   *dirState
	row analysis.AnomalyRow
}

// incrementSequence is Kafka's DefaultRecordBatch.incrementSequence.
func incrementSequence(seq, delta int32) int32 {
	if seq > math.MaxInt32-delta {
		return delta - (math.MaxInt32 - seq) - 1
	}
	return seq + delta
}

// session adds a batch of partition dir d to its producer session.
func (t *Tracker) session(d *dirState, b *analysis.BatchRow) {
	if d.seen && b.BaseOffset > d.prevLast+1 {
		d.compacted = true
	}
	if b.Magic >= 2 && !b.IsControl && int64(b.RecordCount) < b.LastOffset-b.BaseOffset+1 {
		d.compacted = true
	}
	d.prevLast, d.seen = max(d.prevLast, b.LastOffset), true
	if b.ProducerID < 0 || b.Magic < 2 {
		return
	}
	if max, ok := d.maxEpoch[b.ProducerID]; ok && b.ProducerEpoch < max {
		t.anomaly(d, b, KindEpochRegression, fmt.Sprintf("producer %d: epoch %d after epoch %d at offset %d (a fenced or restored producer)",
			b.ProducerID, b.ProducerEpoch, max, b.BaseOffset))
	} else if !ok || b.ProducerEpoch != max {
		d.maxEpoch[b.ProducerID] = b.ProducerEpoch
	}
	k := pidEpoch{b.ProducerID, b.ProducerEpoch}
	s := t.lastSession
	if s == nil || k != t.lastKey {
		s = d.sessions[k]
		if s == nil {
			s = &session{row: analysis.ProducerRow{Input: b.Input, Topic: b.Topic, Partition: b.Partition, Dir: d.key.dir,
				ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, FirstOffset: b.BaseOffset, LastOffset: b.LastOffset,
				FirstSequence: -1, LastSequence: -1}, lastSeq: -1}
			d.sessions[k] = s
		}
		t.lastSession, t.lastKey = s, k
	}
	r := &s.row
	damaged := b.Damaged()
	if b.IsControl {
		switch b.ControlType {
		case "COMMIT":
			r.Commits++
		case "ABORT":
			r.Aborts++
		}
		// A marker ends the PID's open transaction, whatever its epoch
		// (a fencing ABORT carries the bumped epoch).
		delete(d.inTxn, b.ProducerID)
		if !s.hasData {
			r.LastOffset = max(r.LastOffset, b.LastOffset)
			r.FirstOffset = min(r.FirstOffset, b.BaseOffset)
		}
		if damaged {
			r.DamagedBatches++
		}
		return
	}
	if !s.hasData {
		s.hasData = true
		r.FirstOffset, r.LastOffset = b.BaseOffset, b.LastOffset
		r.FirstTimestamp = b.FirstTimestamp
		r.FirstSequence = b.BaseSequence
	}
	r.LastOffset = max(r.LastOffset, b.LastOffset)
	if b.MaxTimestamp != nil {
		if r.LastTimestamp == nil || *b.MaxTimestamp > *r.LastTimestamp {
			r.LastTimestamp = b.MaxTimestamp
		}
	}
	if r.FirstTimestamp == nil && b.FirstTimestamp != nil {
		r.FirstTimestamp = b.FirstTimestamp
	}
	r.Batches++
	r.Records += int64(b.RecordCount)
	if b.IsTransactional {
		r.IsTransactional = true
		if d.inTxn == nil {
			d.inTxn = map[int64]*session{}
		}
		d.inTxn[b.ProducerID] = s
	}
	if damaged {
		r.DamagedBatches++
		return
	}
	if b.BaseSequence < 0 {
		return // coordinator-written offset commits carry no sequence
	}
	last := incrementSequence(b.BaseSequence, int32(b.LastOffset-b.BaseOffset))
	if s.lastSeq >= 0 {
		want := incrementSequence(s.lastSeq, 1)
		switch {
		case b.BaseSequence == want:
		case b.BaseSequence > want && (want != 0 || s.lastSeq < math.MaxInt32):
			r.SequenceGaps++
			t.anomaly(d, b, KindSequenceGap, fmt.Sprintf("producer %d epoch %d: batch at offset %d starts at sequence %d, expected %d "+
				"(%d missing; compaction or retention may have removed them)",
				b.ProducerID, b.ProducerEpoch, b.BaseOffset, b.BaseSequence, want, int64(b.BaseSequence)-int64(want)))
		default:
			r.SequenceRegressions++
			what := "goes back to"
			if b.BaseSequence <= s.lastSeq {
				what = "repeats"
			}
			t.anomaly(d, b, KindSequenceRegression, fmt.Sprintf("producer %d epoch %d: batch at offset %d %s sequence %d after sequence %d at offset %d",
				b.ProducerID, b.ProducerEpoch, b.BaseOffset, what, b.BaseSequence, s.lastSeq, s.lastBase))
		}
	}
	s.lastSeq, s.lastBase = last, b.BaseOffset
	r.LastSequence = last
}

func (t *Tracker) anomaly(d *dirState, b *analysis.BatchRow, kind finding.Kind, msg string) {
	w := finding.Where{Input: b.Input, Topic: b.Topic, Partition: b.Partition, File: b.Segment}
	a := finding.New(w, kind, b.Position, b.BaseOffset, "%s", msg)
	t.anomalies = append(t.anomalies, anomaly{d, finding.WithProducer(a, b.ProducerID)})
}

// Sessions returns the sessions, sorted by input, topic, partition, dir and
// first offset, with the snapshot view attached from snaps (the newest
// snapshot of the same partition dir holding the PID at that epoch), and
// the sequence anomalies in the order found (sequence gaps in partition
// dirs that show signs of compaction left out). It is called once, after
// the last batch: the rows are all that is kept of the sessions, which on
// a broker's tens of thousands of partitions would otherwise stay beside
// them until the run ends.
func (t *Tracker) Sessions(snaps []analysis.SnapshotRow) ([]analysis.ProducerRow, []analysis.AnomalyRow) {
	type snapKey = sessionKey
	best := map[snapKey]*analysis.SnapshotRow{}
	for i := range snaps {
		sn := &snaps[i]
		k := snapKey{dirKey{sn.Input, analysis.PartitionDir(sn.File)}, pidEpoch{sn.ProducerID, sn.ProducerEpoch}}
		cur := best[k]
		if cur == nil || (sn.CRCValid && !cur.CRCValid) || (sn.CRCValid == cur.CRCValid && sn.EndOffset > cur.EndOffset) {
			best[k] = sn
		}
	}
	open := map[*session]bool{}
	n := 0
	for _, d := range t.dirs {
		for _, s := range d.inTxn {
			open[s] = true
		}
		n += len(d.sessions)
	}
	rows := make([]analysis.ProducerRow, 0, n)
	for dk, d := range t.dirs {
		for pe, s := range d.sessions {
			r := s.row
			r.OpenTxn = open[s]
			if sn := best[snapKey{dk, pe}]; sn != nil {
				f, seq, off := sn.File, sn.LastSequence, sn.LastOffset
				r.SnapshotFile, r.SnapshotLastSequence, r.SnapshotLastOffset = &f, &seq, &off
			}
			rows = append(rows, r)
		}
		d.sessions, d.maxEpoch, d.inTxn = nil, nil, nil
	}
	t.lastSession = nil
	sort.Slice(rows, func(i, j int) bool {
		a, b := &rows[i], &rows[j]
		return cmp.Or(analysis.CopyOrder{Input: a.Input, Topic: a.Topic, Partition: a.Partition, Dir: a.Dir}.Compare(
			analysis.CopyOrder{Input: b.Input, Topic: b.Topic, Partition: b.Partition, Dir: b.Dir}),
			cmp.Compare(a.FirstOffset, b.FirstOffset), cmp.Compare(a.ProducerID, b.ProducerID),
			cmp.Compare(a.ProducerEpoch, b.ProducerEpoch)) < 0
	})
	var anomalies []analysis.AnomalyRow
	for _, a := range t.anomalies {
		if a.row.Kind == KindSequenceGap && a.d.compacted {
			continue
		}
		anomalies = append(anomalies, a.row)
	}
	return rows, anomalies
}

// SnapshotOnly returns the producers that snapshots name but no batch on
// disk shows, one per partition dir, PID and epoch (from the newest
// snapshot that names it, one with a valid CRC first), by input, topic,
// partition and PID: the log that held their batches is gone (retention, or not
// copied), and the snapshot is all that is left of them.
func SnapshotOnly(rows []analysis.ProducerRow, snaps []analysis.SnapshotRow) []analysis.SnapshotRow {
	type key struct {
		input int32
		dir   string
		pe    pidEpoch
	}
	seen := map[key]bool{}
	for i := range rows {
		r := &rows[i]
		seen[key{r.Input, r.Dir, pidEpoch{r.ProducerID, r.ProducerEpoch}}] = true
	}
	best := map[key]int{}
	var order []key
	for i := range snaps {
		sn := &snaps[i]
		k := key{sn.Input, analysis.PartitionDir(sn.File), pidEpoch{sn.ProducerID, sn.ProducerEpoch}}
		if seen[k] {
			continue
		}
		j, ok := best[k]
		if !ok {
			best[k] = i
			order = append(order, k)
			continue
		}
		if cur := &snaps[j]; (sn.CRCValid && !cur.CRCValid) || (sn.CRCValid == cur.CRCValid && sn.EndOffset > cur.EndOffset) {
			best[k] = i
		}
	}
	out := make([]analysis.SnapshotRow, 0, len(order))
	for _, k := range order {
		out = append(out, snaps[best[k]])
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		return cmp.Or(cmp.Compare(a.Input, b.Input), strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition),
			strings.Compare(a.File, b.File), cmp.Compare(a.ProducerID, b.ProducerID), cmp.Compare(a.ProducerEpoch, b.ProducerEpoch)) < 0
	})
	return out
}
