package producer

import (
	"math"
	"slices"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

func batch(seg string, base, last int64, pid int64, epoch, seq int32) analysis.BatchRow {
	n := int32(last - base + 1)
	ts := 1000 + base
	return analysis.BatchRow{Topic: "t", Segment: seg, Position: base * 100, BaseOffset: base, LastOffset: last, RecordCount: n,
		DecodedRecords: n, Magic: 2, CRCValid: true, ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq,
		FirstTimestamp: &ts, MaxTimestamp: &ts}
}

func TestSequenceAnomalies(t *testing.T) {
	tr := New()
	bs := []analysis.BatchRow{
		batch("t-0/0.log", 0, 4, 7, 0, 0),
		batch("t-0/0.log", 5, 9, 7, 0, 5),    // fine
		batch("t-0/0.log", 10, 11, 7, 0, 12), // gap: 10, 11 missing
		batch("t-0/0.log", 12, 13, 7, 0, 12), // repeats 12..13
		batch("t-0/0.log", 14, 14, 7, 1, 0),  // new epoch from 0: fine
		batch("t-0/0.log", 15, 15, 7, 0, 14), // epoch back
		batch("t-0/0.log", 16, 16, 8, 0, math.MaxInt32),
		batch("t-0/0.log", 17, 17, 8, 0, 0), // wraps: fine
	}
	for i := range bs {
		tr.Batch(&bs[i])
	}
	rows, an := tr.Sessions([]analysis.SnapshotRow{{File: "t-0/18.snapshot", EndOffset: 18, CRCValid: true, ProducerID: 7, ProducerEpoch: 1,
		LastSequence: 0, LastOffset: 14}})
	var kinds []finding.Kind
	for _, a := range an {
		kinds = append(kinds, a.Kind)
	}
	if want := []finding.Kind{KindSequenceGap, KindSequenceRegression, KindEpochRegression}; !slices.Equal(kinds, want) {
		t.Fatalf("anomalies %v, want %v", kinds, want)
	}
	if len(rows) != 3 {
		t.Fatalf("%d sessions, want 3", len(rows))
	}
	s := rows[0] // pid 7 epoch 0
	if s.ProducerID != 7 || s.ProducerEpoch != 0 || s.SequenceGaps != 1 || s.SequenceRegressions != 1 || s.Batches != 5 ||
		s.Records != 15 || s.SnapshotLastSequence != nil {
		t.Errorf("pid 7 epoch 0: %+v", s)
	}
	if e1 := rows[1]; e1.ProducerEpoch != 1 || e1.SnapshotLastOffset == nil || *e1.SnapshotLastOffset != 14 {
		t.Errorf("pid 7 epoch 1: %+v", e1)
	}
	if w := rows[2]; w.ProducerID != 8 || w.SequenceGaps != 0 || w.SequenceRegressions != 0 || w.LastSequence != 0 {
		t.Errorf("pid 8 (wrap): %+v", w)
	}
}

// TestCompactedGapsNotListed: in a dir with skipped offsets (the cleaner
// ran), sequence gaps are counted but not reported.
func TestCompactedGapsNotListed(t *testing.T) {
	tr := New()
	bs := []analysis.BatchRow{batch("c-0/0.log", 0, 4, 9, 0, 0), batch("c-0/0.log", 10, 14, 9, 0, 10)}
	for i := range bs {
		tr.Batch(&bs[i])
	}
	rows, an := tr.Sessions(nil)
	if len(an) != 0 || rows[0].SequenceGaps != 1 {
		t.Errorf("anomalies %v, gaps %d", an, rows[0].SequenceGaps)
	}
}

// TestTransactions: markers count per epoch; a fencing ABORT at a new
// epoch closes the old epoch's open transaction; damaged batches are
// counted but not checked.
func TestTransactions(t *testing.T) {
	tr := New()
	d := batch("x-0/0.log", 0, 1, 5, 0, 0)
	d.IsTransactional = true
	m := batch("x-0/0.log", 2, 2, 5, 1, -1)
	m.IsTransactional, m.IsControl, m.ControlType = true, true, "ABORT"
	bad := batch("x-0/0.log", 3, 3, 5, 1, 99)
	bad.CRCValid = false
	open := batch("x-0/0.log", 4, 4, 6, 0, 0)
	open.IsTransactional = true
	for _, b := range []*analysis.BatchRow{&d, &m, &bad, &open} {
		tr.Batch(b)
	}
	rows, an := tr.Sessions(nil)
	if len(an) != 0 {
		t.Errorf("anomalies: %v", an)
	}
	got := map[[2]int64]analysis.ProducerRow{}
	for _, r := range rows {
		got[[2]int64{r.ProducerID, int64(r.ProducerEpoch)}] = r
	}
	if r := got[[2]int64{5, 0}]; r.OpenTxn || !r.IsTransactional || r.Aborts != 0 {
		t.Errorf("5/0: %+v", r)
	}
	if r := got[[2]int64{5, 1}]; r.Aborts != 1 || r.DamagedBatches != 1 || r.Batches != 1 {
		t.Errorf("5/1: %+v", r)
	}
	if r := got[[2]int64{6, 0}]; !r.OpenTxn {
		t.Errorf("6/0: %+v", r)
	}
}

// TestSnapshotOnly: producers a snapshot names but no batch shows are
// listed once each, from the newest valid snapshot. Truth: the log of
// t-0 holds PID 1 epoch 0; its snapshots at 50 and 90 name PID 1, PID 2
// (last sequence 9 at 50, 19 at 90) and PID 1 epoch 3; a snapshot of
// t-1 names PID 2 too, which t-1's log does not hold either.
func TestSnapshotOnly(t *testing.T) {
	rows := []analysis.ProducerRow{{Topic: "t", Partition: 0, Dir: "t-0", ProducerID: 1, ProducerEpoch: 0}}
	snap := func(dir string, part int32, end, pid int64, epoch, seq int32) analysis.SnapshotRow {
		return analysis.SnapshotRow{Topic: "t", Partition: part, File: dir + "/snap-" + string(rune('a'+end%26)), EndOffset: end, CRCValid: true,
			ProducerID: pid, ProducerEpoch: epoch, LastSequence: seq}
	}
	snaps := []analysis.SnapshotRow{
		snap("t-0", 0, 50, 1, 0, 4), snap("t-0", 0, 50, 2, 0, 9),
		snap("t-0", 0, 90, 1, 0, 8), snap("t-0", 0, 90, 2, 0, 19), snap("t-0", 0, 90, 1, 3, 0),
		snap("t-1", 1, 20, 2, 0, 2),
	}
	got := SnapshotOnly(rows, snaps)
	type want struct {
		part  int32
		pid   int64
		epoch int32
		seq   int32
		end   int64
	}
	exp := []want{{0, 1, 3, 0, 90}, {0, 2, 0, 19, 90}, {1, 2, 0, 2, 20}}
	if len(got) != len(exp) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range exp {
		g := got[i]
		if g.Partition != w.part || g.ProducerID != w.pid || g.ProducerEpoch != w.epoch || g.LastSequence != w.seq || g.EndOffset != w.end {
			t.Errorf("%d: got %+v, want %+v", i, g, w)
		}
	}
}
