package producer

import (
	"cmp"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
)

// The rebuild applies batches with origin REPLICATION, as a broker loading
// its log does: epoch and sequence checks never reject a batch, a lower
// epoch simply replaces the current one. Legacy (magic 0/1) batches and
// batches without a producer id are ignored.

// State is the rebuilt producer state of one partition.
type State struct {
	producers map[int64]*analysis.ProducerEntry
	// MapEndOffset is one past the last batch applied.
	MapEndOffset int64
}

// NewState returns an empty state.
func NewState() *State {
	return &State{producers: map[int64]*analysis.ProducerEntry{}, MapEndOffset: -1}
}

// NewProducerState is NewState as the checker takes it.
func NewProducerState() analysis.ProducerState { return NewState() }

// Apply applies one batch in offset order. It returns the transaction the
// batch completed, if it is a marker.
func (s *State) Apply(b analysis.ProducerBatch) *analysis.CompletedTxn {
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
		e = &analysis.ProducerEntry{ProducerID: b.ProducerID, Epoch: -1, LastSequence: -1, LastOffset: -1,
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
		done := &analysis.CompletedTxn{ProducerID: b.ProducerID, FirstOffset: e.CurrentTxnFirstOffset, LastOffset: b.BaseOffset, Aborted: b.ControlType == 0}
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
func (s *State) Get(pid int64) *analysis.ProducerEntry {
	if e := s.producers[pid]; e != nil {
		c := *e
		return &c
	}
	return nil
}

// Len is the number of producers.
func (s *State) Len() int { return len(s.producers) }

// Entries returns a copy of every producer's state, by producer id.
func (s *State) Entries() []analysis.ProducerEntry {
	out := make([]analysis.ProducerEntry, 0, len(s.producers))
	for _, e := range s.producers {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b analysis.ProducerEntry) int { return cmp.Compare(a.ProducerID, b.ProducerID) })
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
func (s *State) Clone() analysis.ProducerState { return s.clone() }

func (s *State) clone() *State {
	c := &State{producers: make(map[int64]*analysis.ProducerEntry, len(s.producers)), MapEndOffset: s.MapEndOffset}
	for pid, e := range s.producers {
		cp := *e
		c.producers[pid] = &cp
	}
	return c
}

// SetMapEndOffset sets the offset the state is as of.
func (s *State) SetMapEndOffset(end int64) { s.MapEndOffset = end }

var _ analysis.ProducerState = (*State)(nil)
