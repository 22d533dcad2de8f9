package check

import (
	"cmp"
	"path"
	"slices"

	"github.com/ksleuth/ksleuth/analysis/finding"
)

// segmentStart is an offset where a segment of the partition began, shown
// by a file other than a live segment: a .log.deleted, index files whose
// .log is gone, a producer snapshot (named for the base offset of the
// segment a roll began).
type segmentStart struct {
	off  int64
	file string
	why  string
}

// startsIn are the segment starts in first..last, one per offset, in
// offset order; index files without their .log count too.
func (p *partition) startsIn(first, last int64) []segmentStart {
	var out []segmentStart
	for _, s := range p.starts {
		if s.off >= first && s.off <= last {
			out = append(out, s)
		}
	}
	for _, o := range p.orphans {
		if o.base >= first && o.base <= last {
			out = append(out, segmentStart{off: o.base, file: o.path, why: "its index files remain without it"})
		}
	}
	slices.SortStableFunc(out, func(a, b segmentStart) int { return cmp.Compare(a.off, b.off) })
	return slices.CompactFunc(out, func(a, b segmentStart) bool { return a.off == b.off })
}

// cutThenMissing explains from..to, the offsets between the torn tail of
// the rolled segment prev and the next segment s read: the cut took them
// up to the first later segment known to have begun, and each such
// segment that is not on disk took its own range. Without such a start
// the cut took them all. A snapshot written at a clean shutdown inside
// prev would look like a start too; it lies before the tail a crash tore,
// so not inside from..to.
func (g *gapLedger) cutThenMissing(from, to int64, prev, s *segSummary) {
	// Starts at or past s's name are s's own: s is on disk.
	limit := min(to, s.base-1)
	starts := g.p.startsIn(from+1, limit)
	if len(starts) == 0 {
		g.damaged(from, to, prev.path, prev.tail, true)
		return
	}
	g.damaged(from, starts[0].off-1, prev.path, prev.tail, true)
	for i, st := range starts {
		end := limit
		if i+1 < len(starts) {
			end = starts[i+1].off - 1
		}
		g.gap(st.off, &end, CauseMissingSegment, finding.Warning, st.file, -1,
			"offsets %d..%d were in the segment that began at %d (%s), which is not on disk: it was deleted or not copied; "+
				"the cut of %s does not reach them", st.off, end, st.off, st.why, path.Base(prev.path))
		g.p.add(finding.New(g.p.where(s.path), finding.KindMissingSegment, 0, st.off,
			"offsets %d..%d are missing before this segment: the segment that began at %d (%s) is not on disk, deleted or not copied",
			st.off, end, st.off, st.why))
	}
	if limit < to {
		g.damaged(limit+1, to, prev.path, prev.tail, true)
	}
}
