package producer

import (
	"path"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
)

type dirKey struct {
	input int32
	dir   string
}

// Tracker accumulates the sessions and transactions of every partition
// dir. Not safe for concurrent use.
type Tracker struct {
	dirs  map[dirKey]*dirState
	order []*dirState // in the order first seen
	// anomalies are the sequence anomalies, in the order found.
	anomalies []anomaly
	// Batches come in runs of one segment, and within it of one producer
	// session: the last ones are kept to skip the maps for them.
	lastIn      int32
	lastSeg     string
	lastDir     *dirState
	lastSession *session
	lastKey     pidEpoch
}

// dirState is what the tracker keeps per partition dir.
type dirState struct {
	key       dirKey
	topic     string
	partition int32

	sessions map[pidEpoch]*session
	maxEpoch map[int64]int32 // per producer id
	// inTxn is, per producer id, the session whose transaction is open.
	inTxn map[int64]*session
	// Compaction evidence: offsets skipped between batches or records
	// missing inside one. The cleaner removes whole batches while keeping
	// the sequences of the rest, so sequence gaps there are expected and
	// not reported as anomalies (they still count in sequence_gaps).
	prevLast  int64 // the greatest last offset so far (at least 0)
	seen      bool  // a batch was seen
	compacted bool

	open      map[int64]*txn // the open transaction per producer id
	txns      []*txn
	logEnd    int64 // last offset + 1 of the greatest batch so far
	lastWrite *int64
	// leaderEpoch is the partition leader epoch of the last batch: of a
	// __transaction_state partition, the epoch its coordinator writes
	// markers with.
	leaderEpoch int32
	// remote: the dir is a remote store's (tiered storage), whose
	// segments are objects of their own: a failed copy left beside the
	// retried one holds the same offsets again.
	remote bool
}

// New returns an empty Tracker.
func New() *Tracker { return &Tracker{dirs: map[dirKey]*dirState{}} }

// Batch adds one batch of a live segment. Batches of a partition dir must
// come in offset order; batches without a producer id (-1, legacy magic)
// count only for the partition's offsets.
func (t *Tracker) Batch(b *analysis.BatchRow) {
	if t.lastDir == nil || b.Input != t.lastIn || b.Segment != t.lastSeg {
		k := dirKey{b.Input, analysis.PartitionDir(b.Segment)}
		d := t.dirs[k]
		if d == nil {
			// inTxn and open are made at the first transactional batch:
			// most partitions never see one, and a log dir holds tens of
			// thousands of partitions.
			d = &dirState{key: k, topic: b.Topic, partition: b.Partition, sessions: map[pidEpoch]*session{},
				maxEpoch: map[int64]int32{}}
			_, d.remote = source.ParseRemoteDir(path.Base(k.dir))
			t.dirs[k] = d
			t.order = append(t.order, d)
		}
		t.lastIn, t.lastSeg, t.lastDir, t.lastSession = b.Input, b.Segment, d, nil
	}
	d := t.lastDir
	if d.remote && d.seen && b.BaseOffset <= d.prevLast {
		return // offsets a remote segment read before holds: read once
	}
	t.session(d, b)
	d.transaction(b)
}
