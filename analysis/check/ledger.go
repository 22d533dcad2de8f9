package check

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Causes of a gap in the loss ledger.
const (
	CauseRetention      = "retention"
	CauseRemoteOnly     = "remote-only"
	CauseDeleteRecords  = "delete-records"
	CauseCompaction     = "compaction"
	CauseTruncated      = "truncated-batch"
	CauseDamaged        = "damaged-batch"
	CauseMissingSegment = "missing-segment"
	CauseCheckpointAh   = "checkpoint-ahead"
	CauseUnread         = "unread"
	CauseCleanStart     = "lost-on-clean-start"
	CauseUnknown        = "unknown"
)

// Damage kinds of the ledger's own, for a segment whose reading stopped
// before its end: an archive that ended inside it (its offsets were not
// verified: the input failed, not the broker's data), or a file that
// could not be read.
const (
	kindArchiveEnd = "archive ended"
	kindUnreadable = "unreadable segment"
)

// maxHoles bounds the gaps kept per segment; a compacted segment can have
// one between every two batches. Past it, the last one kept stands for
// the rest and says how many it covers.
const maxHoles = 4096

// damage is a reader finding inside a live segment.
type damage struct {
	pos  int64
	kind string
	off  int64 // the batch's base offset when its header was read, else -1
}

// hole is a range of offsets absent between two intact batches of one
// segment.
type hole struct {
	first, last int64
	from, to    int64 // the byte range between the two batches
	d           *damage
	n           int // ranges it stands for (1, more past maxHoles)
}

// segSummary is what the ledger keeps of one live segment.
type segSummary struct {
	path                    string
	base                    int64
	firstIntact, lastIntact int64
	firstPos, lastEnd       int64
	lastPos                 int64 // byte of the last intact batch
	holes                   []hole
	damages                 []damage
	lead, tail              *damage
	unreadable              bool
	// readFailed: reading its bytes failed part way (an I/O error, or in
	// an archive the stream ending), as opposed to a file never opened.
	readFailed bool
	// stopAt is the byte where reading stopped (the io-error's position),
	// -1 when not known.
	stopAt         int64
	zeroFrom       int64 // where a zero-filled tail begins, -1 for none
	gapNote        string
	gapPos, gapOff int64
	// firstTs is the max timestamp of its first intact batch (-1 none),
	// which bounds the age of the segment before it (retention.go).
	firstTs int64
	// size is the file's size in bytes (-1 unknown); idx is its offset
	// index's last entry as a broker opens it (clean.go).
	size int64
	idx  *indexEnd
}

func (s *segSummary) damageIn(from, to int64) *damage {
	for i := range s.damages {
		if d := &s.damages[i]; d.pos >= from && d.pos < to {
			return d
		}
	}
	return nil
}

// computeHoles finds the absent ranges between the segment's intact
// batches, and the damage before the first and after the last.
func (s *segSummary) computeHoles(bs []placed) {
	var prev *placed
	for i := range bs {
		b := &bs[i]
		if !b.intact {
			continue
		}
		if prev == nil {
			s.firstPos = b.pos
		} else if b.base > prev.last+1 {
			h := hole{first: prev.last + 1, last: b.base - 1, from: prev.pos + prev.size, to: b.pos, n: 1}
			h.d = s.damageIn(h.from, h.to)
			if n := len(s.holes); n >= maxHoles && h.d == nil && s.holes[n-1].d == nil {
				s.holes[n-1].last, s.holes[n-1].to = h.last, h.to
				s.holes[n-1].n++
			} else {
				s.holes = append(s.holes, h)
			}
		}
		prev = b
	}
	if prev == nil {
		if len(s.damages) > 0 {
			s.lead, s.tail = &s.damages[0], &s.damages[0]
		}
		return
	}
	s.lastEnd, s.lastPos = prev.pos+prev.size, prev.pos
	s.lead = s.damageIn(0, s.firstPos)
	s.tail = s.damageIn(s.lastEnd, 1<<62)
}

// readStop marks where reading an unreadable segment stopped: after its
// last batch read, the bytes were not read, and the offsets they held
// go with them. In an archive input a read can fail only because the
// stream did (cut short, damaged): those offsets are unread, not lost.
func (s *segSummary) readStop(archive bool) {
	if !s.unreadable || s.tail != nil {
		return
	}
	d := &damage{pos: s.lastEnd, kind: kindUnreadable, off: -1}
	if archive && s.readFailed {
		d.kind = kindArchiveEnd
	}
	s.tail = d
	if s.lead == nil && s.firstIntact < 0 {
		s.lead = d
	}
}

// segmentFindings takes the reader's findings of a live segment: they are
// the partition's findings, and its damage for the ledger.
func (p *partition) segmentFindings(s *segRun, ev *scan.FileEvent) {
	zeroOnly, tornStart := true, false
	for _, a := range ev.Anomalies {
		tornStart = tornStart || a.Position != nil && finding.TornFromStart(a.Kind, *a.Position)
		idx := len(p.findings)
		p.findings = append(p.findings, a)
		// A hole to the end of the file (a note; a hole inside it is an
		// error) is a preallocated segment's unwritten tail: zeros that
		// are not stored, no more damage than zeros that are.
		zeros := a.Kind == finding.KindZeroTail || a.Kind == finding.KindSparseHole && a.Severity == finding.Note
		if !zeros {
			zeroOnly = false
		}
		switch {
		case a.Kind == finding.KindIOError:
			s.sum.unreadable = true
			s.sum.readFailed = s.sum.readFailed || ev.Entry.Skipped == ""
			if a.Position != nil {
				s.sum.stopAt = *a.Position
			}
		case zeros && a.Position != nil:
			if s.sum.zeroFrom < 0 || *a.Position < s.sum.zeroFrom {
				s.sum.zeroFrom = *a.Position
			}
		case a.Position == nil || zeros:
		default:
			if a.Kind == finding.KindTruncated {
				p.truncated = append(p.truncated, truncRef{idx, s.sum})
			}
			off := int64(-1)
			if a.Offset != nil {
				off = *a.Offset
			}
			s.sum.damages = append(s.sum.damages, damage{pos: *a.Position, kind: string(a.Kind), off: off})
		}
	}
	if ev.Row.Batches == 0 && ev.Row.Size > 0 && !zeroOnly && !tornStart && !s.sum.unreadable {
		p.add(finding.NotKafkaData(p.where(s.path), ev.Row.Size))
	}
}

// finishSegments ends the partition's reading: the last segment, the index
// files whose segment never came, the snapshots beyond the replay.
func (p *partition) finishSegments() {
	p.release()
	p.orphanFindings()
	p.finishSnapshots(p.logEnd())
}

// logEnd is one past the last batch, or the last segment's name offset if
// that is higher (an empty active segment), -1 without segments.
func (p *partition) logEnd() int64 {
	if len(p.segs) == 0 {
		return -1
	}
	last := p.segs[len(p.segs)-1].base
	for _, s := range p.segs {
		last = max(last, s.base)
	}
	return max(p.prevLast+1, last)
}

// firstOffset is the base offset of the first batch, -1 when none.
func (p *partition) firstOffset() int64 {
	for _, s := range p.sortedSegs() {
		if s.firstIntact >= 0 {
			return s.firstIntact
		}
	}
	return -1
}

func (p *partition) sortedSegs() []*segSummary {
	segs := slices.Clone(p.segs)
	slices.SortStableFunc(segs, func(a, b *segSummary) int { return cmp.Compare(a.base, b.base) })
	return segs
}

// regrade sets the severity of torn batches now that the active segment
// is known (finding.GradeTruncated says what each place means).
func (p *partition) regrade() {
	segs := p.sortedSegs()
	if len(segs) == 0 {
		return
	}
	active := segs[len(segs)-1]
	for _, t := range p.truncated {
		place := finding.RolledSegment
		if t.seg == active {
			place = p.lastPlace()
			if place == finding.ActiveSegment && p.cleanStopTear(t, active) {
				continue
			}
		}
		finding.GradeTruncated(&p.findings[t.idx], place)
	}
}

// compactionEvidence lists why this partition's gaps may be compaction.
func (p *partition) compactionEvidence() []string {
	var ev []string
	ld := p.c.logDirOfPartition(p)
	if _, ok := ld.entry(snapshot.KindCleanerCheckpoint, p.topic, p.part); ok {
		ev = append(ev, "the log dir's cleaner-offset-checkpoint has an entry for it")
	}
	if p.c.o.CompactedTopics[p.topic] {
		ev = append(ev, "the cluster metadata sets cleanup.policy=compact for the topic")
	}
	switch topics.TopicOf(p.topic) {
	case topics.ConsumerOffsets, topics.TransactionState:
		ev = append(ev, "the broker always compacts "+p.topic)
	}
	ev = append(ev, p.evidence...)
	if sh := p.shapes; sh.fewer > 0 {
		ev = append(ev, fmt.Sprintf("%d batch(es) hold fewer records than their offset span (the first at offset %d), as the cleaner leaves them",
			sh.fewer, sh.firstFewer))
	}
	if sh := p.shapes; sh.empty > 0 {
		ev = append(ev, fmt.Sprintf("%d empty batch(es), as the cleaner keeps for producer state", sh.empty))
	}
	if sh := p.shapes; sh.horizon > 0 {
		ev = append(ev, fmt.Sprintf("%d batch(es) carry the cleaner's delete horizon", sh.horizon))
	}
	for _, s := range p.segs {
		if s.gapNote != "" {
			ev = append(ev, fmt.Sprintf("offsets jump between byte-adjacent batches of %s, as only the log cleaner leaves them", path.Base(s.path)))
			break
		}
	}
	return ev
}

// ledger classifies every offset range of the partition copy that cannot
// be read. It walks the segments in offset order and explains, in turn,
// what lies below the first one, before and inside each, and past the
// last batch read, then what the log start checkpoint says was deleted.
func (p *partition) ledger() []analysis.GapRow {
	segs := p.sortedSegs()
	ld := p.c.logDirOfPartition(p)
	hw := max(ld.offset(snapshot.KindReplicationCheckpoint, p.topic, p.part),
		ld.offset(snapshot.KindRecoveryPointCheckpoint, p.topic, p.part))
	if len(segs) == 0 {
		return p.ledgerWithoutSegments(ld, hw)
	}
	g := p.newGapLedger(ld, hw)
	for _, s := range segs {
		s.readStop(p.c.isArchive(p.key.input))
	}
	g.belowFirstSegment(segs[0])
	w := g.walkSegments(segs)
	g.pastLastBatch(segs, w)
	g.cleanStartReset(segs[len(segs)-1])
	g.deletedRecords(w.prevEnd)
	slices.SortStableFunc(g.rows, func(a, b analysis.GapRow) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	return g.rows
}

// gapRow is a row of the ledger of the partition copy p reads.
func (p *partition) gapRow(first int64, last *int64, cause string, sev finding.Severity, file, explanation string) analysis.GapRow {
	return analysis.GapRow{
		Input:       p.key.input,
		Topic:       p.topic,
		Partition:   p.part,
		Dir:         p.key.dir,
		FirstOffset: first,
		LastOffset:  last,
		Cause:       cause,
		Severity:    sev,
		File:        file,
		Explanation: explanation,
	}
}

// ledgerWithoutSegments is the ledger of a partition dir with no live
// segment: only its checkpoints, its orphan index files and its segments
// scheduled for deletion say what it held.
func (p *partition) ledgerWithoutSegments(ld *logDir, hw int64) []analysis.GapRow {
	from := max(ld.offset(snapshot.KindLogStartCheckpoint, p.topic, p.part), 0)
	if p.openAtCut() {
		// Its .log may have come after the cut: nothing says it is
		// missing. Offsets below the start its files read show (a
		// KRaft snapshot's end) were gone by design, not unread.
		if g, ok := p.unreadDir(max(from, p.logStartSeen), hw); ok {
			return []analysis.GapRow{g}
		}
		return nil
	}
	if g, ok := p.orphanGap(from, -1, hw); ok {
		return []analysis.GapRow{g}
	}
	// A live partition dir of a log dir (not a -delete, -future or stray
	// one, nor a file given alone): its broker always keeps an active
	// segment in it.
	keepsActive := p.dirState == "" && !p.c.isFile(p.key.input)
	switch {
	case hw > from && len(p.deleted) > 0:
		return p.retentionTookAll(ld, from, hw, keepsActive)
	case hw > from:
		return p.checkpointsAheadOfDir(ld, from, hw, keepsActive)
	case keepsActive && len(p.deleted) == 0:
		return []analysis.GapRow{p.activeSegmentMissing(from)}
	}
	return nil
}

// retentionTookAll is the ledger of a partition dir whose every segment
// left is scheduled for deletion: the broker deleted the log up to its
// end by retention.
func (p *partition) retentionTookAll(ld *logDir, from, hw int64, keepsActive bool) []analysis.GapRow {
	l := hw - 1
	gaps := []analysis.GapRow{p.gapRow(from, &l, CauseRetention, finding.Note, ld.checkpointPath(),
		fmt.Sprintf("the partition dir holds no live segment, only segments scheduled for deletion (.deleted, the last from offset %d): "+
			"retention removed offsets up to %d", slices.Max(p.deleted), l))}
	if !keepsActive {
		return gaps
	}
	// Retention that deletes every segment rolls a new, empty active
	// segment at the log end first: without it the copy lacks the log
	// from there on.
	p.add(finding.NewSev(p.where(p.key.dir), finding.KindMissingSegment, finding.Warning, -1, hw,
		"the partition dir %s, though a broker always keeps an active segment "+
			"(retention rolls a new one at offset %d before it deletes the last): it was not copied, or was deleted", p.noLog(), hw))
	return append(gaps, p.gapRow(hw, nil, CauseMissingSegment, finding.Warning, p.key.dir,
		fmt.Sprintf("the active segment from offset %d, which the broker rolls before retention deletes the last segment, is not in the copy: "+
			"whatever it held is unknown (nothing, if the high watermark %d was the log end)", hw, hw)))
}

// checkpointsAheadOfDir is the ledger of a partition dir without segments
// whose broker's checkpoints say offsets were written.
func (p *partition) checkpointsAheadOfDir(ld *logDir, from, hw int64, keepsActive bool) []analysis.GapRow {
	l := hw - 1
	gaps := []analysis.GapRow{p.gapRow(from, &l, CauseCheckpointAh, finding.Warning, ld.checkpointPath(),
		fmt.Sprintf("the broker's checkpoints say offsets up to %d were written, but the partition dir %s: "+
			"the segments were not copied, or were deleted after the checkpoint", l, p.noLog()))}
	if !keepsActive {
		return gaps
	}
	// The checkpoints bound what was written by then, not what the
	// missing active segment held after.
	return append(gaps, p.gapRow(hw, nil, CauseMissingSegment, finding.Warning, p.key.dir,
		fmt.Sprintf("the partition dir %s, though a broker always keeps a .log file (its active segment): "+
			"what it held from offset %d, past the checkpoints, is unknown", p.noLog(), hw)))
}

// activeSegmentMissing is the ledger row of a partition dir that lacks
// the active segment its broker always keeps, with nothing to say how
// many offsets it held.
func (p *partition) activeSegmentMissing(from int64) analysis.GapRow {
	// Offsets below the start the dir's own files show were gone by
	// design (retention, KRaft snapshots), not with the log.
	from = max(from, p.logStartSeen)
	p.add(finding.NewSev(p.where(p.key.dir), finding.KindMissingSegment, finding.Warning, -1, from,
		"the partition dir %s, though a broker always keeps an active segment: its log was not copied, or was deleted", p.noLog()))
	return p.gapRow(from, nil, CauseMissingSegment, finding.Warning, p.key.dir,
		fmt.Sprintf("the partition dir %s, though a broker always keeps a .log file (its active segment): "+
			"the segments from offset %d on were not copied, or were deleted; how many offsets they held is unknown", p.noLog(), from))
}

// gapLedger is the ledger of a partition with segments while it is
// written: what its explanations draw on, and the rows so far.
type gapLedger struct {
	p  *partition
	ld *logDir
	hw int64 // the broker's checkpoints: high watermark or recovery point
	// cut: the archive ended inside the partition dir, so only it may lack
	// what the cut explains; a dir the archive had left came whole (cut.go).
	cut bool
	// compacted: something shows the log cleaner ran on the partition;
	// evidence says what, for the explanations of compaction.
	compacted bool
	evidence  string
	rows      []analysis.GapRow
}

// newGapLedger starts the ledger of p, with what shows compaction.
func (p *partition) newGapLedger(ld *logDir, hw int64) *gapLedger {
	evidence := p.compactionEvidence()
	text := strings.Join(evidence[:min(len(evidence), 3)], "; ")
	if len(evidence) > 3 {
		text += fmt.Sprintf("; and %d more signs", len(evidence)-3)
	}
	return &gapLedger{p: p, ld: ld, hw: hw, cut: p.openAtCut(), compacted: len(evidence) > 0, evidence: text}
}

// gap adds a row; pos is its byte in file, -1 when it has none.
func (g *gapLedger) gap(first int64, last *int64, cause string, sev finding.Severity, file string, pos int64, format string, args ...any) {
	r := g.p.gapRow(first, last, cause, sev, file, fmt.Sprintf(format, args...))
	if pos >= 0 {
		r.Position = &pos
	}
	g.rows = append(g.rows, r)
}

// absent adds a range absent with no damage: compaction, or nothing
// explains it, which is a finding of its own.
func (g *gapLedger) absent(first, last int64, file string, pos int64, where string) {
	l := last
	if g.compacted {
		g.gap(first, &l, CauseCompaction, finding.Note, file, pos, "offsets %d..%d %s: compaction removed them (%s)", first, last, where, g.evidence)
		return
	}
	g.gap(first, &l, CauseUnknown, finding.Warning, file, pos,
		"offsets %d..%d %s, and nothing in the copy (no damage, no sign of compaction) explains it", first, last, where)
	g.p.add(finding.NewSev(g.p.where(file), finding.KindOffsetGap, finding.Warning, pos, first,
		"offsets %d..%d %s with no damage and no sign of compaction: records may have been lost", first, last, where))
}

// unread adds a range the archive's end kept from being read; last below
// first leaves its end open.
func (g *gapLedger) unread(first, last int64, file string, d *damage) {
	l, end := &last, fmt.Sprint(last)
	if last < first {
		l, end = nil, "…"
	}
	g.gap(first, l, CauseUnread, finding.Warning, file, d.pos,
		"offsets %d..%s were not read: the archive ends inside %s, at byte %d of it (the archive is cut short or damaged), so they were not verified",
		first, end, path.Base(file), d.pos)
}

// damaged adds a range that went with damage d in file; last below first
// leaves its end open. rolled says the damage is in a rolled segment,
// where a torn batch is lost data rather than a write cut short.
func (g *gapLedger) damaged(first, last int64, file string, d *damage, rolled bool) {
	if d.kind == kindArchiveEnd {
		g.unread(first, last, file, d)
		return
	}
	cause, sev := CauseDamaged, finding.Error
	if d.kind == string(finding.KindTruncated) {
		cause = CauseTruncated
		if !rolled {
			sev = finding.Warning
		}
	}
	l := &last
	if last < first {
		l = nil
	}
	what := "lost"
	if !rolled && cause == CauseTruncated {
		what = g.p.tornTail()
		if rp, ok := g.p.cleanStopCut(first); ok {
			sev = finding.Error
			what = fmt.Sprintf("lost after a clean stop (.kafka_cleanshutdown is present and the recovery point %d is past them: "+
				"the broker had flushed them, so the copy lost them after it stopped)", rp)
		}
	}
	end := "…"
	if l != nil {
		end = fmt.Sprint(last)
	}
	g.gap(first, l, cause, sev, file, d.pos, "offsets %d..%s %s: %s at byte %d of %s", first, end, what, d.kind, d.pos, path.Base(file))
}

// belowFirstSegment explains the offsets below the first segment's name:
// retention, unless the archive's end may have kept a segment unread.
func (g *gapLedger) belowFirstSegment(first *segSummary) {
	if first.base <= 0 {
		return
	}
	p := g.p
	lso, known := g.ld.entry(snapshot.KindLogStartCheckpoint, p.topic, p.part)
	l := first.base - 1
	if !g.cut || known && lso >= first.base {
		if g.remoteOnly(first, &l, lso, known) {
			return
		}
		// Retention must be shown by the copy, not assumed (retention.go).
		ev := g.belowStart(first, lso, known)
		g.gap(0, &l, ev.cause, ev.sev, first.path, -1, "offsets 0..%d are below the first segment on disk (%d): %s", l, first.base, ev.why)
		if ev.sev != finding.Note {
			p.add(finding.NewSev(p.where(first.path), finding.KindMissingSegment, ev.sev, -1, 0,
				"offsets 0..%d are below the first segment (%d) and the copy does not show retention deleted them: %s", l, first.base, ev.why))
		}
		return
	}
	// The archive ended before all its entries were read: the segment
	// below may be among them. Only the checkpoint, when it was read,
	// vouches for retention.
	from := int64(0)
	if known && lso > 0 {
		rl := lso - 1
		g.gap(0, &rl, CauseRetention, finding.Note, first.path, -1,
			"offsets 0..%d are below the log start offset checkpoint (%d): deleted by retention or DeleteRecords", rl, lso)
		from = lso
	}
	g.gap(from, &l, CauseUnread, finding.Warning, first.path, -1,
		"offsets %d..%d are below the first segment read (%d), and the archive ended before all its entries were read: "+
			"a segment holding them may be among the entries never read, or retention deleted them; they were not verified",
		from, l, first.base)
}

// segWalk is where the walk through the segments stands: prev is the
// last segment with an intact batch, prevEnd the last offset it holds
// (-1 before any), and lost the first segment since with none read.
type segWalk struct {
	prevEnd int64
	prev    *segSummary
	lost    *segSummary
}

// walkSegments explains, segment by segment in offset order, the ranges
// before each segment's first intact batch and between its batches.
func (g *gapLedger) walkSegments(segs []*segSummary) segWalk {
	p := g.p
	w := segWalk{prevEnd: -1}
	for _, s := range segs {
		if s.firstIntact < 0 {
			if s.lead == nil && s.zeroFrom >= 0 && (s != segs[len(segs)-1] || p.lastPlace() == finding.RolledSegment) {
				// A rolled segment of zeros alone: the broker trims a
				// preallocated segment when it rolls it, so the zeros
				// took the place of its batches. The last segment is
				// rolled too when it was given on its own and a later
				// segment lies beside it (single.go).
				z := damage{pos: s.zeroFrom, kind: "zero-filled rolled segment"}
				s.lead, s.tail = &z, &z
			}
			if w.lost == nil && (s.unreadable || len(s.damages) > 0 || s.lead != nil) {
				w.lost = s
			}
			continue
		}
		g.beforeSegment(s, w)
		g.insideSegment(s)
		w = segWalk{prevEnd: s.lastIntact, prev: s}
	}
	return w
}

// beforeSegment explains the offsets missing before the first intact
// batch of s, after what the walk w has read: damage that took them, a
// segment the archive's end kept unread or that is missing, or an absent
// range.
func (g *gapLedger) beforeSegment(s *segSummary, w segWalk) {
	prev, lost := w.prev, w.lost
	from := w.prevEnd + 1
	switch {
	case prev == nil && lost != nil:
		from = lost.base // from the first segment that could not be read
	case prev == nil:
		from = s.base
	}
	if s.firstIntact <= from {
		return
	}
	to := s.firstIntact - 1
	switch {
	case prev != nil && prev.tail != nil:
		g.cutThenMissing(from, to, prev, s)
	case s.lead != nil:
		g.damaged(from, to, s.path, s.lead, true)
	case lost != nil:
		d := damage{pos: 0, kind: kindUnreadable}
		if lost.lead != nil {
			d = *lost.lead
		}
		g.damaged(from, to, lost.path, &d, true)
	case prev == nil:
		where := fmt.Sprintf("are absent from the start of %s (named for %d; its first batch is at %d)", path.Base(s.path), s.base, s.firstIntact)
		g.absent(from, to, s.path, s.firstPos, where)
	case s.base > from && g.cut:
		g.gap(from, &to, CauseUnread, finding.Warning, s.path, 0,
			"offsets %d..%d are in no segment read: %s ends at %d and the next segment, %s, starts at %d; "+
				"the archive ended before all its entries were read, so a segment between them may be among the entries never read; "+
				"they were not verified",
			from, to, path.Base(prev.path), w.prevEnd, path.Base(s.path), s.firstIntact)
	case s.base > from && !g.compacted:
		g.gap(from, &to, CauseMissingSegment, finding.Warning, s.path, 0,
			"offsets %d..%d are in no segment on disk: %s ends at %d and the next segment, %s, starts at %d; "+
				"a segment between them was deleted or not copied (no sign of compaction)",
			from, to, path.Base(prev.path), w.prevEnd, path.Base(s.path), s.firstIntact)
		g.p.add(finding.New(g.p.where(s.path), finding.KindMissingSegment, 0, from,
			"offsets %d..%d are missing between %s (ends at %d) and this segment (starts at %d), "+
				"and nothing shows compaction: a segment was deleted or not copied",
			from, to, path.Base(prev.path), w.prevEnd, s.firstIntact))
	default:
		g.absent(from, to, s.path, s.firstPos, fmt.Sprintf("are absent between %s and %s", path.Base(prev.path), path.Base(s.path)))
	}
}

// insideSegment explains the ranges missing between the intact batches
// of s: damage, or absent ranges.
func (g *gapLedger) insideSegment(s *segSummary) {
	for _, h := range s.holes {
		if h.d != nil {
			g.damaged(h.first, h.last, s.path, h.d, true)
			continue
		}
		where := "are absent between two batches of " + path.Base(s.path)
		if h.n > 1 {
			where = fmt.Sprintf("span %d absent ranges between batches of %s", h.n, path.Base(s.path))
		}
		g.absent(h.first, h.last, s.path, h.to, where)
	}
	// Offsets that jump between byte-adjacent batches are compaction's
	// mark; without other signs of it, absent() has said so per range.
	if s.gapNote != "" && g.compacted {
		g.p.add(finding.New(g.p.where(s.path), finding.KindOffsetGap, s.gapPos, s.gapOff, "%s: compaction (%s)", s.gapNote, g.evidence))
	}
}

// pastLastBatch explains the end of the log: the damage after the last
// intact batch (a torn tail of the active segment), a missing segment
// only its index files show, or data the checkpoints say was written.
func (g *gapLedger) pastLastBatch(segs []*segSummary, w segWalk) {
	p, hw := g.p, g.hw
	first, last := segs[0], segs[len(segs)-1]
	prev, lost, prevEnd := w.prev, w.lost, w.prevEnd
	orphan, orphaned := p.orphanGap(prevEnd+1, prevEnd, hw)
	// The checkpoints say offsets past the last batch read were written.
	reached := prev != nil && hw > prevEnd+1 || prev == nil && hw > first.base
	switch {
	case prev != nil && (prev.tail != nil || lost != nil):
		// The damage is named with the file it is in.
		d, file := prev.tail, prev.path
		if d == nil {
			d, file = &damage{pos: 0, kind: kindUnreadable}, lost.path
			if lost.lead != nil {
				d = lost.lead
			}
		}
		end, rolled := p.tailEnd(hw)
		g.damaged(prevEnd+1, end, file, d, rolled)
	case prev == nil && lost != nil:
		// Not one batch could be read: everything from the first segment
		// on went with the damage, up to the checkpoints when they say.
		d := lost.lead
		if d == nil {
			d = &damage{pos: 0, kind: kindUnreadable}
		}
		end, rolled := p.tailEnd(hw)
		g.damaged(first.base, end, lost.path, d, rolled || lost != last)
	case orphaned:
		if g.cut {
			orphan.Cause = CauseUnread
			orphan.Explanation += "; the archive ended before all its entries were read, so that segment may be among the entries never read: not verified"
		}
		g.rows = append(g.rows, orphan)
	case g.cut && reached:
		from := prevEnd + 1
		if prev == nil {
			from = first.base
		}
		l := hw - 1
		g.gap(from, &l, CauseUnread, finding.Warning, g.ld.checkpointPath(), -1,
			"offsets %d..%d are below the broker's checkpoints (high watermark or recovery point %d) but past the last batch read, "+
				"and the archive ended before all its entries were read: a segment holding them may be among the entries never read; "+
				"they were not verified",
			from, l, hw)
	case reached:
		g.checkpointsAhead(first, last, w)
	}
}

// checkpointsAhead explains offsets the broker's checkpoints say were
// written past the last batch on disk: zeros where they would be, or a
// log that lost its tail (or all its data).
func (g *gapLedger) checkpointsAhead(first, last *segSummary, w segWalk) {
	hw := g.hw
	from, past := w.prevEnd+1, "past the last batch on disk"
	if w.prev == nil {
		from, past = first.base, fmt.Sprintf("no batch is on disk from offset %d", first.base)
	}
	l := hw - 1
	if last.zeroFrom >= 0 {
		verb := "ends in"
		if w.prev == nil {
			verb = "holds"
		}
		g.gap(from, &l, CauseCheckpointAh, finding.Warning, last.path, last.zeroFrom,
			"offsets %d..%d are below the broker's checkpoints (high watermark or recovery point %d) but %s, and %s %s zeros from byte %d where they would be: "+
				"zeros replaced data the broker wrote (a file system that lost its last writes in a crash, or a faulty copy), "+
				"or the broker preallocates segments and the copy was taken while it wrote",
			from, l, hw, past, path.Base(last.path), verb, last.zeroFrom)
		return
	}
	why := "the log lost its tail"
	if w.prev == nil {
		past += ", where the first segment starts"
		why = "the log lost its data"
	}
	g.gap(from, &l, CauseCheckpointAh, finding.Warning, g.ld.checkpointPath(), -1,
		"offsets %d..%d are below the broker's checkpoints (high watermark or recovery point %d) but %s: "+
			"the copy was taken while the broker wrote, or %s",
		from, l, hw, past, why)
}

// deletedRecords explains the offsets still in the files but below the
// log start offset checkpoint: DeleteRecords, or retention the files do
// not show yet. prevEnd is the last offset read, -1 for none.
func (g *gapLedger) deletedRecords(prevEnd int64) {
	p := g.p
	lso, ok := g.ld.entry(snapshot.KindLogStartCheckpoint, p.topic, p.part)
	if !ok {
		return
	}
	if fo := p.firstOffset(); fo >= 0 && lso > fo {
		l := min(lso-1, max(prevEnd, fo))
		g.gap(fo, &l, CauseDeleteRecords, finding.Note, g.ld.path(snapshot.KindLogStartCheckpoint), -1,
			"offsets %d..%d are still in the files but below the log start offset %d: "+
				"deleted with DeleteRecords (or retention not yet applied to the files); consumers can no longer read them",
			fo, l, lso)
	}
}

// orphanGap is the missing segment that only its index files show, past
// offset end (the last batch on disk, -1 for none): offsets from first,
// up to the checkpoints' hw when they reach past it.
func (p *partition) orphanGap(first, end, hw int64) (analysis.GapRow, bool) {
	var o *orphanIndex
	for i := range p.orphans {
		if p.orphans[i].base > end && (o == nil || p.orphans[i].base < o.base) {
			o = &p.orphans[i]
		}
	}
	if o == nil {
		return analysis.GapRow{}, false
	}
	g := p.gapRow(min(first, o.base), nil, CauseMissingSegment, finding.Warning, o.path, "")
	reach := reachTo(&g, hw)
	g.Explanation = fmt.Sprintf("%s has no %020d.log beside it: the segment from offset %d was deleted or not copied; %s",
		path.Base(o.path), o.base, o.base, reach)
	return g, true
}

// reachTo ends g's range at the offset before hw when the broker's
// checkpoints name one past g's first offset, and says how far the log
// reached.
func reachTo(g *analysis.GapRow, hw int64) string {
	if hw > g.FirstOffset {
		l := hw - 1
		g.LastOffset = &l
		return fmt.Sprintf("the broker's checkpoints say the log reached offset %d", l)
	}
	return "how far the log reached is unknown"
}
