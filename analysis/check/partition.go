package check

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// batchInfo is what the checks need of one batch.
type batchInfo struct {
	pos, size    int64
	base, last   int64
	maxTs        int64
	pid          int64
	baseSeq      int32
	epoch        int16
	magic        int8
	records      int32
	intact       bool // CRC valid and every record decoded
	txn, control bool
	hasMarker    bool
	markerType   int16
	markerEpoch  int32
	markerTs     int64
	horizon      bool
}

func infoOf(r *analysis.BatchRow) batchInfo {
	b := batchInfo{pos: r.Position, size: r.SizeBytes, base: r.BaseOffset, last: r.LastOffset, maxTs: -1,
		pid: r.ProducerID, baseSeq: r.BaseSequence, epoch: int16(r.ProducerEpoch), magic: int8(r.Magic), records: r.RecordCount,
		intact: r.CRCValid && r.DecodedRecords >= r.RecordCount, txn: r.IsTransactional, control: r.IsControl,
		hasMarker: r.HasMarker, markerType: r.MarkerType, markerEpoch: r.MarkerEpoch, markerTs: r.MarkerTimestamp,
		horizon: r.DeleteHorizonSet}
	if r.MaxTimestamp != nil {
		b.maxTs = *r.MaxTimestamp
	}
	return b
}

// placed is what a segment keeps of each batch until its index files are
// checked: where it lies, its offsets and timestamp, and whether it read
// intact (48 bytes).
type placed struct {
	pos, size  int64
	base, last int64
	maxTs      int64
	intact     bool
}

func (b *batchInfo) lastSequence() int32 {
	if b.baseSeq < 0 {
		return -1
	}
	return segment.IncrementSequence(b.baseSeq, int32(b.last-b.base))
}

// marker is one ABORT/COMMIT control batch of a segment.
type marker struct {
	pid     int64
	abort   bool
	txFirst int64 // first offset of the transaction it closed, -1 if none seen
	pos     int64
}

// segRun is the segment being read, and the last one read until the next
// begins: its batches are what its index files are checked against.
type segRun struct {
	path     string
	base     int64 // from the name
	size     int64
	batches  []placed
	markers  map[int64]marker
	first    int64 // first batch's base offset, -1 before any
	gaps     []string
	nGaps    int
	firstGap [2]int64
	done     bool
	sum      *segSummary
	txnIndex *sideFile // its .txnindex, once read
	indexed  bool      // an .index or .timeindex of it was read
}

// sideFile is an index file waiting for its segment.
type sideFile struct {
	path string
	kind snapshot.Kind
	data []byte
}

// partition is the state of one partition copy's checks.
// capKey counts the findings of one file for the per-file cap: by kind,
// and the ones past it by kind and severity.
type capKey struct {
	file string
	kind finding.Kind
	sev  finding.Severity
}

type partition struct {
	c        *Checker
	key      partKey
	topic    string
	part     int32
	dirState string     // delete, future or stray for those dirs
	bare     string     // for a dir that holds no Kafka file, what it holds (bare.go)
	beside   besideView // for a segment given on its own, what its dir holds (single.go)

	findings []analysis.AnomalyRow
	caps     map[capKey]int // by file and kind
	// capped counts the findings past the cap by file, kind and severity.
	capped map[capKey]int

	st        analysis.ProducerState
	atStart   analysis.ProducerState // the state before the current segment's batches
	startBase int64                  // that segment's name offset
	snaps     []*snapshot.File
	// since are the batches applied since the current segment began that
	// change producer state. A snapshot whose end offset lies inside the
	// segment (written at a clean shutdown, before appends resumed in the
	// same segment) comes after the segment's files; it is compared with
	// atStart with these applied up to its end.
	since     batchLog
	sinceOver bool  // since was not kept in full: such a snapshot cannot be compared
	prevLast  int64 // highest offset replayed, -1 before any batch
	segLast   int64 // highest offset of the segments before the current one
	maxTs     int64
	evidence  []string // why gaps here may be compaction: cleaner files
	shapes    struct {
		fewer, empty, horizon int
		firstFewer            int64
	}

	cur, last *segRun
	stash     map[int64][]sideFile
	segs      []*segSummary
	orphans   []orphanIndex
	deleted   []int64 // name offsets of .log.deleted segments: retention at work
	// starts are offsets where a segment began, as files other than live
	// segments show them (split.go).
	starts []segmentStart
	// truncated indexes the truncated-batch findings of live segments in
	// findings, graded once the active segment is known.
	truncated    []truncRef
	firstSegBase int64
	// logStartSeen is where the dir's own files put the log's start, -1
	// unknown: the oldest KRaft snapshot, or the first leader epoch's
	// start offset, whichever is higher.
	logStartSeen int64
	// epochs is the leader-epoch-checkpoint's first entry, when one was
	// read: the broker moves it to the log start whenever retention or
	// DeleteRecords advances that (retention.go).
	epochs *snapshot.EpochEntry
}

// orphanIndex is an index file whose segment is absent.
type orphanIndex struct {
	path string
	base int64
}

type truncRef struct {
	idx int
	seg *segSummary
}

func newPartition(c *Checker, k partKey, topic string, part int32) *partition {
	return &partition{c: c, key: k, topic: topic, part: part, st: c.o.NewProducerState(),
		prevLast: -1, segLast: -1, maxTs: -1, firstSegBase: -1, startBase: -1, logStartSeen: -1}
}

// add records a finding, applying the per-file cap.
func (p *partition) add(f analysis.AnomalyRow) {
	if m := p.c.o.MaxFindingsPerFile; m > 0 && f.Severity != finding.Note {
		k := capKey{file: f.File, kind: f.Kind}
		if p.caps == nil {
			p.caps = map[capKey]int{} // made at the first finding: most partitions have none
		}
		p.caps[k]++
		if p.caps[k] > m {
			if p.capped == nil {
				p.capped = map[capKey]int{}
			}
			p.capped[capKey{f.File, f.Kind, f.Severity}]++
			return
		}
	}
	p.findings = append(p.findings, f)
}

// flushCaps adds, per file and kind capped, one finding per severity
// saying how many more there were of it: a kind's findings need not all
// have its default severity, and each row carries that of the findings
// it stands for, so they count at their own severities.
func (p *partition) flushCaps() {
	keys := slices.Collect(maps.Keys(p.capped))
	slices.SortFunc(keys, func(a, b capKey) int {
		return cmp.Or(strings.Compare(a.file, b.file), cmp.Compare(a.kind, b.kind), cmp.Compare(finding.Rank(a.sev), finding.Rank(b.sev)))
	})
	for _, k := range keys {
		n := p.capped[k]
		// Counted as the findings it stands for.
		f := finding.NewSev(p.where(k.file), k.kind, k.sev, -1, -1, "%d more %s findings in this file not listed", n, k.kind)
		p.findings = append(p.findings, finding.WithOmitted(f, int64(n)))
	}
	clear(p.caps)
	clear(p.capped)
}

func (p *partition) addEvidence(e string) {
	if !slices.Contains(p.evidence, e) && len(p.evidence) < 8 {
		p.evidence = append(p.evidence, e)
	}
}

// beginSegment starts reading a live segment.
func (p *partition) beginSegment(file string) *segRun {
	p.endSegment()
	p.dropLast()
	n := snapshot.ParseName(path.Base(file))
	s := &segRun{path: file, base: n.Offset, markers: map[int64]marker{}, first: -1, firstGap: [2]int64{-1, -1}}
	if n := p.c.segBatches[file]; n > 0 {
		s.batches = make([]placed, 0, n)
	}
	s.sum = &segSummary{path: file, base: n.Offset, firstIntact: -1, lastIntact: -1, zeroFrom: -1, stopAt: -1, firstTs: -1, size: -1}
	p.segs = append(p.segs, s.sum)
	if p.firstSegBase < 0 {
		p.firstSegBase = n.Offset
	}
	if len(p.segs) > 1 && p.segLast >= n.Offset {
		p.add(finding.New(p.where(file), finding.KindSegmentOverlap, 0, n.Offset,
			"segment is named for offset %d but the segments before it already hold offsets up to %d: "+
				"the segments overlap (a leftover of an interrupted cleaning or split, or files copied from different moments)", n.Offset, p.segLast))
	}
	p.atStart, p.startBase = p.st.Clone(), n.Offset
	p.since.reset()
	p.sinceOver = false
	p.cur, p.last = s, nil
	return s
}

// batch replays one batch of a live segment, in file order.
func (p *partition) batch(file string, b *batchInfo) {
	s := p.cur
	if s == nil || s.path != file {
		s = p.beginSegment(file)
	}
	if len(s.batches) == cap(s.batches) {
		// Doubled, not the quarter append adds to a long slice: a 1 GiB
		// segment's 130,000 batches were copied some ten times over. Each
		// growth is a fresh allocation the kernel faults in page by page.
		s.batches = slices.Grow(s.batches, max(len(s.batches), 64))
	}
	s.batches = append(s.batches, placed{pos: b.pos, size: b.size, base: b.base, last: b.last, maxTs: b.maxTs, intact: b.intact})
	sum := s.sum
	if b.intact {
		if sum.firstIntact < 0 {
			sum.firstIntact, sum.firstTs = b.base, b.maxTs
		}
		sum.lastIntact = max(sum.lastIntact, b.last)
	}
	p.shapeEvidence(b)
	if s.first < 0 {
		s.first = b.base
		if b.base < s.base {
			p.add(finding.New(p.where(file), finding.KindNameMismatch, b.pos, b.base,
				"first batch starts at offset %d, below the offset %d in the segment's name: "+
					"the broker finds segments by name, so offsets %d..%d cannot be read through it",
				b.base, s.base, b.base, s.base-1))
		}
	}
	regressed := b.base <= p.prevLast
	switch {
	case regressed:
		what := "repeats"
		if b.last < p.prevLast {
			what = "goes back below"
		}
		p.add(finding.New(p.where(file), finding.KindOffsetRegression, b.pos, b.base,
			"batch with offsets %d..%d %s offsets already seen (up to %d): the log holds overlapping data",
			b.base, b.last, what, p.prevLast))
	case p.prevLast >= 0 && b.base > p.prevLast+1 && len(s.batches) > 1 && adjacent(&s.batches[len(s.batches)-2], b):
		// Only a jump between intact batches that touch in the file is
		// the cleaner's mark: across bytes the reader skipped, the
		// offsets between went with the damage.
		s.nGaps++
		if s.firstGap[0] < 0 {
			s.firstGap = [2]int64{b.pos, p.prevLast + 1}
		}
		if len(s.gaps) < 5 {
			s.gaps = append(s.gaps, fmt.Sprintf("%d is followed by %d", p.prevLast, b.base))
		}
	}
	pb := analysis.ProducerBatch{BaseOffset: b.base, LastOffset: b.last, Magic: b.magic, ProducerID: b.pid, ProducerEpoch: b.epoch,
		BaseSequence: b.baseSeq, LastSequence: b.lastSequence(), MaxTimestamp: b.maxTs, Transactional: b.txn, Control: b.control,
		HasRecord: b.hasMarker, ControlType: b.markerType, CoordinatorEpoch: b.markerEpoch, RecordTimestamp: b.markerTs}
	// Snapshots whose end offset this batch is not below are complete.
	for len(p.snaps) > 0 && p.snaps[0].EndOffset <= pb.LastOffset {
		p.compareSnapshot(p.snaps[0], p.st, -1)
		p.snaps = p.snaps[1:]
	}
	if regressed {
		// Overlapping data is not replayed: the broker's log would not
		// hold it, and replaying it would only repeat the finding.
		return
	}
	if pb.Magic >= 2 && pb.ProducerID >= 0 {
		if p.since.len() < maxSince {
			p.since.add(pb)
		} else {
			p.sinceOver = true
		}
	}
	if done := p.st.Apply(pb); done != nil {
		s.markers[pb.BaseOffset] = marker{pid: done.ProducerID, abort: done.Aborted, txFirst: done.FirstOffset, pos: b.pos}
	}
	if b.magic >= 2 && !b.control && b.maxTs > p.maxTs {
		p.maxTs = b.maxTs
	}
	p.prevLast = max(p.prevLast, b.last)
}

// adjacent reports whether b starts where prev ends, both intact.
func adjacent(prev *placed, b *batchInfo) bool {
	return prev.intact && b.intact && prev.pos+prev.size == b.pos
}

// shapeEvidence counts batch shapes only the log cleaner leaves: a v2
// batch with fewer records than its offset span, an empty batch kept for
// its producer state, a delete horizon.
func (p *partition) shapeEvidence(b *batchInfo) {
	if b.magic < 2 || b.control || !b.intact {
		return
	}
	sh := &p.shapes
	switch {
	case b.horizon:
		sh.horizon++
	case b.records == 0:
		sh.empty++
	case b.last-b.base+1 > int64(b.records):
		if sh.fewer == 0 {
			sh.firstFewer = b.base
		}
		sh.fewer++
	}
}

// endSegment finishes the current segment's own checks; its batches stay
// for the index files that follow it.
func (p *partition) endSegment() {
	s := p.cur
	if s == nil || s.done {
		return
	}
	s.done = true
	p.segLast = max(p.segLast, p.prevLast)
	if s.nGaps > 0 {
		more := ""
		if s.nGaps > len(s.gaps) {
			more = fmt.Sprintf(", … (%d in all)", s.nGaps)
		}
		s.sum.gapNote = fmt.Sprintf("non-consecutive offsets between batches: %s%s", strings.Join(s.gaps, ", "), more)
		s.sum.gapPos, s.sum.gapOff = s.firstGap[0], s.firstGap[1]
	}
	s.sum.computeHoles(s.batches)
	if len(s.batches) > 0 {
		if p.c.segBatches == nil {
			p.c.segBatches = map[string]int{}
		}
		p.c.segBatches[s.path] = len(s.batches)
	}
	p.cur, p.last = nil, s
}

// dropLast ends what the last segment read is kept for: its .txnindex,
// read or not, is compared with its ABORT markers.
func (p *partition) dropLast() {
	if s := p.last; s != nil {
		p.checkTxnIndex(s)
		p.last = nil
	}
}

// file takes one file of the partition dir.
func (p *partition) file(ev *scan.FileEvent) {
	e := ev.Entry
	n := e.Name
	file := e.Path
	if e.Partition != nil {
		p.dirState = e.Partition.State
	}
	switch {
	case n.Leftover || n.Suffix != "":
		p.findings = append(p.findings, ev.Anomalies...)
		p.leftover(ev)
		return
	case liveSegment(n):
		s := p.cur
		if s == nil || s.path != file {
			s = p.beginSegment(file) // a segment without batches
		}
		s.size, s.sum.size = ev.Row.Size, ev.Row.Size
		p.segmentFindings(s, ev)
		p.endSegment()
		p.flushStash(s.base, true)
		return
	}
	p.findings = append(p.findings, ev.Anomalies...)
	switch n.Kind {
	case snapshot.KindKRaftSnapshot:
		// Written whole and renamed into place: a torn one is damage.
		tornIsDamage(p.findings[len(p.findings)-len(ev.Anomalies):])
		if p.logStartSeen < 0 || n.Offset < p.logStartSeen {
			p.logStartSeen = n.Offset // KRaft starts its log at its oldest snapshot
		}
	case snapshot.KindIndex, snapshot.KindTimeIndex, snapshot.KindTxnIndex:
		if ev.Data == nil {
			return // too large or unreadable: already a finding
		}
		sf := sideFile{path: file, kind: n.Kind, data: ev.Data}
		if p.c.isFile(p.key.input) {
			// Given on its own: its segment is not part of the input.
			for _, f := range parseOnly(p.where(file), n.Kind, ev.Data) {
				p.add(f)
			}
			p.add(finding.New(p.where(file), finding.KindNotVerifiable, -1, -1,
				"checked on its own; give its partition dir to check its entries against its segment"))
			return
		}
		if s := p.segmentAt(n.Offset); s != nil {
			p.checkSide(s, sf)
		} else {
			if p.stash == nil {
				p.stash = map[int64][]sideFile{}
			}
			p.stash[n.Offset] = append(p.stash[n.Offset], sf)
		}
	case snapshot.KindSnapshot:
		p.snapshotFile(file, ev.Data)
	default:
		if ev.Data != nil {
			for _, f := range parseState(p.where(file), n.Kind, ev.Data) {
				p.add(f)
			}
		}
		if n.Kind == snapshot.KindLeaderEpochCheckpoint && ev.Data != nil {
			// Its first entry starts at the log start offset, or below it
			// when the broker has not truncated it yet.
			if ck, err := snapshot.ParseLeaderEpochCheckpoint(file, ev.Data); err == nil && ck != nil && len(ck.Entries) > 0 {
				p.logStartSeen = max(p.logStartSeen, ck.Entries[0].StartOffset)
				e := ck.Entries[0]
				p.epochs = &e
			}
		}
	}
}

// segmentAt returns the segment of base offset off whose batches are still
// held: the current one or the one just read.
func (p *partition) segmentAt(off int64) *segRun {
	for _, s := range []*segRun{p.cur, p.last} {
		if s != nil && s.done && s.base == off {
			return s
		}
	}
	return nil
}

// flushStash checks the index files that arrived before segment base's
// .log. With found false the segment never came.
func (p *partition) flushStash(base int64, found bool) {
	side := p.stash[base]
	delete(p.stash, base)
	for _, sf := range side {
		if found {
			p.checkSide(p.segmentAt(base), sf)
		} else {
			p.orphan(sf)
		}
	}
}

// release drops what only the partition's next files could use: a
// directory's partitions come one after another.
func (p *partition) release() {
	p.endSegment()
	p.dropLast()
	// The state kept for snapshots of the last segment: its files have
	// all come.
	p.since.reset()
	p.atStart, p.sinceOver = nil, false
	bases := make([]int64, 0, len(p.stash))
	for b := range p.stash {
		bases = append(bases, b)
	}
	slices.Sort(bases)
	for _, b := range bases {
		p.flushStash(b, false)
	}
}

// orphan keeps an index file whose segment never came. What it shows is
// said once the run is read (orphanFindings): an archive that ended
// early is known only then.
func (p *partition) orphan(sf sideFile) {
	n := snapshot.ParseName(path.Base(sf.path))
	p.orphans = append(p.orphans, orphanIndex{path: sf.path, base: n.Offset})
}

func (p *partition) checkSide(s *segRun, sf sideFile) {
	s.indexed = s.indexed || sf.kind != snapshot.KindTxnIndex
	switch sf.kind {
	case snapshot.KindIndex:
		p.checkOffsetIndex(sf.path, sf.data, s)
	case snapshot.KindTimeIndex:
		p.checkTimeIndex(sf.path, sf.data, s)
	case snapshot.KindTxnIndex:
		s.txnIndex = &sf // compared with the markers when the segment is dropped
	}
}

// tornIsDamage grades the torn batches of a file the broker writes whole
// (a KRaft snapshot, bootstrap.checkpoint).
func tornIsDamage(fs []analysis.AnomalyRow) {
	for i := range fs {
		finding.GradeTruncated(&fs[i], finding.WrittenWhole)
	}
}

// leftover notes a file in transit and parses it on its own.
func (p *partition) leftover(ev *scan.FileEvent) {
	n := ev.Entry.Name
	file := ev.Entry.Path
	why := map[string]string{
		snapshot.SuffixDeleted: "scheduled for deletion (removed after file.delete.delay.ms, or at the next broker start)",
		snapshot.SuffixCleaned: "log-cleaner output under construction (deleted at the next broker start)",
		snapshot.SuffixSwap:    "cleaned or split segment being swapped in (completed at the next broker start)",
	}[n.Suffix]
	if n.Leftover {
		why = "leftover of an atomic rewrite that was never renamed (the broker crashed or was killed while writing it)"
	}
	if n.Suffix == snapshot.SuffixDeleted && n.Kind == snapshot.KindLog {
		p.deleted = append(p.deleted, n.Offset)
		p.starts = append(p.starts, segmentStart{off: n.Offset, file: file, why: "its .deleted file remains"})
	}
	if n.Suffix == snapshot.SuffixCleaned || n.Suffix == snapshot.SuffixSwap {
		p.addEvidence(fmt.Sprintf("the log cleaner's %s file %s", n.Suffix, path.Base(file)))
	}
	p.add(finding.New(p.where(file), finding.KindLeftover, -1, -1, "%s; not part of the live log", why))
	if len(ev.Data) == 0 {
		return // an empty leftover says nothing more
	}
	for _, f := range parseOnly(p.where(file), n.Kind, ev.Data) {
		p.add(f)
	}
}
