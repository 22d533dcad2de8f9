// Package recovery predicts, without touching the files, what a Kafka
// broker's log loader does with each partition dir of a copy at startup,
// following the steps of LogManager.loadLogs and LogLoader.load (Kafka
// 3.x and 4.x, storage module):
//
//  1. leftovers: .deleted files are deleted, .cleaned files are deleted,
//     .swap files at or above the smallest .cleaned offset are deleted (an
//     unfinished split), the other .swap segments are renamed into place
//     after the segments they replace are deleted;
//  2. index files without their .log are deleted; a segment without its
//     .index, or with a .txnindex whose size is no multiple of its entry,
//     is recovered (its indexes rebuilt); a missing .timeindex is created
//     empty;
//  3. without the log dir's .kafka_cleanshutdown marker, every segment from
//     the one holding the recovery point (recovery-point-offset-checkpoint,
//     0 without an entry) on is recovered: its batches are validated (CRC
//     and framing), its indexes rebuilt, and it is truncated at the first
//     invalid batch, after which every later segment is deleted;
//  4. all segments are deleted when the log ends below the checkpointed
//     log start; the log start becomes max(checkpoint, first segment base);
//     on a clean start the log end is read from the active segment's
//     offset index's last entry on (LogSegment.readNextOffset), the
//     segment's base offset when no batch is there;
//  5. producer snapshots not at a segment base offset are deleted (but
//     the newest when it is at or past the last segment's base), then
//     those below the log start or past the log end.
//
// Each prediction names the files and the step it rests on. The state
// afterwards is the log start, the log end and the high watermark the
// partition takes (the checkpointed one, bounded by the log start and
// end). Pure computation: it is fed batch rows and the file list.
package recovery

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Action kinds, and the prediction's rows: the outputs read them as the
// vocabulary's types (analysis.RecoveryPartition).
const (
	ActDelete         = analysis.ActDelete
	ActRename         = analysis.ActRename
	ActRecover        = analysis.ActRecover
	ActTruncate       = analysis.ActTruncate
	ActCreateIndex    = analysis.ActCreateIndex
	ActDeleteSnapshot = analysis.ActDeleteSnapshot
	ActDeleteDir      = analysis.ActDeleteDir
	ActSkip           = analysis.ActSkip
	ActResetLogEnd    = analysis.ActResetLogEnd
)

type (
	// Action is one predicted step.
	Action = analysis.RecoveryAction
	// Partition is the prediction for one partition dir.
	Partition = analysis.RecoveryPartition
)

type batchSum struct {
	validEnd  int64 // end of the last valid batch before the first invalid one
	nextValid int64 // last offset + 1 of that batch, -1 none
	invalid   bool  // an invalid batch or framing was met
	// nextAny is the last offset + 1 of the last whole batch, valid or
	// not: what a segment that is not recovered reads as its next offset.
	nextAny int64
	// lastPos and lastOff are the byte and last offset of the last whole
	// batch: where a clean start's read from the index's last entry ends.
	lastPos, lastOff int64
}

// Simulator gathers the batches of every segment. Not safe for concurrent
// use.
type Simulator struct {
	segs    map[segKey]*batchSum
	lastKey segKey
	last    *batchSum
}

type segKey struct {
	input int32
	path  string
}

// New returns an empty Simulator.
func New() *Simulator { return &Simulator{segs: map[segKey]*batchSum{}} }

// Batch adds one batch row of a segment (live or .swap); the rows of one
// file must come in position order.
func (s *Simulator) Batch(b *analysis.BatchRow) {
	k := segKey{b.Input, b.Segment}
	if s.last == nil || k != s.lastKey {
		s.last = s.segs[k]
		if s.last == nil {
			s.last = &batchSum{nextValid: -1, nextAny: -1, lastPos: -1, lastOff: -1}
			s.segs[k] = s.last
		}
		s.lastKey = k
	}
	sum := s.last
	sum.nextAny = max(sum.nextAny, b.LastOffset+1)
	if b.Position >= sum.lastPos {
		sum.lastPos, sum.lastOff = b.Position, b.LastOffset
	}
	if sum.invalid {
		return
	}
	// What LogSegment.recover checks: each batch's CRC (ensureValid), and
	// that batches follow one another (bytes between them are framing
	// the reader cannot parse).
	if !b.CRCValid || b.Position != sum.validEnd {
		sum.invalid = true
		return
	}
	sum.validEnd = b.Position + b.SizeBytes
	sum.nextValid = b.LastOffset + 1
}

// Inputs is the rest of what the prediction needs.
type Inputs struct {
	Files    []analysis.FileRow
	Findings []analysis.AnomalyRow
	// Checkpoint is a partition's entry in an offset checkpoint of the log
	// dir logDir of input.
	Checkpoint func(kind snapshot.Kind, input int32, logDir, topic string, part int32) (int64, bool)
	// IndexEnd is the last entry (offset, byte) of the offset index of the
	// segment at path seg of input, as the broker opens it; ok false
	// when no .index of it was read.
	IndexEnd func(input int32, seg string) (off, pos int64, ok bool)
	Source   func(input int32) string
}

type file struct {
	row  *analysis.FileRow
	name snapshot.Name
	base string // file name
}

type dirKey struct {
	input int32
	dir   string
}

// Finish predicts every partition dir, sorted by input, topic, partition
// and dir.
func (s *Simulator) Finish(in Inputs) []Partition {
	dirs := map[dirKey][]file{}
	clean := map[dirKey]bool{}
	var order []dirKey
	for i := range in.Files {
		f := &in.Files[i]
		base := path.Base(f.Path)
		n := snapshot.ParseName(base)
		d := path.Dir(f.Path)
		if n.Kind == snapshot.KindCleanShutdown {
			clean[dirKey{f.Input, d}] = true
			continue
		}
		if f.Partition == nil || f.Topic == nil {
			continue
		}
		k := dirKey{f.Input, d}
		if _, ok := dirs[k]; !ok {
			order = append(order, k)
		}
		dirs[k] = append(dirs[k], file{row: f, name: n, base: base})
	}
	bad := map[segKey]string{} // files with a format finding that matters to the loader
	for _, a := range in.Findings {
		switch a.Kind {
		case finding.KindIndexFormat, finding.KindSnapshotCRC, finding.KindSnapshotFormat:
			if _, ok := bad[segKey{a.Input, a.File}]; !ok {
				bad[segKey{a.Input, a.File}] = string(a.Kind) + ": " + a.Message
			}
		}
	}
	var out []Partition
	for _, k := range order {
		fs := dirs[k]
		p := s.predict(k, fs, clean[dirKey{k.input, path.Dir(k.dir)}], bad, in)
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		return analysis.CopyOrder{Input: a.Input, Topic: a.Topic, Partition: a.Partition, Dir: a.Dir}.Compare(
			analysis.CopyOrder{Input: b.Input, Topic: b.Topic, Partition: b.Partition, Dir: b.Dir}) < 0
	})
	return out
}

type seg struct {
	base int64
	file string // the .log (or the .swap it is renamed from)
	size int64
	sum  *batchSum
}

// predict runs the loader's steps (see the package doc) over the files
// fs of one partition dir.
func (s *Simulator) predict(k dirKey, fs []file, clean bool, bad map[segKey]string, in Inputs) Partition {
	l := s.newLoad(k, fs[0].row, clean, bad, in)
	if l.p.Topic == "__cluster_metadata" {
		l.act(ActSkip, k.dir, -1, "the KRaft metadata log is loaded by the Raft layer (KafkaMetadataLog), not by LogManager")
		return l.p
	}
	l.p.RecoveryPoint = l.checkpoint(snapshot.KindRecoveryPointCheckpoint)
	l.p.LogStartCheckpoint = l.checkpoint(snapshot.KindLogStartCheckpoint)
	deleteDir := strings.HasSuffix(k.dir, "-delete") || fs[0].row.DirState == "delete"

	// Step 1: leftovers (removeTempFilesAndCollectSwapFiles, then the
	// swap passes of load).
	l.leftovers(fs)
	l.replacedBySwaps(fs)
	l.renameSwaps()
	l.collect(fs)
	// Step 2: loadSegmentFiles.
	bases := l.loadSegmentFiles()
	// Step 3: recoverLog, only for a live dir and an unclean start.
	if deleteDir {
		l.act(ActDeleteDir, k.dir, -1, "a -delete dir is loaded without recovery and deleted after file.delete.delay.ms")
	} else if !clean {
		bases = l.recoverLog(bases)
	}
	// Step 4: the state afterwards.
	bases = l.stateAfter(bases, deleteDir)
	// Step 5: producer snapshots.
	l.p.Snapshots = snapshotsAfter(k, l.snaps, bases, l.recOrder, l.segEnd,
		l.p.LogStartCheckpoint, l.p.LogStartOffset, l.p.LogEndOffset, bad, l.act)
	return l.p
}

// load is the prediction of one partition dir while the loader's steps
// run: what each step leaves to the next.
type load struct {
	s   *Simulator
	k   dirKey
	in  Inputs
	bad map[segKey]string // files with a format finding that matters to the loader
	p   Partition

	// Step 1: the files it deletes (by name), and the .swap files it
	// renames into place.
	gone  map[string]bool
	swaps []file
	// The files loaded after step 1: segments and index files by base
	// offset, and producer snapshots.
	segs    map[int64]*seg
	indexes map[int64]map[snapshot.Kind]string
	snaps   []file
	// Recovery so far: the segments recovered, in the order the loader
	// recovers them, the offset each ends at, and those truncated.
	recovered   map[int64]bool
	recOrder    []int64
	segEnd      map[int64]int64
	truncatedAt map[int64]bool
}

// newLoad starts the prediction of the partition dir k, whose first file
// is f0.
func (s *Simulator) newLoad(k dirKey, f0 *analysis.FileRow, clean bool, bad map[segKey]string, in Inputs) *load {
	l := &load{
		s:   s,
		k:   k,
		in:  in,
		bad: bad,
		p: Partition{
			Type:      "recovery",
			Input:     k.input,
			Topic:     *f0.Topic,
			Partition: *f0.Partition,
			Dir:       k.dir,
			Clean:     clean,
			Actions:   []Action{},
		},
		gone:        map[string]bool{},
		segs:        map[int64]*seg{},
		indexes:     map[int64]map[snapshot.Kind]string{},
		recovered:   map[int64]bool{},
		segEnd:      map[int64]int64{},
		truncatedAt: map[int64]bool{},
	}
	if in.Source != nil {
		l.p.Source = in.Source(k.input)
	}
	return l
}

// act records a predicted step; rule is a format for args.
func (l *load) act(a, file string, off int64, rule string, args ...any) {
	l.p.Actions = append(l.p.Actions, Action{Action: a, File: file, Offset: off, Rule: fmt.Sprintf(rule, args...)})
}

// checkpoint is the partition's entry in the log dir's checkpoint of
// kind, 0 without one, as the loader reads it.
func (l *load) checkpoint(kind snapshot.Kind) int64 {
	if l.in.Checkpoint != nil {
		if v, ok := l.in.Checkpoint(kind, l.k.input, path.Dir(l.k.dir), l.p.Topic, l.p.Partition); ok {
			return v
		}
	}
	return 0
}

// leftovers deletes the .deleted and .cleaned files, and the .swap files
// of an unfinished split (at or above the smallest .cleaned offset); the
// other .swap files are kept to be renamed.
func (l *load) leftovers(fs []file) {
	minCleaned := int64(1<<63 - 1)
	for _, f := range fs {
		if f.name.Suffix == snapshot.SuffixCleaned && f.name.Offset >= 0 {
			minCleaned = min(minCleaned, f.name.Offset)
		}
	}
	for _, f := range fs {
		switch f.name.Suffix {
		case snapshot.SuffixDeleted:
			l.act(ActDelete, f.row.Path, f.name.Offset, "a stray file marked for deletion (.deleted) is deleted at load")
			l.gone[f.base] = true
		case snapshot.SuffixCleaned:
			l.act(ActDelete, f.row.Path, f.name.Offset, "a .cleaned file (log-cleaner output never swapped in) is deleted at load")
			l.gone[f.base] = true
		case snapshot.SuffixSwap:
			if f.name.Offset >= minCleaned {
				l.act(ActDelete, f.row.Path, f.name.Offset,
					"a .swap file at or above the smallest .cleaned offset (%d) is part of an unfinished segment split and is deleted", minCleaned)
				l.gone[f.base] = true
				continue
			}
			l.swaps = append(l.swaps, f)
		}
	}
}

// replacedBySwaps deletes the files of the segments the kept .swap
// segments replace: those within the offsets the swaps cover.
func (l *load) replacedBySwaps(fs []file) {
	minSwap, maxSwap := int64(1<<63-1), int64(-1<<63)
	for _, f := range l.swaps {
		if f.name.Kind != snapshot.KindLog {
			continue
		}
		next := f.name.Offset
		if sum := l.s.segs[segKey{l.k.input, f.row.Path}]; sum != nil && sum.nextValid >= 0 {
			next = sum.nextValid
		}
		minSwap, maxSwap = min(minSwap, f.name.Offset), max(maxSwap, next)
	}
	for _, f := range fs {
		replaced := f.name.Suffix == "" && f.name.Offset >= 0 && f.name.Offset >= minSwap && f.name.Offset < maxSwap
		if replaced && !l.gone[f.base] {
			l.act(ActDelete, f.row.Path, f.name.Offset,
				"a file of a segment a .swap replaces (offsets %d..%d): compacted or split but not yet deleted", minSwap, maxSwap-1)
			l.gone[f.base] = true
		}
	}
}

// addSeg adds the segment of base offset base, read from file.
func (l *load) addSeg(base int64, file string, size int64) {
	l.segs[base] = &seg{base: base, file: file, size: size, sum: l.s.segs[segKey{l.k.input, file}]}
}

// addIndex adds an index file of the segment of base offset base.
func (l *load) addIndex(base int64, kind snapshot.Kind, file string) {
	if l.indexes[base] == nil {
		l.indexes[base] = map[snapshot.Kind]string{}
	}
	l.indexes[base][kind] = file
}

// renameSwaps completes the interrupted swaps: each kept .swap file takes
// the place of the file it names.
func (l *load) renameSwaps() {
	for _, f := range l.swaps {
		l.act(ActRename, f.row.Path, f.name.Offset, "a valid .swap file is renamed to %s (an interrupted swap completed)",
			strings.TrimSuffix(f.base, snapshot.SuffixSwap))
		switch f.name.Kind {
		case snapshot.KindLog:
			l.addSeg(f.name.Offset, f.row.Path, f.row.Size)
		case snapshot.KindIndex, snapshot.KindTimeIndex, snapshot.KindTxnIndex:
			l.addIndex(f.name.Offset, f.name.Kind, f.row.Path)
		}
	}
}

// collect gathers the files step 1 left: segments, index files and
// producer snapshots.
func (l *load) collect(fs []file) {
	for _, f := range fs {
		if f.name.Suffix != "" || f.name.Leftover || l.gone[f.base] {
			continue
		}
		switch f.name.Kind {
		case snapshot.KindLog:
			l.addSeg(f.name.Offset, f.row.Path, f.row.Size)
		case snapshot.KindIndex, snapshot.KindTimeIndex, snapshot.KindTxnIndex:
			l.addIndex(f.name.Offset, f.name.Kind, f.row.Path)
		case snapshot.KindSnapshot:
			l.snaps = append(l.snaps, f)
		}
	}
}

// loadSegmentFiles deletes the orphaned index files and runs each
// segment's sanity check: a missing .index or a corrupt .txnindex makes
// it recovered, a missing .timeindex is created. It returns the segments'
// base offsets in order.
func (l *load) loadSegmentFiles() []int64 {
	bases := slices.Sorted(maps.Keys(l.segs))
	for _, off := range slices.Sorted(maps.Keys(l.indexes)) {
		if ix := l.indexes[off]; l.segs[off] == nil {
			for _, kind := range []snapshot.Kind{snapshot.KindIndex, snapshot.KindTimeIndex, snapshot.KindTxnIndex} {
				if f, ok := ix[kind]; ok {
					l.act(ActDelete, f, off, "an orphaned index file, with no %020d.log, is deleted", off)
				}
			}
		}
	}
	for _, b := range bases {
		sg := l.segs[b]
		ix := l.indexes[b]
		txnIndex := ix[snapshot.KindTxnIndex]
		switch {
		case ix[snapshot.KindIndex] == "":
			l.recoverSegment(sg, fmt.Sprintf("%020d.index is missing (NoSuchFileException in the segment's sanity check)", b))
		case l.bad[segKey{l.k.input, txnIndex}] != "":
			l.recoverSegment(sg, fmt.Sprintf("%s is corrupt (CorruptIndexException in the sanity check: %s)",
				txnIndex, l.bad[segKey{l.k.input, txnIndex}]))
		}
		if ix[snapshot.KindTimeIndex] == "" && !l.recovered[b] {
			l.act(ActCreateIndex, path.Join(l.k.dir, fmt.Sprintf("%020d.timeindex", b)), b,
				"a missing time index is created empty (not rebuilt unless the segment is recovered)")
		}
	}
	return bases
}

// recoverSegment predicts LogSegment.recover of sg, for the reason why,
// and reports whether it truncates the segment at an invalid batch.
func (l *load) recoverSegment(sg *seg, why string) bool {
	l.act(ActRecover, sg.file, sg.base, "%s: its batches are validated and its .index, .timeindex and .txnindex rebuilt", why)
	l.recovered[sg.base] = true
	l.recOrder = append(l.recOrder, sg.base)
	valid := int64(0)
	if sg.sum != nil {
		valid = sg.sum.validEnd
	}
	l.segEnd[sg.base] = sg.base
	if sg.sum != nil && sg.sum.nextValid >= 0 {
		l.segEnd[sg.base] = sg.sum.nextValid
	}
	if valid >= sg.size || l.truncatedAt[sg.base] {
		return false
	}
	l.truncatedAt[sg.base] = true
	next := sg.base
	if sg.sum != nil && sg.sum.nextValid >= 0 {
		next = sg.sum.nextValid
	}
	l.p.Actions = append(l.p.Actions, Action{
		Action: ActTruncate,
		File:   sg.file,
		Offset: next,
		Bytes:  sg.size - valid,
		Rule: fmt.Sprintf("LogSegment.recover stops at the first invalid batch (CRC or framing) at byte %d and truncates the segment there: "+
			"%d bytes, the log continues at offset %d", valid, sg.size-valid, next),
	})
	return true
}

// recoverLog predicts the recovery of an unclean start: every segment
// from the one holding the recovery point on is recovered, until one is
// truncated, and the segments after it are deleted. It returns the base
// offsets of the segments left.
func (l *load) recoverLog(bases []int64) []int64 {
	for i, b := range bases {
		if i+1 < len(bases) && bases[i+1] <= l.p.RecoveryPoint {
			continue // wholly below the recovery point: flushed
		}
		why := fmt.Sprintf("unclean start (no .kafka_cleanshutdown) and the segment holds offsets at or above the recovery point %d", l.p.RecoveryPoint)
		if !l.recoverSegment(l.segs[b], why) {
			continue
		}
		for _, later := range bases[i+1:] {
			l.act(ActDelete, l.segs[later].file, later,
				"a segment after the truncated one is deleted with its indexes and snapshot (Deleting segments as part of log recovery)")
			delete(l.segs, later)
		}
		return bases[:i+1]
	}
	return bases
}

// stateAfter sets the log start, log end, high watermark and segments the
// partition has once loaded, and returns the base offsets of its
// segments: a new empty one at the log start when none is left.
func (l *load) stateAfter(bases []int64, deleteDir bool) []int64 {
	p := &l.p
	leo := p.LogStartCheckpoint
	if len(bases) > 0 {
		last := l.segs[bases[len(bases)-1]]
		leo = last.base
		switch {
		case last.sum == nil:
		case l.recovered[last.base] && last.sum.nextValid >= 0:
			leo = last.sum.nextValid
		case !l.recovered[last.base] && last.sum.nextAny >= 0:
			leo = l.readNextOffset(last, deleteDir)
		}
		if !deleteDir && leo < p.LogStartCheckpoint {
			for _, b := range bases {
				l.act(ActDelete, l.segs[b].file, b, "the log ends (%d) below the checkpointed log start (%d): every segment is deleted", leo, p.LogStartCheckpoint)
			}
			bases, leo = nil, p.LogStartCheckpoint
		}
	}
	p.LogEndOffset = leo
	p.LogStartOffset = p.LogStartCheckpoint
	if len(bases) > 0 {
		p.LogStartOffset = max(p.LogStartCheckpoint, bases[0])
	} else {
		bases = []int64{p.LogStartCheckpoint} // a new empty segment at the log start
	}
	p.Segments = bases
	hw := l.checkpoint(snapshot.KindReplicationCheckpoint)
	p.HighWatermark = min(max(hw, p.LogStartOffset), p.LogEndOffset)
	return bases
}

// snapshotsAfter predicts the producer snapshots' fate and returns the
// offsets of the snapshots left. Each recovery of a segment runs a
// producer state of its own over the dir, which first deletes the
// snapshots past the segment's base or at or below the checkpointed log
// start (truncateAndReload), and writes one at the segment's end once it
// is recovered; then removeStraySnapshots keeps, of the snapshots at no
// segment base, only the newest, when it is at or past the last base;
// then the loaded log's producer state deletes those outside
// (log start, log end], and any that does not load.
func snapshotsAfter(k dirKey, snaps []file, bases, recOrder []int64, segEnd map[int64]int64, startCP, logStart, leo int64,
	bad map[segKey]string, act func(a, file string, off int64, rule string, args ...any)) []int64 {
	type snap struct {
		off     int64
		f       *file // nil: written during recovery
		deleted bool
	}
	var all []*snap
	for i := range snaps {
		all = append(all, &snap{off: snaps[i].name.Offset, f: &snaps[i]})
	}
	del := func(s *snap, rule string, args ...any) {
		s.deleted = true
		if s.f != nil {
			act(ActDeleteSnapshot, s.f.row.Path, s.off, rule, args...)
		}
	}
	for _, b := range recOrder {
		for _, s := range all {
			if !s.deleted && (s.off > b || s.off <= startCP) {
				del(s, "recovering segment %d rebuilds producer state up to its base, "+
					"deleting the snapshots past it or at or below the log start checkpoint %d", b, startCP)
			}
		}
		if end := segEnd[b]; end > b {
			all = append(all, &snap{off: end})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].off < all[j].off })
	isBase := map[int64]bool{}
	for _, b := range bases {
		isBase[b] = true
	}
	var stray *snap
	for _, s := range all {
		if s.deleted || isBase[s.off] {
			continue
		}
		if stray != nil && stray.off != s.off {
			del(stray, "a snapshot at no segment base offset is deleted (removeStraySnapshots keeps only the newest such one)")
		}
		stray = s
	}
	if stray != nil && len(bases) > 0 && stray.off < bases[len(bases)-1] {
		del(stray, "the newest snapshot at no segment base offset is below the last segment's base (%d) and is deleted", bases[len(bases)-1])
	}
	// The loaded log's producer state reads the newest snapshot first and
	// deletes each that does not load until one does.
	var left []int64
	loaded := false
	for i := len(all) - 1; i >= 0; i-- {
		s := all[i]
		if s.deleted {
			continue
		}
		if s.off > leo || s.off <= logStart {
			del(s, "a snapshot outside the loaded log (%d, %d] is deleted (truncateAndReload)", logStart, leo)
			continue
		}
		if !loaded && s.f != nil && bad[segKey{k.input, s.f.row.Path}] != "" {
			del(s, "a snapshot that does not load is deleted and an older one or the log is used (%s)", bad[segKey{k.input, s.f.row.Path}])
			continue
		}
		loaded = true
		if s.f != nil {
			left = append(left, s.off)
		}
	}
	slices.Reverse(left)
	return nonNil(left)
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

// readNextOffset is the log end a start without recovery reads of the
// active segment sg (LogSegment.readNextOffset): from the byte its offset
// index's last entry names, the first batch ending at or past that
// entry's offset, then every whole batch after it; the last one's next
// offset. With no such batch (the file ends before that byte, or holds
// none there) it is the segment's base offset. Without its index read,
// the batches from byte 0 stand for it.
func (l *load) readNextOffset(sg *seg, deleteDir bool) int64 {
	sum := sg.sum
	if l.in.IndexEnd == nil || deleteDir {
		return sum.nextAny
	}
	off, pos, ok := l.in.IndexEnd(l.k.input, sg.file)
	if !ok || sum.lastPos >= pos && sum.lastOff >= off {
		return sum.nextAny
	}
	where := "where the file holds no whole batch"
	if pos >= sg.size {
		where = fmt.Sprintf("past the end of the file (%d bytes)", sg.size)
	}
	l.act(ActResetLogEnd, sg.file, sg.base,
		"a start without recovery reads the active segment's log end from its offset index's last entry (offset %d at byte %d), %s: "+
			"it finds no batch there and takes the segment's base offset %d as the log end, so offsets %d..%d on disk are past it",
		off, pos, where, sg.base, sg.base, sum.nextAny-1)
	return sg.base
}
