package segtest

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing/fstest"

	"github.com/ksleuth/ksleuth/snapshot"
)

// KafkaIndexIntervalBytes is the broker's default index.interval.bytes.
const KafkaIndexIntervalBytes = 4096

// Sizes of one entry of each index file kind.
const (
	offsetIndexEntry = 8  // relative offset int32, position int32
	timeIndexEntry   = 12 // timestamp int64, relative offset int32
	txnIndexEntry    = 34 // version int16, producer id, first, last, last stable offset
)

// IndexEntry is one .index entry: the last offset of a batch and the byte
// position where the batch starts.
type IndexEntry struct {
	Offset   int64 `json:"offset"`
	Position int64 `json:"position"`
}

// TimeIndexEntry is one .timeindex entry: the largest timestamp of the
// segment so far and the last offset of the batch that holds it.
type TimeIndexEntry struct {
	Timestamp int64 `json:"timestamp"`
	Offset    int64 `json:"offset"`
}

// AbortedTxn is one .txnindex entry (always version 0).
type AbortedTxn struct {
	ProducerID       int64 `json:"producerId"`
	FirstOffset      int64 `json:"firstOffset"`
	LastOffset       int64 `json:"lastOffset"` // the ABORT marker
	LastStableOffset int64 `json:"lastStableOffset"`
}

// SnapshotManifest is one producer-state NNN.snapshot file.
type SnapshotManifest struct {
	File      string          `json:"file"`   // relative to the log dir
	Offset    int64           `json:"offset"` // the name: state of the batches below it
	Producers []ProducerState `json:"producers"`
}

// ProducerState is one producer's entry in a snapshot.
type ProducerState struct {
	ProducerID            int64 `json:"producerId"`
	Epoch                 int16 `json:"epoch"`
	LastSequence          int32 `json:"lastSequence"` // -1: no data batch since the last epoch change
	LastOffset            int64 `json:"lastOffset"`   // last offset of that batch, -1 without one
	OffsetDelta           int32 `json:"offsetDelta"`
	Timestamp             int64 `json:"timestamp"` // of the last data batch or marker
	CoordinatorEpoch      int32 `json:"coordinatorEpoch"`
	CurrentTxnFirstOffset int64 `json:"currentTxnFirstOffset"` // -1: no open transaction
}

// StateOptions tune WriteState.
type StateOptions struct {
	// IndexIntervalBytes is index.interval.bytes; zero means
	// KafkaIndexIntervalBytes.
	IndexIntervalBytes int64
}

// stateRules are the broker settings the index and snapshot files follow.
type stateRules struct {
	interval int64 // index.interval.bytes
	// prealloc > 0 models a broker killed while running: the active
	// segment's indexes keep their preallocated size and no close happened
	// (no closing time-index entry, no snapshot at the log end).
	prealloc int64
	// recovered indexes every segment batch by batch, as LogSegment.recover
	// rebuilds it, cleaned segments too.
	recovered bool
}

// WriteState rewrites, beside the segments of a log dir written by
// GenerateLogDir, the .index, .timeindex, .txnindex and .snapshot files for
// another index.interval.bytes, with every segment indexed the way the
// broker's recovery rebuilds an index (batch by batch, cleaned segments
// too), then closed cleanly. Tests use small intervals to get many index
// entries.
func WriteState(dir string, m *Manifest, opts StateOptions) error {
	if opts.IndexIntervalBytes <= 0 {
		opts.IndexIntervalBytes = KafkaIndexIntervalBytes
	}
	for i := range m.Partitions {
		p := m.Partitions[i] // a copy: the caller's manifest keeps its own entries
		p.Segments = slices.Clone(p.Segments)
		computeState(&p, stateRules{interval: opts.IndexIntervalBytes, recovered: true})
		files := stateFiles(&p, 0)
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(n)), files[n], 0o644); err != nil {
				return fmt.Errorf("segtest: %w", err)
			}
		}
	}
	return nil
}

// producerRow is one producer's state as ProducerStateManager keeps it.
type producerRow struct {
	epoch       int16
	lastSeq     int32
	lastOffset  int64
	offsetDelta int32
	ts          int64
	coordEpoch  int32
	txnFirst    int64
}

func prefixName(off int64, ext string) string { return fmt.Sprintf("%020d%s", off, ext) }

// computeState fills in the index entries, aborted transactions and
// snapshots of p from its batches, following the broker:
//
//   - offset and time index entries: LogSegment.append adds one before an
//     append once more than index.interval.bytes were appended since the
//     last entry (strictly more), naming the append's last offset and start
//     position; the time entry holds the largest timestamp so far and is
//     added only if it grew (TimeIndex.maybeAppend). A v2 produce request
//     carries one batch per partition and a legacy one one message set. The
//     log cleaner copies a small segment in one read-buffer chunk, one
//     append, so a cleaned segment gets no offset entry. LogSegment.recover
//     rebuilds an index by the same rule, batch by batch.
//   - a roll or a clean close adds the closing time entry (the segment's
//     largest timestamp, if not indexed yet) and trims both files.
//   - an ABORT marker that ends a transaction holding data adds a txnindex
//     entry whose last stable offset is the first offset of the earliest
//     other open transaction, or the marker's offset + 1.
//   - a producer snapshot is written at each roll, named after the new
//     segment's base offset, and at close, named after the log end offset;
//     each holds every producer's state from the batches below its name.
func computeState(p *PartitionManifest, r stateRules) {
	producers := map[int64]*producerRow{}
	p.Snapshots = []SnapshotManifest{}
	takeSnapshot := func(at int64) {
		pids := make([]int64, 0, len(producers))
		for pid := range producers {
			pids = append(pids, pid)
		}
		slices.Sort(pids)
		entries := make([]ProducerState, 0, len(pids))
		for _, pid := range pids {
			r := producers[pid]
			entries = append(entries, ProducerState{ProducerID: pid, Epoch: r.epoch, LastSequence: r.lastSeq, LastOffset: r.lastOffset,
				OffsetDelta: r.offsetDelta, Timestamp: r.ts, CoordinatorEpoch: r.coordEpoch, CurrentTxnFirstOffset: r.txnFirst})
		}
		p.Snapshots = append(p.Snapshots, SnapshotManifest{File: p.Dir + "/" + prefixName(at, ".snapshot"), Offset: at, Producers: entries})
	}

	for si := range p.Segments {
		s := &p.Segments[si]
		active := si == len(p.Segments)-1
		if si > 0 {
			takeSnapshot(s.BaseOffset)
		}
		s.IndexEntries, s.TimeIndexEntries, s.AbortedTxns = []IndexEntry{}, []TimeIndexEntry{}, nil
		var sinceLast int64
		maxTs, maxTsOffset := int64(-1), s.BaseOffset
		lastIndexedTs := int64(-1) // TimeIndex's empty last entry has no timestamp
		appendTime := func() {
			if maxTs > lastIndexedTs {
				s.TimeIndexEntries = append(s.TimeIndexEntries, TimeIndexEntry{Timestamp: maxTs, Offset: maxTsOffset})
				lastIndexedTs = maxTs
			}
		}
		for _, g := range appendGroups(s, r.recovered) {
			bs := s.Batches[g[0]:g[1]]
			// The max timestamp first, then the index entries if enough
			// bytes went by, then the byte count.
			for _, b := range bs {
				if b.MaxTimestamp > maxTs {
					maxTs, maxTsOffset = b.MaxTimestamp, b.LastOffset
				}
			}
			if sinceLast > r.interval {
				s.IndexEntries = append(s.IndexEntries, IndexEntry{Offset: bs[len(bs)-1].LastOffset, Position: bs[0].Position})
				appendTime()
				sinceLast = 0
			}
			for _, b := range bs {
				sinceLast += int64(b.Size)
				applyProducerState(producers, b, s)
			}
		}
		if !active || r.prealloc <= 0 {
			appendTime() // the closing entry of a roll or a clean close
		}
	}
	// Close writes a snapshot only if the state moved past the last one.
	last := int64(0)
	if n := len(p.Snapshots); n > 0 {
		last = p.Snapshots[n-1].Offset
	}
	if r.prealloc <= 0 && p.LogEndOffset > last {
		takeSnapshot(p.LogEndOffset)
	}
}

// appendGroups splits a segment's batches into the appends that wrote
// them, as [start, end) index pairs: one per produce request (a legacy
// uncompressed message set is several entries of one append), the whole
// segment for cleaner output, or one per batch as recovery reads them.
func appendGroups(s *SegmentManifest, recovered bool) [][2]int {
	var gs [][2]int
	switch {
	case len(s.Batches) == 0:
	case recovered:
		for i := range s.Batches {
			gs = append(gs, [2]int{i, i + 1})
		}
	case s.Cleaned:
		gs = append(gs, [2]int{0, len(s.Batches)})
	default:
		start := 0
		for _, end := range s.appendEnds {
			gs = append(gs, [2]int{start, end})
			start = end
		}
	}
	return gs
}

// applyProducerState updates the producer table with one batch the way
// ProducerAppendInfo does, and records the aborted transaction an ABORT
// marker closes in s.
func applyProducerState(producers map[int64]*producerRow, b EntryInfo, s *SegmentManifest) {
	if b.Magic < 2 || b.ProducerID < 0 {
		return
	}
	r := producers[b.ProducerID]
	if r == nil {
		r = &producerRow{epoch: -1, lastSeq: -1, lastOffset: -1, ts: -1, coordEpoch: -1, txnFirst: -1}
		producers[b.ProducerID] = r
	}
	if b.Control {
		if len(b.Records) == 0 || len(b.Records[0].Key) < 4 {
			return
		}
		rec := b.Records[0]
		typ := int16(binary.BigEndian.Uint16(rec.Key[2:4]))
		if typ != ControlAbort && typ != ControlCommit {
			return
		}
		if typ == ControlAbort && r.txnFirst >= 0 {
			lso := b.BaseOffset + 1
			for pid, o := range producers {
				if pid != b.ProducerID && o.txnFirst >= 0 && o.txnFirst < lso {
					lso = o.txnFirst
				}
			}
			s.AbortedTxns = append(s.AbortedTxns, AbortedTxn{ProducerID: b.ProducerID, FirstOffset: r.txnFirst, LastOffset: b.BaseOffset, LastStableOffset: lso})
		}
		// A new epoch drops the batch metadata: no last sequence or offset.
		if r.epoch != b.ProducerEpoch {
			r.epoch, r.lastSeq, r.lastOffset, r.offsetDelta = b.ProducerEpoch, -1, -1, 0
		}
		r.txnFirst = -1
		if len(rec.Value) >= 6 {
			r.coordEpoch = int32(binary.BigEndian.Uint32(rec.Value[2:6]))
		}
		r.ts = rec.Timestamp
		return
	}
	r.epoch = b.ProducerEpoch
	r.lastSeq = IncrementSequence(b.BaseSequence, int32(b.LastOffset-b.BaseOffset))
	r.lastOffset = b.LastOffset
	r.offsetDelta = int32(b.LastOffset - b.BaseOffset)
	r.ts = b.MaxTimestamp
	if b.Transactional && r.txnFirst < 0 {
		r.txnFirst = b.BaseOffset
	}
}

// stateFiles encodes the index, txnindex and snapshot files of p by name
// relative to the log dir. With prealloc > 0 the active segment's .index
// and .timeindex are zero-padded to prealloc bytes (rounded down to whole
// entries, as the broker sizes them).
func stateFiles(p *PartitionManifest, prealloc int64) map[string][]byte {
	files := map[string][]byte{}
	for si, s := range p.Segments {
		var index, tindex, txn []byte
		for _, e := range s.IndexEntries {
			index = binary.BigEndian.AppendUint32(index, uint32(e.Offset-s.BaseOffset))
			index = binary.BigEndian.AppendUint32(index, uint32(e.Position))
		}
		for _, e := range s.TimeIndexEntries {
			tindex = binary.BigEndian.AppendUint64(tindex, uint64(e.Timestamp))
			tindex = binary.BigEndian.AppendUint32(tindex, uint32(e.Offset-s.BaseOffset))
		}
		for _, a := range s.AbortedTxns {
			txn = binary.BigEndian.AppendUint16(txn, 0)
			for _, v := range []int64{a.ProducerID, a.FirstOffset, a.LastOffset, a.LastStableOffset} {
				txn = binary.BigEndian.AppendUint64(txn, uint64(v))
			}
		}
		if prealloc > 0 && si == len(p.Segments)-1 {
			index = padTo(index, prealloc/offsetIndexEntry*offsetIndexEntry)
			tindex = padTo(tindex, prealloc/timeIndexEntry*timeIndexEntry)
		}
		stem := p.Dir + "/" + prefixName(s.BaseOffset, "")
		files[stem+".index"] = nonNil(index)
		files[stem+".timeindex"] = nonNil(tindex)
		// The broker creates a .txnindex only when it first appends to it.
		if len(txn) > 0 {
			files[stem+".txnindex"] = txn
		}
	}
	for _, sn := range p.Snapshots {
		es := make([]snapshot.Entry, len(sn.Producers))
		for i, e := range sn.Producers {
			es[i] = snapshot.Entry(e)
		}
		files[sn.File] = snapshot.Encode(es)
	}
	return files
}

func padTo(b []byte, n int64) []byte {
	if int64(len(b)) >= n {
		return b
	}
	return append(b, make([]byte, n-int64(len(b)))...)
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// LoadFS reads every file under dir into a MapFS (read-only modes, paths
// with forward slashes), for tests that damage a generated log dir in
// memory.
func LoadFS(dir string) (fstest.MapFS, error) {
	mfs := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		mfs[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data, Mode: 0o444}
		return nil
	})
	return mfs, err
}
