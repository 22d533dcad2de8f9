package verify

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/pstate"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Options tune a verification. The zero value gives the defaults.
type Options struct {
	// ProducerExpirationMs is the broker's producer.id.expiration.ms,
	// used to explain producers missing from a snapshot. Default 1 day.
	ProducerExpirationMs int64
	// MaxFindingsPerFile caps the findings of one kind reported for one
	// file (a wholly wrong index would otherwise give one per entry); the
	// rest are summarised in one more finding. Default 20; < 0 is no cap.
	MaxFindingsPerFile int
	// Jobs bounds how many partitions are verified at once. Default 1.
	Jobs int
	// Segment passes limits to the segment reader.
	Segment segment.Options
}

func (o Options) withDefaults() Options {
	if o.ProducerExpirationMs <= 0 {
		o.ProducerExpirationMs = 86_400_000
	}
	if o.MaxFindingsPerFile == 0 {
		o.MaxFindingsPerFile = 20
	}
	if o.Jobs <= 0 {
		o.Jobs = 1
	}
	return o
}

// Stats count what was read.
type Stats struct {
	Files    int64 `json:"files"`
	Segments int64 `json:"segments"`
	Batches  int64 `json:"batches"`
	Records  int64 `json:"records"`
	Bytes    int64 `json:"bytes"`
}

func (s *Stats) add(o Stats) {
	s.Files += o.Files
	s.Segments += o.Segments
	s.Batches += o.Batches
	s.Records += o.Records
	s.Bytes += o.Bytes
}

// Partition describes the data found in one partition dir, for the
// checkpoint comparison.
type Partition struct {
	Dir       string
	Topic     string
	Partition int32
	// Segments is the number of live .log files.
	Segments int
	// FirstSegmentBase is the name offset of the first live segment, -1
	// when there is none.
	FirstSegmentBase int64
	// FirstOffset is the base offset of the first batch, -1 when empty.
	FirstOffset int64
	// LogEndOffset is one past the last batch, or the last segment's name
	// offset if that is higher (an empty active segment), -1 without
	// segments.
	LogEndOffset int64
}

// Report is the result of a verification.
type Report struct {
	Findings   []Finding
	Stats      Stats
	Partitions []Partition
}

// Counts reports, per kind, the findings that count for the exit code
// (errors and warnings) and, separately, the notes.
func (r *Report) Counts() (findings, notes map[string]int) {
	findings, notes = map[string]int{}, map[string]int{}
	for _, f := range r.Findings {
		if f.Counts() {
			findings[f.Kind]++
		} else {
			notes[f.Kind]++
		}
	}
	return findings, notes
}

func (r *Report) merge(o *Report) {
	r.Findings = append(r.Findings, o.Findings...)
	r.Stats.add(o.Stats)
	r.Partitions = append(r.Partitions, o.Partitions...)
}

// sortFindings orders findings by file, keeping each file's findings in the
// order they were found (byte order for segments).
func (r *Report) sortFindings() {
	slices.SortStableFunc(r.Findings, func(a, b Finding) int { return strings.Compare(a.File, b.File) })
}

// batchInfo is what the index checks need of one batch.
type batchInfo struct {
	pos, size  int64
	base, last int64
	maxTs      int64
}

// marker is one ABORT/COMMIT control batch of a segment.
type marker struct {
	pid     int64
	abort   bool
	txFirst int64 // first offset of the transaction it closed, -1 if none seen
	pos     int64
}

// segFiles groups the files of one segment base offset.
type segFiles struct {
	base                      int64
	log, index, tindex, txidx string
}

// partitionRun holds the state of one partition's verification.
type partitionRun struct {
	fsys fs.FS
	dir  string
	o    Options
	rep  Report
	caps map[[2]string]int

	st         *pstate.State
	snaps      []*snapshot.File // valid, sorted by EndOffset
	nextSnap   int
	coverFrom  int64 // first live segment's base offset
	prevLast   int64 // highest offset seen so far, -1 before any batch
	compacted  bool  // gaps seen: the log was compacted
	maxTs      int64 // largest batch timestamp applied so far
	skipTxn    bool  // single-file mode: the .txnindex was not asked for
	noSegments bool  // the partition dir has no live .log file
}

// add records a finding, applying the per-file cap.
func (p *partitionRun) add(f Finding) {
	if p.o.MaxFindingsPerFile > 0 && f.Severity != SevNote {
		k := [2]string{f.File, f.Kind}
		p.caps[k]++
		if p.caps[k] > p.o.MaxFindingsPerFile {
			return
		}
	}
	p.rep.Findings = append(p.rep.Findings, f)
}

// flushCaps adds one finding per capped (file, kind) saying how many more
// there were.
func (p *partitionRun) flushCaps() {
	keys := make([][2]string, 0)
	for k, n := range p.caps {
		if n > p.o.MaxFindingsPerFile {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1])) })
	for _, k := range keys {
		n := p.caps[k] - p.o.MaxFindingsPerFile
		p.rep.Findings = append(p.rep.Findings, newFinding(k[1], SevError, k[0], -1, -1, "%d more %s findings in this file not listed", n, k[1]))
	}
}

// VerifyPartition verifies one partition directory: every segment's
// framing, CRCs and offsets, the indexes against the log, the .txnindex
// against the ABORT markers, every producer snapshot against the producer
// state rebuilt from the log, and the leader-epoch-checkpoint and
// partition.metadata files.
func VerifyPartition(fsys fs.FS, dir string, o Options) (*Report, error) {
	o = o.withDefaults()
	p := &partitionRun{fsys: fsys, dir: dir, o: o, caps: map[[2]string]int{}, st: pstate.New(), prevLast: -1, maxTs: -1}
	info, err := p.run()
	if err != nil {
		return nil, err
	}
	p.flushCaps()
	p.rep.Partitions = []Partition{info}
	p.rep.sortFindings()
	return &p.rep, nil
}

func (p *partitionRun) join(name string) string { return path.Join(p.dir, name) }

func (p *partitionRun) run() (Partition, error) {
	info := Partition{Dir: p.dir, Partition: -1, FirstSegmentBase: -1, FirstOffset: -1, LogEndOffset: -1}
	base := path.Base(p.dir)
	if i := strings.LastIndexByte(base, '-'); i > 0 && IsPartitionDirName(base) {
		info.Topic = base[:i]
		var n int32
		if _, err := fmt.Sscanf(base[i+1:], "%d", &n); err == nil {
			info.Partition = n
		}
	}
	ents, err := fs.ReadDir(p.fsys, p.dir)
	if err != nil {
		return info, err
	}
	segs := map[int64]*segFiles{}
	seg := func(off int64) *segFiles {
		s := segs[off]
		if s == nil {
			s = &segFiles{base: off}
			segs[off] = s
		}
		return s
	}
	var snapNames []string
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		full := p.join(name)
		n := snapshot.ParseName(name)
		if n.Kind == snapshot.KindUnknown {
			continue
		}
		p.rep.Stats.Files++
		if n.Leftover || n.Suffix != "" {
			p.leftover(full, n)
			continue
		}
		switch n.Kind {
		case snapshot.KindLog:
			seg(n.Offset).log = name
		case snapshot.KindIndex:
			seg(n.Offset).index = name
		case snapshot.KindTimeIndex:
			seg(n.Offset).tindex = name
		case snapshot.KindTxnIndex:
			seg(n.Offset).txidx = name
		case snapshot.KindSnapshot:
			snapNames = append(snapNames, name)
		case snapshot.KindKRaftSnapshot, snapshot.KindBootstrapCheckpoint:
			if err := p.frameOnly(full); err != nil {
				p.add(newFinding(KindIOError, SevError, full, -1, -1, "%v", err))
			}
		default:
			if err := p.stateFile(full, n.Kind); err != nil {
				p.add(newFinding(KindIOError, SevError, full, -1, -1, "%v", err))
			}
		}
	}

	// Producer snapshots: parse all, keep the valid ones for the replay.
	for _, name := range snapNames {
		full := p.join(name)
		data, err := fs.ReadFile(p.fsys, full)
		if err != nil {
			p.add(newFinding(KindIOError, SevError, full, -1, -1, "%v", err))
			continue
		}
		f, perr := snapshot.ParseNamed(full, data)
		if perr != nil {
			for _, x := range FromStateError(full, snapshot.KindSnapshot, perr) {
				p.add(x)
			}
			continue
		}
		p.snaps = append(p.snaps, f)
	}
	slices.SortFunc(p.snaps, func(a, b *snapshot.File) int { return cmp.Compare(a.EndOffset, b.EndOffset) })

	bases := make([]int64, 0, len(segs))
	for b, s := range segs {
		if s.log == "" {
			for _, n := range []string{s.index, s.tindex, s.txidx} {
				if n != "" {
					p.add(newFinding(KindMissingSegment, SevWarning, p.join(n), -1, b,
						"index file without its segment %020d.log: the segment was not copied or was lost, so offsets from %d on may be missing "+
							"(a broker would delete this orphan index at load)", b, b))
				}
			}
			continue
		}
		bases = append(bases, b)
	}
	slices.Sort(bases)
	p.noSegments = len(bases) == 0
	if len(bases) > 0 {
		p.coverFrom = bases[0]
		info.FirstSegmentBase = bases[0]
	}
	segLast := int64(-1) // highest offset of the previous segments
	for i, b := range bases {
		s := segs[b]
		if i > 0 && segLast >= b {
			p.add(newFinding(KindSegmentOverlap, SevError, p.join(s.log), 0, b,
				"segment is named for offset %d but the segments before it already hold offsets up to %d: "+
					"the segments overlap (a leftover of an interrupted cleaning or split, or files copied from different moments)", b, segLast))
		}
		first, err := p.segment(s)
		if err != nil {
			// An unreadable segment (open or read failing) is a finding
			// about it; the other segments are still verified.
			p.add(newFinding(KindIOError, SevError, p.join(s.log), -1, -1, "%v", err))
		}
		if info.FirstOffset < 0 && first >= 0 {
			info.FirstOffset = first
		}
		segLast = max(segLast, p.prevLast)
	}
	info.Segments = len(bases)
	p.rep.Stats.Segments += int64(len(bases))
	if len(bases) > 0 {
		info.LogEndOffset = max(p.prevLast+1, bases[len(bases)-1])
	}
	// Snapshots at or beyond the last batch.
	for ; p.nextSnap < len(p.snaps); p.nextSnap++ {
		p.compareSnapshot(p.snaps[p.nextSnap], info.LogEndOffset)
	}
	return info, nil
}

// leftover notes a file in transit and still checks its framing.
func (p *partitionRun) leftover(full string, n snapshot.Name) {
	why := map[string]string{
		snapshot.SuffixDeleted: "scheduled for deletion (removed after file.delete.delay.ms, or at the next broker start)",
		snapshot.SuffixCleaned: "log-cleaner output under construction (deleted at the next broker start)",
		snapshot.SuffixSwap:    "cleaned or split segment being swapped in (completed at the next broker start)",
	}[n.Suffix]
	if n.Leftover {
		why = "leftover of an atomic rewrite that was never renamed (the broker crashed or was killed while writing it)"
	}
	p.add(newFinding(KindLeftover, SevNote, full, -1, -1, "%s; not part of the live log", why))
	switch n.Kind {
	case snapshot.KindLog:
		if err := p.frameOnly(full); err != nil {
			p.add(newFinding(KindIOError, SevError, full, -1, -1, "%v", err))
		}
	case snapshot.KindSnapshot, snapshot.KindIndex, snapshot.KindTimeIndex, snapshot.KindTxnIndex:
		data, err := fs.ReadFile(p.fsys, full)
		if err != nil {
			p.add(newFinding(KindIOError, SevError, full, -1, -1, "%v", err))
			return
		}
		for _, f := range parseOnly(full, n.Kind, data) {
			p.add(f)
		}
	default:
		if err := p.stateFile(full, n.Kind); err != nil {
			p.add(newFinding(KindIOError, SevError, full, -1, -1, "%v", err))
		}
	}
}

// stateFile parses a small text state file and reports what is wrong.
func (p *partitionRun) stateFile(full string, k snapshot.Kind) error {
	data, err := fs.ReadFile(p.fsys, full)
	if err != nil {
		return err
	}
	for _, f := range parseOnly(full, k, data) {
		p.add(f)
	}
	return nil
}

// parseOnly parses any non-log file on its own and returns its findings.
func parseOnly(full string, k snapshot.Kind, data []byte) []Finding {
	var out []Finding
	var err error
	switch k {
	case snapshot.KindIndex:
		_, xs := segment.ParseOffsetIndex(full, data, -1)
		for _, x := range xs {
			out = append(out, FromIndexFinding(x))
		}
		return out
	case snapshot.KindTimeIndex:
		_, xs := segment.ParseTimeIndex(full, data, -1)
		for _, x := range xs {
			out = append(out, FromIndexFinding(x))
		}
		return out
	case snapshot.KindTxnIndex:
		_, xs := segment.ParseTxnIndex(full, data, -1)
		for _, x := range xs {
			out = append(out, FromIndexFinding(x))
		}
		return out
	case snapshot.KindSnapshot:
		_, err = snapshot.ParseNamed(full, data)
	case snapshot.KindLeaderEpochCheckpoint:
		_, err = snapshot.ParseLeaderEpochCheckpoint(full, data)
	case snapshot.KindPartitionMetadata:
		_, err = snapshot.ParsePartitionMetadata(full, data)
	case snapshot.KindMetaProperties:
		_, err = snapshot.ParseMetaProperties(full, data)
	case snapshot.KindCleanShutdown:
		_, err = snapshot.ParseCleanShutdown(full, data)
	case snapshot.KindQuorumState:
		_, err = snapshot.ParseQuorumState(full, data)
	default:
		if k.IsOffsetCheckpoint() {
			_, err = snapshot.ParseOffsetCheckpoint(full, data)
		}
	}
	return FromStateError(full, k, err)
}

// frameOnly reads a batch file (a segment in transit, a KRaft snapshot)
// for framing and CRC findings only.
func (p *partitionRun) frameOnly(full string) error {
	f, err := p.fsys.Open(full)
	if err != nil {
		return err
	}
	defer f.Close()
	opts := p.o.Segment
	opts.Path = full
	r := segment.NewReader(f, opts)
	defer r.Close()
	for r.Next() {
		if ce := r.Finding(); ce != nil {
			p.add(FromCorruption(ce))
			continue
		}
		p.rep.Stats.Batches++
		p.rep.Stats.Bytes += r.Batch().Size()
		p.countRecords(r, full)
	}
	return r.Err()
}

// countRecords decodes the current batch's records, reporting decode
// problems, and returns the first record's control fields.
func (p *partitionRun) countRecords(r *segment.Reader, full string) (first *segment.Record, ok bool) {
	it := r.Records()
	var rec segment.Record
	for it.Next() {
		p.rep.Stats.Records++
		if !ok {
			rec = *it.Record()
			rec.Key, rec.Value, rec.Headers = nil, nil, nil
			ok = true
		}
	}
	if err := it.Err(); err != nil {
		if ce, isCE := err.(*segment.CorruptionError); isCE {
			p.add(FromCorruption(ce))
		} else {
			p.add(newFinding(KindIOError, SevError, full, -1, -1, "%v", err))
		}
	}
	if !ok {
		return nil, false
	}
	return &rec, true
}

// segment verifies one live segment and its indexes, replaying its batches
// into the producer state. It returns the first batch's base offset, or -1.
func (p *partitionRun) segment(s *segFiles) (int64, error) {
	full := p.join(s.log)
	f, err := p.fsys.Open(full)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	opts := p.o.Segment
	opts.Path = full
	r := segment.NewReader(f, opts)
	defer r.Close()

	var batches []batchInfo
	markers := map[int64]marker{}
	var gaps []string
	nGaps := 0
	firstGap := [2]int64{-1, -1}
	first := int64(-1)
	for r.Next() {
		if ce := r.Finding(); ce != nil {
			p.add(FromCorruption(ce))
			continue
		}
		b := r.Batch()
		p.rep.Stats.Batches++
		p.rep.Stats.Bytes += b.Size()
		if first < 0 {
			first = b.BaseOffset
			if b.BaseOffset < s.base {
				p.add(newFinding(KindNameMismatch, SevError, full, b.Position, b.BaseOffset,
					"first batch starts at offset %d, below the offset %d in the segment's name: the broker finds segments by name, so offsets %d..%d cannot be read through it",
					b.BaseOffset, s.base, b.BaseOffset, s.base-1))
			}
		}
		regressed := b.BaseOffset <= p.prevLast
		switch {
		case regressed:
			what := "repeats"
			if b.LastOffset() < p.prevLast {
				what = "goes back below"
			}
			p.add(newFinding(KindOffsetRegression, SevError, full, b.Position, b.BaseOffset,
				"batch with offsets %d..%d %s offsets already seen (up to %d): the log holds overlapping data",
				b.BaseOffset, b.LastOffset(), what, p.prevLast))
		case p.prevLast >= 0 && b.BaseOffset > p.prevLast+1:
			nGaps++
			p.compacted = true
			if firstGap[0] < 0 {
				firstGap = [2]int64{b.Position, p.prevLast + 1}
			}
			if len(gaps) < 5 {
				gaps = append(gaps, fmt.Sprintf("%d is followed by %d", p.prevLast, b.BaseOffset))
			}
		}
		batches = append(batches, batchInfo{pos: b.Position, size: b.Size(), base: b.BaseOffset, last: b.LastOffset(), maxTs: b.MaxTimestamp})

		pb := pstate.Batch{BaseOffset: b.BaseOffset, LastOffset: b.LastOffset(), Magic: b.Magic, ProducerID: b.ProducerID,
			ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence, LastSequence: b.LastSequence(),
			MaxTimestamp: b.MaxTimestamp, Transactional: b.IsTransactional(), Control: b.IsControl()}
		if rec, ok := p.countRecords(r, full); ok && b.IsControl() {
			pb.HasRecord, pb.ControlType, pb.CoordinatorEpoch, pb.RecordTimestamp = true, rec.ControlType, rec.CoordinatorEpoch, rec.Timestamp
		}
		// Snapshots whose end offset this batch is not below are complete.
		for p.nextSnap < len(p.snaps) && p.snaps[p.nextSnap].EndOffset <= pb.LastOffset {
			p.compareSnapshot(p.snaps[p.nextSnap], -1)
			p.nextSnap++
		}
		if regressed {
			// Overlapping data is not replayed: the broker's log would not
			// hold it, and replaying it would only repeat the finding.
			continue
		}
		if done := p.st.Apply(pb); done != nil {
			markers[pb.BaseOffset] = marker{pid: done.ProducerID, abort: done.Aborted, txFirst: done.FirstOffset, pos: b.Position}
		}
		if b.Magic >= 2 && !b.IsControl() && b.MaxTimestamp > p.maxTs {
			p.maxTs = b.MaxTimestamp
		}
		p.prevLast = max(p.prevLast, b.LastOffset())
	}
	if err := r.Err(); err != nil {
		return first, err
	}
	if nGaps > 0 {
		more := ""
		if nGaps > len(gaps) {
			more = fmt.Sprintf(", … (%d in all)", nGaps)
		}
		p.add(newFinding(KindOffsetGap, SevNote, full, firstGap[0], firstGap[1],
			"non-consecutive offsets between batches, as compaction or retention leaves them: %s%s", strings.Join(gaps, ", "), more))
	}
	size := int64(0)
	if st, err := fs.Stat(p.fsys, full); err == nil {
		size = st.Size()
	}
	if s.index != "" {
		p.checkOffsetIndex(p.join(s.index), s.base, batches, size)
	}
	if s.tindex != "" {
		p.checkTimeIndex(p.join(s.tindex), s.base, batches)
	}
	p.checkTxnIndex(s, markers)
	return first, nil
}

func (p *partitionRun) readIndex(full string) ([]byte, bool) {
	data, err := fs.ReadFile(p.fsys, full)
	if err != nil {
		p.add(newFinding(KindIOError, SevError, full, -1, -1, "%v", err))
		return nil, false
	}
	return data, true
}

// batchAtPos returns the index of the batch starting at pos, or of the
// batch containing it with false, or -1.
func batchAtPos(bs []batchInfo, pos int64) (int, bool) {
	i := sort.Search(len(bs), func(i int) bool { return bs[i].pos >= pos })
	if i < len(bs) && bs[i].pos == pos {
		return i, true
	}
	if i > 0 && pos < bs[i-1].pos+bs[i-1].size {
		return i - 1, false
	}
	return -1, false
}

// batchWithOffset returns the index of the batch whose offsets include off,
// or -1. Batches are in offset order in a healthy segment; a regression is
// reported elsewhere and may make this miss.
func batchWithOffset(bs []batchInfo, off int64) int {
	i := sort.Search(len(bs), func(i int) bool { return bs[i].last >= off })
	if i < len(bs) && bs[i].base <= off {
		return i
	}
	return -1
}

// checkOffsetIndex checks every .index entry: its position must be a batch
// start, and its offset the last offset of that batch or, for a follower's
// multi-batch append, of a later one (kafka-formats.md §7.1).
func (p *partitionRun) checkOffsetIndex(full string, base int64, bs []batchInfo, logSize int64) {
	data, ok := p.readIndex(full)
	if !ok {
		return
	}
	x, xs := segment.ParseOffsetIndex(full, data, base)
	for _, f := range xs {
		p.add(FromIndexFinding(f))
	}
	for n, e := range x.Entries {
		pos := int64(n * segment.OffsetIndexEntrySize)
		i, start := batchAtPos(bs, int64(e.Position))
		switch {
		case int64(e.Position) >= logSize:
			p.add(newFinding(KindIndexMismatch, SevError, full, pos, e.Offset,
				"entry %d points to byte %d, past the end of the .log (%d bytes): the log was truncated after the index was written, or the copy is inconsistent",
				n, e.Position, logSize))
			continue
		case i < 0:
			p.add(newFinding(KindIndexMismatch, SevError, full, pos, e.Offset,
				"entry %d points to byte %d, where no batch was read (damaged bytes?)", n, e.Position))
			continue
		case !start:
			p.add(newFinding(KindIndexMismatch, SevError, full, pos, e.Offset,
				"entry %d points to byte %d, inside the batch at byte %d (offsets %d..%d), not to a batch start",
				n, e.Position, bs[i].pos, bs[i].base, bs[i].last))
			continue
		}
		if bs[i].last == e.Offset {
			continue
		}
		j := batchWithOffset(bs[i:], e.Offset)
		if j < 0 || bs[i+j].last != e.Offset {
			p.add(newFinding(KindIndexMismatch, SevError, full, pos, e.Offset,
				"entry %d maps offset %d to byte %d, but the batch there ends at offset %d and no later batch ends at %d",
				n, e.Offset, e.Position, bs[i].last, e.Offset))
		}
	}
}

// checkTimeIndex checks every .timeindex entry: its offset must be in a
// batch of the segment whose max timestamp is the entry's timestamp and the
// largest of the segment up to there (kafka-formats.md §7.2). Linear in the
// number of batches plus entries × log(batches).
func (p *partitionRun) checkTimeIndex(full string, base int64, bs []batchInfo) {
	data, ok := p.readIndex(full)
	if !ok {
		return
	}
	x, xs := segment.ParseTimeIndex(full, data, base)
	for _, f := range xs {
		p.add(FromIndexFinding(f))
	}
	prefix := make([]int64, len(bs))
	m := int64(-1)
	for i, b := range bs {
		m = max(m, b.maxTs)
		prefix[i] = m
	}
	for n, e := range x.Entries {
		pos := int64(n * segment.TimeIndexEntrySize)
		i := batchWithOffset(bs, e.Offset)
		if i < 0 {
			p.add(newFinding(KindIndexMismatch, SevError, full, pos, e.Offset,
				"entry %d (timestamp %d) names offset %d, which is in no batch of the segment", n, e.Timestamp, e.Offset))
			continue
		}
		if e.Timestamp != prefix[i] || e.Timestamp != bs[i].maxTs {
			p.add(newFinding(KindIndexMismatch, SevError, full, pos, e.Offset,
				"entry %d has timestamp %d for offset %d, but the batch holding it (byte %d) has max timestamp %d and the largest timestamp of the segment up to it is %d",
				n, e.Timestamp, e.Offset, bs[i].pos, bs[i].maxTs, prefix[i]))
		}
	}
}

// checkTxnIndex compares a segment's .txnindex with the ABORT markers the
// replay found in it.
func (p *partitionRun) checkTxnIndex(s *segFiles, markers map[int64]marker) {
	if p.skipTxn {
		return
	}
	indexed := map[int64]bool{}
	var full string
	if s.txidx != "" {
		full = p.join(s.txidx)
		data, ok := p.readIndex(full)
		if !ok {
			return
		}
		x, xs := segment.ParseTxnIndex(full, data, s.base)
		for _, f := range xs {
			p.add(FromIndexFinding(f))
		}
		for n, a := range x.Entries {
			pos := int64(n * segment.TxnIndexEntrySize)
			m, ok := markers[a.LastOffset]
			f := newFinding(KindTxnIndexMismatch, SevError, full, pos, a.LastOffset, "")
			f.ProducerID = a.ProducerID
			switch {
			case !ok:
				f.Message = fmt.Sprintf("entry %d says producer %d's transaction %d..%d was aborted at offset %d, but there is no transaction marker at that offset in %s",
					n, a.ProducerID, a.FirstOffset, a.LastOffset, a.LastOffset, s.log)
			case m.pid != a.ProducerID:
				f.Message = fmt.Sprintf("entry %d names producer %d, but the marker at offset %d belongs to producer %d", n, a.ProducerID, a.LastOffset, m.pid)
			case !m.abort:
				f.Message = fmt.Sprintf("entry %d says producer %d's transaction was aborted at offset %d, but the marker there is a COMMIT: read_committed consumers would skip committed records",
					n, a.ProducerID, a.LastOffset)
			case m.txFirst >= 0 && a.FirstOffset != m.txFirst:
				f.Message = fmt.Sprintf("entry %d gives first offset %d for producer %d's aborted transaction, but its first batch in the log is at offset %d",
					n, a.FirstOffset, a.ProducerID, m.txFirst)
			case m.txFirst < 0 && a.FirstOffset >= p.coverFrom && a.FirstOffset != a.LastOffset:
				f.Message = fmt.Sprintf("entry %d gives first offset %d for producer %d's aborted transaction, but the log has no open transaction of that producer before the marker at %d",
					n, a.FirstOffset, a.ProducerID, a.LastOffset)
			default:
				indexed[a.LastOffset] = true
				continue
			}
			indexed[a.LastOffset] = true
			p.add(f)
		}
	}
	offs := make([]int64, 0, len(markers))
	for off, m := range markers {
		if m.abort && m.txFirst >= 0 && !indexed[off] {
			offs = append(offs, off)
		}
	}
	slices.Sort(offs)
	for _, off := range offs {
		m := markers[off]
		where := "in " + path.Base(full)
		if full == "" {
			where = "indexed: the segment has no .txnindex"
		}
		f := newFinding(KindTxnIndexMismatch, SevWarning, p.join(s.log), m.pos, off,
			"ABORT marker of producer %d closing a transaction from offset %d is not %s; read_committed consumers of this segment would not skip the aborted records",
			m.pid, m.txFirst, where)
		f.ProducerID = m.pid
		p.add(f)
	}
}

// compareSnapshot compares snapshot f with the producer state rebuilt from
// the batches below its end offset. logEnd ≥ 0 when called after the last
// batch (the log end offset), -1 otherwise.
func (p *partitionRun) compareSnapshot(f *snapshot.File, logEnd int64) {
	file := f.Path
	end := f.EndOffset
	if logEnd >= 0 && end > logEnd {
		p.add(newFinding(KindSnapshotAhead, SevWarning, file, -1, end,
			"snapshot covers offsets below %d but the log ends at %d: the copy was taken while the broker was writing, or the log was truncated after the snapshot",
			end, logEnd))
	}
	if p.rep.Stats.Segments == 0 && p.coverFrom == 0 && p.prevLast < 0 && p.noSegments {
		if len(f.Entries) > 0 {
			p.add(newFinding(KindNotVerifiable, SevNote, file, -1, end,
				"the partition dir holds no .log file, so the snapshot's %d producers cannot be checked against the log", len(f.Entries)))
		}
		return
	}
	if end <= p.coverFrom && p.coverFrom > 0 {
		if len(f.Entries) > 0 {
			p.add(newFinding(KindNotVerifiable, SevNote, file, -1, end,
				"snapshot ends at %d, at or below the first segment on disk (%d): its %d producers refer to deleted data (the broker deletes such snapshots at load)",
				end, p.coverFrom, len(f.Entries)))
		}
		return
	}
	seen := map[int64]bool{}
	emptyNote := len(f.Entries) == 0 && p.st.Len() > 0
	if emptyNote {
		p.add(newFinding(KindSnapshotMismatch, SevWarning, file, -1, end,
			"snapshot is empty but the log below %d holds %d producers: a broker writes empty snapshots when it loads a log with no snapshot after a clean shutdown "+
				"(e.g. after an upgrade from a pre-0.11 message format); otherwise producer state was lost", end, p.st.Len()))
		return
	}
	for n, e := range f.Entries {
		pos := int64(snapshot.HeaderSize + n*snapshot.EntrySize)
		seen[e.ProducerID] = true
		r := p.st.Get(e.ProducerID)
		mk := func(sev, format string, args ...any) Finding {
			x := newFinding(KindSnapshotMismatch, sev, file, pos, e.LastOffset, format, args...)
			x.ProducerID = e.ProducerID
			return x
		}
		if r == nil {
			switch {
			case e.LastOffset >= 0 && e.LastOffset >= end:
				p.add(mk(SevError, "producer %d: last offset %d is not below the snapshot's end offset %d", e.ProducerID, e.LastOffset, end))
			case p.coverFrom > 0 && (e.LastOffset < p.coverFrom):
				x := mk(SevNote, "producer %d (last offset %d) is not verifiable: data before log start (the first segment on disk begins at %d)",
					e.ProducerID, e.LastOffset, p.coverFrom)
				x.Kind = KindNotVerifiable
				p.add(x)
			case p.compacted:
				p.add(mk(SevWarning, "extra producer %d: the snapshot has it (last offset %d) but the log below %d holds no batch of it; the log was compacted, which can remove an expired producer's batches",
					e.ProducerID, e.LastOffset, end))
			default:
				p.add(mk(SevError, "extra producer %d: the snapshot has it (last offset %d, sequence %d) but the log below %d holds no batch of it",
					e.ProducerID, e.LastOffset, e.LastSequence, end))
			}
			continue
		}
		partial := p.coverFrom > 0 // data before the first segment is gone
		type field struct {
			name      string
			snap, log int64
		}
		fields := []field{
			{"producerEpoch", int64(e.Epoch), int64(r.Epoch)},
			{"lastSequence", int64(e.LastSequence), int64(r.LastSequence)},
			{"lastOffset", e.LastOffset, r.LastOffset},
			{"offsetDelta", int64(e.OffsetDelta), int64(r.OffsetDelta)},
			{"timestamp", e.Timestamp, r.Timestamp},
			{"coordinatorEpoch", int64(e.CoordinatorEpoch), int64(r.CoordinatorEpoch)},
			{"currentTxnFirstOffset", e.CurrentTxnFirstOffset, r.CurrentTxnFirstOffset},
		}
		for _, fd := range fields {
			if fd.snap == fd.log {
				continue
			}
			// State set by markers or transactions older than the first
			// segment cannot be checked.
			if partial && ((fd.name == "coordinatorEpoch" && r.Markers == 0) || (fd.name == "currentTxnFirstOffset" && fd.snap >= 0 && fd.snap < p.coverFrom)) {
				x := mk(SevNote, "producer %d: %s %d in the snapshot is not verifiable: data before log start (%d)", e.ProducerID, fd.name, fd.snap, p.coverFrom)
				x.Kind = KindNotVerifiable
				p.add(x)
				continue
			}
			p.add(mk(SevError, "producer %d: %s is %d in the snapshot but %d in the log (rebuilt from the batches below %d; the producer's last write there is at offset %d)",
				e.ProducerID, fd.name, fd.snap, fd.log, end, r.LastWrite))
		}
	}
	for _, r := range p.st.Entries() {
		if seen[r.ProducerID] {
			continue
		}
		sev := SevWarning
		why := fmt.Sprintf("if the broker ran for producer.id.expiration.ms (%d ms) after the producer's last write (timestamp %d) it expired the producer and this is expected; otherwise the snapshot lost it",
			p.o.ProducerExpirationMs, r.Timestamp)
		if p.maxTs >= 0 && r.Timestamp >= 0 && p.maxTs-r.Timestamp >= p.o.ProducerExpirationMs {
			sev = SevNote
			why = fmt.Sprintf("its last write (timestamp %d) is %d ms before the newest timestamp in the log, beyond producer.id.expiration.ms (%d ms): the broker expired it",
				r.Timestamp, p.maxTs-r.Timestamp, p.o.ProducerExpirationMs)
		}
		x := newFinding(KindSnapshotMismatch, sev, file, -1, r.LastWrite,
			"missing producer %d: the log below %d has its batches (last write at offset %d, epoch %d, last sequence %d) but the snapshot does not; %s",
			r.ProducerID, end, r.LastWrite, r.Epoch, r.LastSequence, why)
		x.ProducerID = r.ProducerID
		p.add(x)
	}
}
