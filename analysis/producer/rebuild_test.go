package producer

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

func TestRebuildRules(t *testing.T) {
	s := NewState()
	// Legacy and non-idempotent batches only advance the map end offset.
	s.Apply(analysis.ProducerBatch{BaseOffset: 0, LastOffset: 0, Magic: 1, ProducerID: -1})
	s.Apply(analysis.ProducerBatch{BaseOffset: 1, LastOffset: 1, Magic: 2, ProducerID: -1})
	if s.Len() != 0 || s.MapEndOffset != 2 {
		t.Fatalf("len %d end %d", s.Len(), s.MapEndOffset)
	}
	// A transactional batch opens a transaction at its base offset.
	s.Apply(analysis.ProducerBatch{BaseOffset: 2, LastOffset: 4, Magic: 2, ProducerID: 7, ProducerEpoch: 0, BaseSequence: 0, LastSequence: 2,
		MaxTimestamp: 100, Transactional: true})
	s.Apply(analysis.ProducerBatch{BaseOffset: 5, LastOffset: 5, Magic: 2, ProducerID: 7, ProducerEpoch: 0, BaseSequence: 3, LastSequence: 3,
		MaxTimestamp: 90, Transactional: true})
	e := s.Get(7)
	if e.CurrentTxnFirstOffset != 2 || e.LastSequence != 3 || e.LastOffset != 5 || e.OffsetDelta != 0 || e.Timestamp != 90 {
		t.Fatalf("after data: %+v", e)
	}
	// An empty control batch is ignored.
	if s.Apply(analysis.ProducerBatch{BaseOffset: 6, LastOffset: 6, Magic: 2, ProducerID: 7, Control: true}) != nil {
		t.Fatal("empty control batch completed a transaction")
	}
	// An ABORT with a new epoch closes the transaction and clears the
	// batch metadata, as the coordinator's fencing abort does.
	done := s.Apply(analysis.ProducerBatch{BaseOffset: 7, LastOffset: 7, Magic: 2, ProducerID: 7, ProducerEpoch: 1, Control: true, Transactional: true,
		HasRecord: true, ControlType: 0, CoordinatorEpoch: 5, RecordTimestamp: 120})
	if done == nil || !done.Aborted || done.FirstOffset != 2 || done.LastOffset != 7 {
		t.Fatalf("completed %+v", done)
	}
	e = s.Get(7)
	if e.Epoch != 1 || e.LastSequence != -1 || e.LastOffset != -1 || e.OffsetDelta != 0 || e.CoordinatorEpoch != 5 ||
		e.Timestamp != 120 || e.CurrentTxnFirstOffset != -1 {
		t.Fatalf("after abort: %+v", e)
	}
	// A lower epoch is applied anyway (REPLICATION origin).
	s.Apply(analysis.ProducerBatch{BaseOffset: 8, LastOffset: 9, Magic: 2, ProducerID: 7, ProducerEpoch: 0, BaseSequence: 10, LastSequence: 11,
		MaxTimestamp: 130})
	if e = s.Get(7); e.Epoch != 0 || e.LastSequence != 11 || e.OffsetDelta != 1 || e.CoordinatorEpoch != 5 {
		t.Fatalf("after lower epoch: %+v", e)
	}
}
