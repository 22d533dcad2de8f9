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
	CauseDeleteRecords  = "delete-records"
	CauseCompaction     = "compaction"
	CauseTruncated      = "truncated-batch"
	CauseDamaged        = "damaged-batch"
	CauseMissingSegment = "missing-segment"
	CauseCheckpointAh   = "checkpoint-ahead"
	CauseUnread         = "unread"
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
	s.lastEnd = prev.pos + prev.size
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
		ev = append(ev, fmt.Sprintf("%d batch(es) hold fewer records than their offset span (the first at offset %d), as the cleaner leaves them", sh.fewer, sh.firstFewer))
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
// be read.
func (p *partition) ledger() []analysis.GapRow {
	segs := p.sortedSegs()
	ld := p.c.logDirOfPartition(p)
	hw := max(ld.offset(snapshot.KindReplicationCheckpoint, p.topic, p.part), ld.offset(snapshot.KindRecoveryPointCheckpoint, p.topic, p.part))
	if len(segs) == 0 {
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
		if hw > from && len(p.deleted) > 0 {
			// Every segment left is scheduled for deletion: the broker
			// deleted the log up to its end by retention.
			l := hw - 1
			gaps := []analysis.GapRow{{Input: p.key.input, Topic: p.topic, Partition: p.part, Dir: p.key.dir, FirstOffset: from, LastOffset: &l,
				Cause: CauseRetention, Severity: finding.Note, File: ld.checkpointPath(),
				Explanation: fmt.Sprintf("the partition dir holds no live segment, only segments scheduled for deletion (.deleted, the last from offset %d): retention removed offsets up to %d", slices.Max(p.deleted), l)}}
			if p.dirState == "" && !p.c.isFile(p.key.input) {
				// Retention that deletes every segment rolls a new, empty
				// active segment at the log end first: without it the
				// copy lacks the log from there on.
				p.add(finding.NewSev(p.where(p.key.dir), finding.KindMissingSegment, finding.Warning, -1, hw,
					"the partition dir %s, though a broker always keeps an active segment (retention rolls a new one at offset %d before it deletes the last): it was not copied, or was deleted", p.noLog(), hw))
				gaps = append(gaps, analysis.GapRow{Input: p.key.input, Topic: p.topic, Partition: p.part, Dir: p.key.dir, FirstOffset: hw,
					Cause: CauseMissingSegment, Severity: finding.Warning, File: p.key.dir,
					Explanation: fmt.Sprintf("the active segment from offset %d, which the broker rolls before retention deletes the last segment, is not in the copy: whatever it held is unknown (nothing, if the high watermark %d was the log end)", hw, hw)})
			}
			return gaps
		}
		if hw > from {
			l := hw - 1
			gaps := []analysis.GapRow{{Input: p.key.input, Topic: p.topic, Partition: p.part, Dir: p.key.dir, FirstOffset: from, LastOffset: &l,
				Cause: CauseCheckpointAh, Severity: finding.Warning, File: ld.checkpointPath(),
				Explanation: fmt.Sprintf("the broker's checkpoints say offsets up to %d were written, but the partition dir %s: the segments were not copied, or were deleted after the checkpoint", l, p.noLog())}}
			if p.dirState == "" && !p.c.isFile(p.key.input) {
				// The checkpoints bound what was written by then, not what
				// the missing active segment held after.
				gaps = append(gaps, analysis.GapRow{Input: p.key.input, Topic: p.topic, Partition: p.part, Dir: p.key.dir, FirstOffset: hw,
					Cause: CauseMissingSegment, Severity: finding.Warning, File: p.key.dir,
					Explanation: fmt.Sprintf("the partition dir %s, though a broker always keeps a .log file (its active segment): what it held from offset %d, past the checkpoints, is unknown", p.noLog(), hw)})
			}
			return gaps
		}
		if p.dirState == "" && len(p.deleted) == 0 && !p.c.isFile(p.key.input) {
			// Offsets below the start the dir's own files show were gone by
			// design (retention, KRaft snapshots), not with the log.
			from = max(from, p.logStartSeen)
			// A broker keeps an active segment in every partition dir,
			// empty or not: without one the copy lacks the log, and
			// nothing here says how much it held.
			p.add(finding.NewSev(p.where(p.key.dir), finding.KindMissingSegment, finding.Warning, -1, from,
				"the partition dir %s, though a broker always keeps an active segment: its log was not copied, or was deleted", p.noLog()))
			return []analysis.GapRow{{Input: p.key.input, Topic: p.topic, Partition: p.part, Dir: p.key.dir, FirstOffset: from,
				Cause: CauseMissingSegment, Severity: finding.Warning, File: p.key.dir,
				Explanation: fmt.Sprintf("the partition dir %s, though a broker always keeps a .log file (its active segment): the segments from offset %d on were not copied, or were deleted; how many offsets they held is unknown", p.noLog(), from)}}
		}
		return nil
	}
	evidence := p.compactionEvidence()
	compacted := len(evidence) > 0
	evText := strings.Join(evidence[:min(len(evidence), 3)], "; ")

	if len(evidence) > 3 {
		evText += fmt.Sprintf("; and %d more signs", len(evidence)-3)
	}
	var rows []analysis.GapRow
	gap := func(first int64, last *int64, cause string, sev finding.Severity, file string, pos int64, format string, args ...any) {
		r := analysis.GapRow{Input: p.key.input, Topic: p.topic, Partition: p.part, Dir: p.key.dir, FirstOffset: first, LastOffset: last,
			Cause: cause, Severity: sev, File: file, Explanation: fmt.Sprintf(format, args...)}
		if pos >= 0 {
			r.Position = &pos
		}
		rows = append(rows, r)
	}
	absent := func(first, last int64, file string, pos int64, where string) {
		// An absent range with no damage: compaction, or nothing explains it.
		l := last
		switch {
		case compacted:
			gap(first, &l, CauseCompaction, finding.Note, file, pos, "offsets %d..%d %s: compaction removed them (%s)", first, last, where, evText)
		default:
			gap(first, &l, CauseUnknown, finding.Warning, file, pos, "offsets %d..%d %s, and nothing in the copy (no damage, no sign of compaction) explains it", first, last, where)
			p.add(finding.NewSev(p.where(file), finding.KindOffsetGap, finding.Warning, pos, first,
				"offsets %d..%d %s with no damage and no sign of compaction: records may have been lost", first, last, where))
		}
	}
	unread := func(first, last int64, file string, d *damage) {
		l, end := &last, fmt.Sprint(last)
		if last < first {
			l, end = nil, "…"
		}
		gap(first, l, CauseUnread, finding.Warning, file, d.pos,
			"offsets %d..%s were not read: the archive ends inside %s, at byte %d of it (the archive is cut short or damaged), so they were not verified",
			first, end, path.Base(file), d.pos)
	}
	damaged := func(first, last int64, file string, d *damage, rolled bool) {
		if d.kind == kindArchiveEnd {
			unread(first, last, file, d)
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
			what = p.tornTail()
		}
		end := "…"
		if l != nil {
			end = fmt.Sprint(last)
		}
		gap(first, l, cause, sev, file, d.pos, "offsets %d..%s %s: %s at byte %d of %s", first, end, what, d.kind, d.pos, path.Base(file))
	}

	// Only a dir the archive ended inside may lack what the cut explains:
	// one the archive had left came whole (cut.go).
	cut := p.openAtCut()
	for _, s := range segs {
		s.readStop(p.c.isArchive(p.key.input))
	}
	first := segs[0]
	if first.base > 0 {
		lso, known := ld.entry(snapshot.KindLogStartCheckpoint, p.topic, p.part)
		why := "the oldest segments were deleted by retention (or DeleteRecords), or were not copied"
		if known {
			why = fmt.Sprintf("the log start offset checkpoint says %d: deleted by retention or DeleteRecords", lso)
		}
		l := first.base - 1
		switch {
		case cut && (!known || lso < first.base):
			// The archive ended before all its entries were read: the
			// segment below may be among them. Only the checkpoint, when
			// it was read, vouches for retention.
			from := int64(0)
			if known && lso > 0 {
				rl := lso - 1
				gap(0, &rl, CauseRetention, finding.Note, first.path, -1, "offsets 0..%d are below the log start offset checkpoint (%d): deleted by retention or DeleteRecords", rl, lso)
				from = lso
			}
			gap(from, &l, CauseUnread, finding.Warning, first.path, -1,
				"offsets %d..%d are below the first segment read (%d), and the archive ended before all its entries were read: a segment holding them may be among the entries never read, or retention deleted them; they were not verified",
				from, l, first.base)
		default:
			gap(0, &l, CauseRetention, finding.Note, first.path, -1, "offsets 0..%d are below the first segment on disk (%d): %s", l, first.base, why)
		}
	}
	prevEnd := int64(-1)
	var prev *segSummary
	var lost *segSummary // a segment with no intact batch since prev
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
			if lost == nil && (s.unreadable || len(s.damages) > 0 || s.lead != nil) {
				lost = s
			}
			continue
		}
		from := prevEnd + 1
		switch {
		case prev == nil && lost != nil:
			from = lost.base // from the first segment that could not be read
		case prev == nil:
			from = s.base
		}
		if s.firstIntact > from {
			to := s.firstIntact - 1
			switch {
			case prev != nil && prev.tail != nil:
				damaged(from, to, prev.path, prev.tail, true)
			case s.lead != nil:
				damaged(from, to, s.path, s.lead, true)
			case lost != nil:
				d := damage{pos: 0, kind: kindUnreadable}
				if lost.lead != nil {
					d = *lost.lead
				}
				damaged(from, to, lost.path, &d, true)
			case prev == nil:
				absent(from, to, s.path, s.firstPos, fmt.Sprintf("are absent from the start of %s (named for %d; its first batch is at %d)", path.Base(s.path), s.base, s.firstIntact))
			case s.base > from && cut:
				l := to
				gap(from, &l, CauseUnread, finding.Warning, s.path, 0,
					"offsets %d..%d are in no segment read: %s ends at %d and the next segment, %s, starts at %d; the archive ended before all its entries were read, so a segment between them may be among the entries never read; they were not verified",
					from, to, path.Base(prev.path), prevEnd, path.Base(s.path), s.firstIntact)
			case s.base > from && !compacted:
				l := to
				gap(from, &l, CauseMissingSegment, finding.Warning, s.path, 0,
					"offsets %d..%d are in no segment on disk: %s ends at %d and the next segment, %s, starts at %d; a segment between them was deleted or not copied (no sign of compaction)",
					from, to, path.Base(prev.path), prevEnd, path.Base(s.path), s.firstIntact)
				p.add(finding.New(p.where(s.path), finding.KindMissingSegment, 0, from,
					"offsets %d..%d are missing between %s (ends at %d) and this segment (starts at %d), and nothing shows compaction: a segment was deleted or not copied",
					from, to, path.Base(prev.path), prevEnd, s.firstIntact))
			default:
				absent(from, to, s.path, s.firstPos, fmt.Sprintf("are absent between %s and %s", path.Base(prev.path), path.Base(s.path)))
			}
		}
		for _, h := range s.holes {
			if h.d != nil {
				damaged(h.first, h.last, s.path, h.d, true)
				continue
			}
			where := "are absent between two batches of " + path.Base(s.path)
			if h.n > 1 {
				where = fmt.Sprintf("span %d absent ranges between batches of %s", h.n, path.Base(s.path))
			}
			absent(h.first, h.last, s.path, h.to, where)
		}
		if s.gapNote != "" {
			sev := finding.Note
			if !compacted {
				sev = finding.Warning // said by absent() per range
			}
			if sev == finding.Note {
				p.add(finding.New(p.where(s.path), finding.KindOffsetGap, s.gapPos, s.gapOff, "%s: compaction (%s)", s.gapNote, evText))
			}
		}
		prevEnd, prev, lost = s.lastIntact, s, nil
	}
	// The end: a torn tail of the active segment, data a checkpoint says
	// was written.
	last := segs[len(segs)-1]
	orphan, orphaned := p.orphanGap(prevEnd+1, prevEnd, hw)
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
		damaged(prevEnd+1, end, file, d, rolled)
	case prev == nil && lost != nil:
		// Not one batch could be read: everything from the first segment
		// on went with the damage, up to the checkpoints when they say.
		d := lost.lead
		if d == nil {
			d = &damage{pos: 0, kind: kindUnreadable}
		}
		end, rolled := p.tailEnd(hw)
		damaged(first.base, end, lost.path, d, rolled || lost != last)
	case orphaned:
		if cut {
			orphan.Cause = CauseUnread
			orphan.Explanation += "; the archive ended before all its entries were read, so that segment may be among the entries never read: not verified"
		}
		rows = append(rows, orphan)
	case cut && (prev != nil && hw > prevEnd+1 || prev == nil && hw > first.base):
		from := prevEnd + 1
		if prev == nil {
			from = first.base
		}
		l := hw - 1
		gap(from, &l, CauseUnread, finding.Warning, ld.checkpointPath(), -1,
			"offsets %d..%d are below the broker's checkpoints (high watermark or recovery point %d) but past the last batch read, and the archive ended before all its entries were read: a segment holding them may be among the entries never read; they were not verified",
			from, l, hw)
	case prev != nil && hw > prevEnd+1, prev == nil && hw > first.base:
		from, past := prevEnd+1, "past the last batch on disk"
		if prev == nil {
			from, past = first.base, fmt.Sprintf("no batch is on disk from offset %d", first.base)
		}
		l := hw - 1
		if last.zeroFrom >= 0 {
			verb := "ends in"
			if prev == nil {
				verb = "holds"
			}
			gap(from, &l, CauseCheckpointAh, finding.Warning, last.path, last.zeroFrom,
				"offsets %d..%d are below the broker's checkpoints (high watermark or recovery point %d) but %s, and %s %s zeros from byte %d where they would be: "+
					"zeros replaced data the broker wrote (a file system that lost its last writes in a crash, or a faulty copy), or the broker preallocates segments and the copy was taken while it wrote",
				from, l, hw, past, path.Base(last.path), verb, last.zeroFrom)
			break
		}
		why := "the log lost its tail"
		if prev == nil {
			past += ", where the first segment starts"
			why = "the log lost its data"
		}
		gap(from, &l, CauseCheckpointAh, finding.Warning, ld.checkpointPath(), -1,
			"offsets %d..%d are below the broker's checkpoints (high watermark or recovery point %d) but %s: the copy was taken while the broker wrote, or %s",
			from, l, hw, past, why)
	}
	if lso, ok := ld.entry(snapshot.KindLogStartCheckpoint, p.topic, p.part); ok {
		if fo := p.firstOffset(); fo >= 0 && lso > fo {
			l := min(lso-1, max(prevEnd, fo))
			gap(fo, &l, CauseDeleteRecords, finding.Note, ld.path(snapshot.KindLogStartCheckpoint), -1,
				"offsets %d..%d are still in the files but below the log start offset %d: deleted with DeleteRecords (or retention not yet applied to the files); consumers can no longer read them",
				fo, l, lso)
		}
	}
	slices.SortStableFunc(rows, func(a, b analysis.GapRow) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	return rows
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
	first = min(first, o.base)
	g := analysis.GapRow{Input: p.key.input, Topic: p.topic, Partition: p.part, Dir: p.key.dir, FirstOffset: first,
		Cause: CauseMissingSegment, Severity: finding.Warning, File: o.path}
	g.Explanation = fmt.Sprintf("%s has no %020d.log beside it: the segment from offset %d was deleted or not copied; %s", path.Base(o.path), o.base, o.base, reachTo(&g, hw))
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
