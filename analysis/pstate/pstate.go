// Package pstate rebuilds a partition's producer state from its batches the
// way the broker does when it recovers a log (apache/kafka UnifiedLog.loadProducersFromRecords, ProducerAppendInfo,
// ProducerStateEntry), so that the result can be compared field by field
// with a producer-state .snapshot.
//
// Batches are applied with origin REPLICATION: epoch and sequence checks
// never reject a batch, a lower epoch simply replaces the current one.
// Legacy (magic 0/1) batches and batches without a producer id are ignored.
//
//	s := pstate.New()
//	for each batch in offset order {
//		done := s.Apply(pstate.Batch{...})
//	}
//	entries := s.Entries() // as a snapshot written now would hold them
//
// The package is pure computation: no files, no printing.
package pstate

import (
	"cmp"
	"slices"
)

// Batch is what the rebuild needs from one batch.
type Batch struct {
	BaseOffset   int64
	LastOffset   int64
	ProducerID   int64
	MaxTimestamp int64
	BaseSequence int32
	LastSequence int32
	// Fields by size, not padded apart: a checker keeps a segment's
	// batches of producers (64 bytes each) for a snapshot inside it.
	ProducerEpoch int16
	Magic         int8
	Transactional bool
	Control       bool
	// For a control batch: whether it holds a record at all, and of its
	// first record the control type (0 ABORT, 1 COMMIT), the marker's
	// coordinator epoch and the record timestamp.
	HasRecord        bool
	ControlType      int16
	CoordinatorEpoch int32
	RecordTimestamp  int64
}

// Entry is one producer's rebuilt state, with the fields of a snapshot
// entry (snapshot.Entry) plus what the rebuild saw.
type Entry struct {
	ProducerID int64
	Epoch      int16
	// LastSequence, LastOffset and OffsetDelta describe the last data
	// batch since the last epoch change: -1, -1, 0 when there is none.
	LastSequence int32
	LastOffset   int64
	OffsetDelta  int32
	// Timestamp: max timestamp of the last data batch, or the timestamp of
	// the last marker record, whichever came later.
	Timestamp             int64
	CoordinatorEpoch      int32
	CurrentTxnFirstOffset int64

	// FirstOffset is the offset of the first batch of this producer seen
	// by the rebuild; Markers counts its ABORT/COMMIT markers.
	FirstOffset int64
	Markers     int
	// LastWrite is the offset of the producer's last batch or marker.
	LastWrite int64
}

// CompletedTxn is a transaction closed by a marker.
type CompletedTxn struct {
	ProducerID int64
	// FirstOffset of the transaction's first batch; -1 when the marker
	// closed no open transaction seen by the rebuild.
	FirstOffset int64
	// LastOffset is the marker's offset.
	LastOffset int64
	Aborted    bool
}

// State is the rebuilt producer state of one partition.
type State struct {
	producers map[int64]*Entry
	// MapEndOffset is one past the last batch applied.
	MapEndOffset int64
}

// New returns an empty state.
func New() *State { return &State{producers: map[int64]*Entry{}, MapEndOffset: -1} }

// Apply applies one batch in offset order. It returns the transaction the
// batch completed, if it is a marker.
func (s *State) Apply(b Batch) *CompletedTxn {
	if b.LastOffset+1 > s.MapEndOffset {
		s.MapEndOffset = b.LastOffset + 1
	}
	if b.Magic < 2 || b.ProducerID < 0 {
		return nil
	}
	if b.Control && !b.HasRecord {
		return nil // an empty control batch is ignored
	}
	e := s.producers[b.ProducerID]
	if e == nil {
		e = &Entry{ProducerID: b.ProducerID, Epoch: -1, LastSequence: -1, LastOffset: -1,
			Timestamp: -1, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1, FirstOffset: b.BaseOffset}
		s.producers[b.ProducerID] = e
	}
	e.LastWrite = b.LastOffset
	if e.Epoch != b.ProducerEpoch {
		// maybeUpdateProducerEpoch: a new epoch clears the retained batches.
		e.Epoch = b.ProducerEpoch
		e.LastSequence, e.LastOffset, e.OffsetDelta = -1, -1, 0
	}
	if b.Control {
		if b.ControlType != 0 && b.ControlType != 1 {
			return nil // not an end-transaction marker
		}
		done := &CompletedTxn{ProducerID: b.ProducerID, FirstOffset: e.CurrentTxnFirstOffset, LastOffset: b.BaseOffset, Aborted: b.ControlType == 0}
		e.CurrentTxnFirstOffset = -1
		e.CoordinatorEpoch = b.CoordinatorEpoch
		e.Timestamp = b.RecordTimestamp
		e.Markers++
		return done
	}
	e.LastSequence = b.LastSequence
	e.LastOffset = b.LastOffset
	e.OffsetDelta = int32(b.LastOffset - b.BaseOffset)
	e.Timestamp = b.MaxTimestamp
	if b.Transactional && e.CurrentTxnFirstOffset < 0 {
		e.CurrentTxnFirstOffset = b.BaseOffset
	}
	return nil
}

// Get returns the state of one producer, or nil.
func (s *State) Get(pid int64) *Entry {
	if e := s.producers[pid]; e != nil {
		c := *e
		return &c
	}
	return nil
}

// Len is the number of producers.
func (s *State) Len() int { return len(s.producers) }

// Entries returns a copy of every producer's state, by producer id.
func (s *State) Entries() []Entry {
	out := make([]Entry, 0, len(s.producers))
	for _, e := range s.producers {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.ProducerID, b.ProducerID) })
	return out
}

// OpenTxnFirstOffset is the smallest first offset of any open transaction
// other than pid's, or -1: the broker's last stable offset bound when pid's
// transaction completes.
func (s *State) OpenTxnFirstOffset(except int64) int64 {
	first := int64(-1)
	for pid, e := range s.producers {
		if pid != except && e.CurrentTxnFirstOffset >= 0 && (first < 0 || e.CurrentTxnFirstOffset < first) {
			first = e.CurrentTxnFirstOffset
		}
	}
	return first
}

// Clone returns an independent copy of the state: a checker keeps the
// state as of a segment's start to compare a snapshot named after that
// segment, which it may read only after the segment's batches.
func (s *State) Clone() *State {
	c := &State{producers: make(map[int64]*Entry, len(s.producers)), MapEndOffset: s.MapEndOffset}
	for pid, e := range s.producers {
		cp := *e
		c.producers[pid] = &cp
	}
	return c
}
