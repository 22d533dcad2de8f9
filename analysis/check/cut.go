package check

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/snapshot"
)

// An archive input that ended early (cut short or damaged) delivered its
// entries up to the fault and none after it. What lies past the fault was
// never read: the checks that would compare a file with it are not made,
// and what it explains (a snapshot or checkpoint ahead of the log read, a
// partition dir without its .log) is said to be unread, not lost.

// noteEntry keeps the path of an archive input's latest entry: if the
// archive ends early, the dir that entry lies in is the one it ended
// inside.
func (c *Checker) noteEntry(input int32, p string) {
	if !c.isArchive(input) {
		return
	}
	if c.lastEntry == nil {
		c.lastEntry = map[int32]string{}
	}
	c.lastEntry[input] = p
}

// openAtCut reports whether archive input ended while it was in dir (its
// last entry read lies there or below), so that more of the dir's entries
// may have followed. Archive writers put a dir's entries together: a dir
// the archive had left before it ended came whole, and what it lacks is
// not explained by the cut.
func (c *Checker) openAtCut(input int32, dir string) bool {
	last, ok := c.lastEntry[input]
	if !ok || !c.cut[input] {
		return false
	}
	// The dir the last entry lies in, or the last entry itself when it is
	// a dir's header: that dir and every dir above it were open.
	at, isDir := strings.CutSuffix(last, "/")
	if !isDir {
		at = analysis.PartitionDir(last)
	}
	return dir == "." || at == dir || strings.HasPrefix(at, dir+"/")
}

// openAtCut reports whether the archive ended inside p's dir.
func (p *partition) openAtCut() bool { return p.c.openAtCut(p.key.input, p.key.dir) }

// openAtCut reports whether the archive ended inside the log dir: the
// partition dirs its checkpoints name that did not come may be among the
// entries never read.
func (l *logDir) openAtCut() bool { return l.c.openAtCut(l.key.input, l.key.dir) }

// archiveCut reports whether an archive ended inside segment s, and the
// byte of it where reading stopped: its bytes from there on never came.
// An archive's read fails only when its stream does.
func (p *partition) archiveCut(s *segSummary) (int64, bool) {
	if s == nil || !s.readFailed || !p.c.isArchive(p.key.input) {
		return 0, false
	}
	if s.stopAt >= 0 {
		return s.stopAt, true
	}
	return s.lastEnd, true
}

// cutWhy says why p's log was not read to its end when its archive ended
// inside p's dir: inside one of its segments, or before the dir's later
// entries. ok is false when the cut does not explain it.
func (p *partition) cutWhy() (string, bool) {
	if !p.openAtCut() {
		return "", false
	}
	for _, s := range p.segs {
		if at, ok := p.archiveCut(s); ok {
			return fmt.Sprintf("the archive ends inside %s, at byte %d of it (cut short or damaged)", path.Base(s.path), at), true
		}
	}
	return "the archive ended inside the partition dir, before all its entries were read (cut short or damaged)", true
}

// lastRead is the highest offset of the batches read from segment s, -1
// for none.
func (s *segRun) lastRead() int64 {
	last := int64(-1)
	for i := range s.batches {
		last = max(last, s.batches[i].last)
	}
	return last
}

// pastCut gathers the entries of an index file that lie past where the
// archive ended inside its segment: nothing was read there to check them
// against, and the index alone is no evidence of damage.
type pastCut struct {
	n, entry int
	pos, off int64
}

func (u *pastCut) add(entry int, pos, off int64) {
	if u.n == 0 {
		u.entry, u.pos, u.off = entry, pos, off
	}
	u.n++
}

// notePastCut says in one finding which entries of an index file were
// not checked: those pointing at or past byte at of segment s (byPos, an
// .index), or naming offsets past the last one read from it.
func (p *partition) notePastCut(file string, s *segRun, at int64, byPos bool, u *pastCut) {
	if u.n == 0 {
		return
	}
	what := fmt.Sprintf("name offsets past %d, the last one read from %s", s.lastRead(), path.Base(s.path))
	switch {
	case byPos:
		what = fmt.Sprintf("point at or past byte %d of %s", at, path.Base(s.path))
	case s.lastRead() < 0:
		what = fmt.Sprintf("name offsets of %s, of which no batch was read", path.Base(s.path))
	}
	n := fmt.Sprintf("%d entries (the first: entry %d, offset %d)", u.n, u.entry, u.off)
	if u.n == 1 {
		n = fmt.Sprintf("entry %d (offset %d)", u.entry, u.off)
		what = strings.Replace(strings.Replace(what, "point ", "points ", 1), "name offsets", "names an offset", 1)
	}
	p.add(finding.New(p.where(file), finding.KindNotVerifiable, u.pos, u.off,
		"%s %s, where the archive ends inside the segment (at byte %d; cut short or damaged): nothing of it was read from there, so not checked",
		n, what, at))
}

// unreadDir is the ledger of a partition dir without a .log file that the
// archive ended inside: its segments may be among the entries never read,
// so from the log start on its offsets are unread, up to the checkpoints
// when they say. ok is false when nothing says the dir held offsets.
func (p *partition) unreadDir(from, hw int64) (analysis.GapRow, bool) {
	if hw <= from && len(p.orphans) == 0 && p.dirState != "" {
		return analysis.GapRow{}, false
	}
	g := p.gapRow(from, nil, CauseUnread, finding.Warning, p.key.dir, "")
	reach := reachTo(&g, hw)
	g.Explanation = fmt.Sprintf("the archive ended inside the partition dir, which %s, before all its entries were read (cut short or damaged): "+
		"its segments may be among the entries never read, so offsets from %d on were not verified; %s",
		p.noLog(), from, reach)
	return g, true
}

// orphanFindings says, once the run is read, what each index file without
// its segment shows: a missing segment, or, when the archive ended inside
// the partition dir, a segment that may be among the entries never read.
func (p *partition) orphanFindings() {
	open := p.openAtCut()
	for _, o := range p.orphans {
		if open {
			p.add(finding.New(p.where(o.path), finding.KindNotVerifiable, -1, o.base,
				"index file whose segment %020d.log was not read: "+
					"the archive ended inside the partition dir before all its entries were read (cut short or damaged), "+
					"so the segment may be among the entries never read",
				o.base))
			continue
		}
		p.add(finding.New(p.where(o.path), finding.KindMissingSegment, -1, o.base,
			"index file without its segment %020d.log: the segment was not copied or was lost, so offsets from %d on may be missing "+
				"(a broker would delete this orphan index at load)", o.base, o.base))
	}
}

// partName is a partition as a checkpoint names it.
type partName struct {
	topic string
	part  int32
}

// noteUnreached keeps a partition the log dir's checkpoints name but
// whose dir the run did not see, when the archive ended inside the log
// dir: its entries may lie past the cut. Each is kept once, whichever
// checkpoints name it. In an input read whole such a partition is absent
// from the copy, which the checkpoint-stale note says.
func (l *logDir) noteUnreached(n partName) {
	if l.openAtCut() && !slices.Contains(l.unreached, n) {
		l.unreached = append(l.unreached, n)
	}
}

// unreachedVerdict is the verdict and ledger row of a partition the
// archive ended before: every offset its checkpoints vouch for is unread,
// from the log start (0 when no checkpoint gives it) up to the high
// watermark or recovery point, whichever is higher; past them, or when
// neither is known, the end is unknown.
func (l *logDir) unreachedVerdict(n partName) Verdict {
	dir := path.Join(l.key.dir, fmt.Sprintf("%s-%d", n.topic, n.part))
	from := max(l.offset(snapshot.KindLogStartCheckpoint, n.topic, n.part), 0)
	hw := max(l.offset(snapshot.KindReplicationCheckpoint, n.topic, n.part),
		l.offset(snapshot.KindRecoveryPointCheckpoint, n.topic, n.part))
	file := l.checkpointPath()
	if file == "" {
		file = l.path(snapshot.KindLogStartCheckpoint)
	}
	src := l.c.source(l.key.input)
	g := analysis.GapRow{
		Input:       l.key.input,
		Source:      src,
		Topic:       n.topic,
		Partition:   n.part,
		Dir:         dir,
		FirstOffset: from,
		Cause:       CauseUnread,
		Severity:    finding.Warning,
		File:        file,
	}
	reach := reachTo(&g, hw)
	g.Explanation = fmt.Sprintf("no entry of the partition dir %s was read: the archive ended before it (cut short or damaged), "+
		"so offsets from %d on were not verified; %s",
		path.Base(dir), from, reach)
	v := Verdict{Verdict: analysis.Verdict{Input: l.key.input, Source: src, Topic: n.topic, Partition: n.part, Dir: dir,
		FirstOffset: -1, LogEndOffset: -1}, gaps: []analysis.GapRow{g}, span: "nothing read (the archive ended before it)"}
	v.judge()
	return v
}
