package scan

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"slices"
	"sync"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/segment"
)

// decodeJob is one batch's decode, inline or on the pool.
type decodeJob struct {
	fc               *fileCtx
	row              analysis.BatchRow
	deleteHorizon    bool
	records, payload bool
	hexFP            bool           // fill Fingerprint, not only FP
	compact          bool           // entries instead of rows (Config.Compact)
	batch            *segment.Batch // clone, for the pool
	done             chan struct{}  // its group's, closed by the pool; nil when inline

	n           int32
	controlType string
	hasMarker   bool
	markerType  int16
	markerEpoch int32
	markerTs    int64
	rows        []analysis.PayloadRecordRow
	entries     EntryBatch
	err         *segment.CorruptionError
}

func (j *decodeJob) ready() bool {
	if j.done == nil {
		return true
	}
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// decode reads the records of b; it must not touch the file context
// except for reading constant fields.
func (j *decodeJob) decode(it *segment.RecordIter, b *segment.Batch, fp *analysis.Fingerprinter) {
	state := txnNone
	if b.IsTransactional() && !b.IsControl() {
		state = txnPending
	}
	if j.compact {
		j.decodeEntries(it, b, fp, state)
		return
	}
	var (
		ts  []int64 // one allocation per batch for the rows' timestamps
		fps []byte  // and one for their fingerprints' hex digits
	)
	if j.records && b.NumRecords > 0 {
		// NumRecords comes from the wire: cap what it preallocates (more
		// records, if any, grow the slices as usual).
		n := min(int(b.NumRecords), maxPrealloc)
		j.rows = rowSlices.get(n)
		ts = make([]int64, 0, n)
		if j.hexFP {
			fps = make([]byte, 0, n*hexLen)
		}
	}
	for it.Next() {
		rec := it.Record()
		j.n++
		if rec.IsControl && j.controlType == "" {
			j.marker(rec)
		}
		if !j.records {
			continue
		}
		st := recordState(rec, b, state)
		j.rows = append(j.rows, analysis.PayloadRecordRow{RecordRow: analysis.RecordRow{
			Input: j.row.Input, Topic: j.row.Topic, Partition: j.row.Partition, Segment: j.row.Segment,
			BatchPosition: j.row.Position, Offset: rec.Offset, TimestampType: rec.TimestampType.String(),
			ProducerID: b.ProducerID, ProducerEpoch: int32(b.ProducerEpoch), Sequence: rec.Sequence,
			KeySize: int32(rec.KeySize()), ValueSize: int32(rec.ValueSize()), HeaderCount: int32(len(rec.Headers)),
			TxnState: st, IsControl: rec.IsControl, SoleCopy: j.fc.soleCopy,
		}})
		row := &j.rows[len(j.rows)-1]
		if rec.Timestamp != -1 { // analysis.Millis, without a pointer per record
			if len(ts) == cap(ts) {
				// A new slab: rows already built keep pointing into the
				// old one.
				ts = make([]int64, 0, 2*cap(ts)+16)
			}
			ts = append(ts, rec.Timestamp)
			row.Timestamp = &ts[len(ts)-1]
		}
		if !rec.IsControl {
			sum := fp.Record(rec)
			if j.hexFP {
				fps = hex.AppendEncode(fps, sum[:])
			}
			row.FP, row.HasFP = sum, true
		}
		if j.payload {
			row.Key, row.Value = bytes.Clone(rec.Key), bytes.Clone(rec.Value)
			if len(rec.Headers) > 0 {
				row.Headers = make([]analysis.Header, len(rec.Headers))
				for i, h := range rec.Headers {
					row.Headers[i] = analysis.Header{Key: string(h.Key), Value: bytes.Clone(h.Value)}
				}
			}
		}
	}
	if len(fps) > 0 {
		// One string for the batch's fingerprints; each row's is a slice
		// of it (the row order is the order they were appended in).
		all := string(fps)
		for i := range j.rows {
			if r := &j.rows[i]; !r.IsControl {
				r.Fingerprint, all = all[:hexLen], all[hexLen:]
			}
		}
	}
	j.setErr(it.Err(), b)
}

// marker keeps what the integrity checker replays of a control batch's
// first record.
func (j *decodeJob) marker(rec *segment.Record) {
	j.controlType = segment.ControlTypeName(rec.ControlType)
	j.hasMarker, j.markerType, j.markerEpoch, j.markerTs = true, rec.ControlType, rec.CoordinatorEpoch, rec.Timestamp
}

// recordState is the txn_state of one record of b, whose data records
// have state.
func recordState(rec *segment.Record, b *segment.Batch, state string) string {
	if rec.IsControl && b.IsTransactional() {
		switch rec.ControlType {
		case segment.ControlCommit:
			return txnCommitted
		case segment.ControlAbort:
			return txnAborted
		}
	}
	return state
}

// decodeEntries is decode for Config.Compact: one small entry per record.
func (j *decodeJob) decodeEntries(it *segment.RecordIter, b *segment.Batch, fp *analysis.Fingerprinter, state string) {
	es := entrySlices.get(min(max(int(b.NumRecords), 0), maxPrealloc))
	txn := b.IsTransactional()
	for it.Next() {
		rec := it.Record()
		// Written in place, field by field, for the reason dups.AddBatch
		// gives; the fingerprint once, by the branch that knows it.
		es = slices.Grow(es, 1)[:len(es)+1]
		e := &es[len(es)-1]
		e.Offset, e.Timestamp, e.Sequence, e.Control = rec.Offset, rec.Timestamp, rec.Sequence, rec.IsControl
		e.Txn = 0
		if rec.IsControl {
			e.Fingerprint = [16]byte{}
			if j.controlType == "" {
				j.marker(rec)
			}
			if txn {
				switch rec.ControlType {
				case segment.ControlCommit:
					e.Txn = analysis.TxnCommitted
				case segment.ControlAbort:
					e.Txn = analysis.TxnAborted
				}
			}
		} else {
			e.Fingerprint = fp.Record(rec)
		}
	}
	// Every entry is a decoded record: counted once per batch, not per record.
	j.n += int32(len(es))
	j.entries = EntryBatch{Input: j.row.Input, Topic: j.row.Topic, Partition: j.row.Partition, Segment: j.row.Segment,
		BatchPosition: j.row.Position, ProducerID: b.ProducerID, ProducerEpoch: int32(b.ProducerEpoch),
		LogAppendTime: b.TimestampType() == segment.LogAppendTime, SoleCopy: j.fc.soleCopy, pending: state == txnPending, Entries: es}
	j.setErr(it.Err(), b)
}

// setErr records the error that stopped b's records, as a finding.
func (j *decodeJob) setErr(err error, b *segment.Batch) {
	if err == nil {
		return
	}
	var ce *segment.CorruptionError
	if errors.As(err, &ce) {
		j.err = ce
	} else {
		j.err = &segment.CorruptionError{Path: j.row.Segment, Offset: b.Position, BaseOffset: b.BaseOffset, Err: err}
	}
}

// slicePool recycles slices of one kind whose contents have been copied
// out: allocating them fresh (zeroed, and faulted in when the heap grows)
// was a noticeable part of a scan. Slices of more than maxCap elements
// are left to the collector; with clearOld, a slice is cleared when put
// back, so that it holds no strings or payload alive.
type slicePool[T any] struct {
	pool           sync.Pool
	boxes          sync.Pool // empty *[]T, so that put allocates none
	minCap, maxCap int
	clearOld       bool
}

// get returns an empty slice with room for n elements.
func (sp *slicePool[T]) get(n int) []T {
	if p, ok := sp.pool.Get().(*[]T); ok {
		s := *p
		*p = nil
		sp.boxes.Put(p)
		if cap(s) >= n {
			return s[:0]
		}
	}
	return make([]T, 0, max(n, sp.minCap))
}

// put recycles s. Only its length is cleared: the capacity beyond it was
// cleared when it was last put.
func (sp *slicePool[T]) put(s []T) {
	if cap(s) == 0 || cap(s) > sp.maxCap {
		return
	}
	if sp.clearOld {
		clear(s)
	}
	p, _ := sp.boxes.Get().(*[]T)
	if p == nil {
		p = new([]T)
	}
	*p = s[:0]
	sp.pool.Put(p)
}

var (
	// Record rows of batches (272 bytes each; fresh ones were a tenth of
	// the scan's CPU), put back by collect once it has copied them.
	rowSlices = slicePool[analysis.PayloadRecordRow]{minCap: 64, maxCap: maxPrealloc, clearOld: true}
	// Entries of batches (Config.Compact), put back once Output.Entries
	// has taken them.
	entrySlices = slicePool[analysis.RecordEntry]{minCap: 64, maxCap: maxPrealloc}
	// Batch rows of chunks, half of what a scan allocated before.
	batchSlices = slicePool[analysis.BatchRow]{minCap: 256, maxCap: 4096, clearOld: true}
	// The entry batches of chunks.
	entryBatchSlices = slicePool[EntryBatch]{minCap: 512, maxCap: 4096, clearOld: true}
)

// jobQueue is the FIFO of a segment's batches in decode. It reuses its
// array: taking the head by reslicing (queue = queue[1:]) left no room to
// append in, so every batch decoded inline allocated a new one.
type jobQueue struct {
	jobs []*decodeJob
	head int
}

func (q *jobQueue) len() int          { return len(q.jobs) - q.head }
func (q *jobQueue) front() *decodeJob { return q.jobs[q.head] }

func (q *jobQueue) push(j *decodeJob) {
	if q.head > 0 && len(q.jobs) == cap(q.jobs) {
		n := copy(q.jobs, q.jobs[q.head:])
		clear(q.jobs[n:])
		q.jobs, q.head = q.jobs[:n], 0
	}
	q.jobs = append(q.jobs, j)
}

func (q *jobQueue) pop() *decodeJob {
	j := q.jobs[q.head]
	q.jobs[q.head] = nil
	if q.head++; q.head == len(q.jobs) {
		q.jobs, q.head = q.jobs[:0], 0
	}
	return j
}

// jobGroup is a run of batches of one segment decoded by one pool
// goroutine; done is closed when all are.
type jobGroup struct {
	jobs  []*decodeJob
	bytes int64
	done  chan struct{}
}

// pool decodes batches on Jobs goroutines, each with its own Decoder.
type pool struct {
	jobs chan *jobGroup
	quit chan struct{}
	done chan struct{}
	n    int
}

func newPool(ctx context.Context, cfg Config) *pool {
	p := &pool{jobs: make(chan *jobGroup), quit: make(chan struct{}), done: make(chan struct{}, cfg.Jobs), n: cfg.Jobs}
	for range cfg.Jobs {
		go func() {
			defer func() { p.done <- struct{}{} }()
			d := segment.NewDecoder(cfg.Segment)
			defer d.Close()
			fp := analysis.NewFingerprinter()
			for {
				select {
				case g := <-p.jobs:
					for _, j := range g.jobs {
						j.decode(d.Records(j.batch), j.batch, fp)
						j.batch = nil
					}
					close(g.done)
				case <-p.quit:
					return
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	return p
}

func (p *pool) submit(ctx context.Context, g *jobGroup) error {
	select {
	case p.jobs <- g:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (p *pool) close() {
	close(p.quit)
	for range p.n {
		<-p.done
	}
}
