package analysis

// ProducerBatch is what the broker-style rebuild of producer state needs
// of one batch (ProducerState.Apply).
type ProducerBatch struct {
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

// ProducerEntry is one producer's rebuilt state, with the fields of a
// snapshot entry (snapshot.Entry) plus what the rebuild saw.
type ProducerEntry struct {
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

// ProducerState is one partition copy's producer state as a broker
// rebuilds it when it recovers the log, fed batches in offset order.
// Package producer rebuilds it; the checker drives one per partition copy
// through this interface, since only its replay knows the points (a
// segment's start, a snapshot's end offset) where the state is compared
// with a producer snapshot.
type ProducerState interface {
	// Apply applies one batch in offset order and returns the
	// transaction it completed, if it is a marker.
	Apply(b ProducerBatch) *CompletedTxn
	// Get returns a copy of one producer's state, or nil.
	Get(pid int64) *ProducerEntry
	// Len is the number of producers.
	Len() int
	// Entries returns a copy of every producer's state, by producer id.
	Entries() []ProducerEntry
	// Clone returns an independent copy.
	Clone() ProducerState
	// SetMapEndOffset sets the offset the state is as of (one past the
	// last batch applied, or a snapshot's end offset).
	SetMapEndOffset(end int64)
}
