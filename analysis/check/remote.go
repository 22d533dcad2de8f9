package check

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/snapshot"
)

// A broker with tiered storage (KIP-405) copies rolled segments to remote
// storage and then deletes them locally by local.retention.ms/bytes: its
// log start stays where remote retention leaves it, the leader-epoch
// checkpoint keeps the epochs of the remote offsets, and the log dir holds
// only the tail. The offsets below the first local segment that
// __remote_log_metadata says are held remotely are remote-only: held, not
// lost and not deleted by retention.

// AddRemoteSegments adds the remote segments read from
// __remote_log_metadata, known only once its records are read: the
// ledger is classified at Finish.
func (c *Checker) AddRemoteSegments(rows []analysis.RemoteSegmentRow) {
	c.remoteOrphans(rows)
	for _, r := range rows {
		if !r.Held {
			continue
		}
		last, ok := c.storeHolds(&r)
		if !ok {
			continue
		}
		if c.o.RemoteHeld == nil {
			c.o.RemoteHeld = map[string]map[int32][]analysis.OffsetRange{}
		}
		byPart := c.o.RemoteHeld[r.Topic]
		if byPart == nil {
			byPart = map[int32][]analysis.OffsetRange{}
			c.o.RemoteHeld[r.Topic] = byPart
		}
		byPart[r.Partition] = append(byPart[r.Partition], analysis.OffsetRange{First: r.StartOffset, Last: last})
	}
}

// remoteBelow finds the run of held remote offsets that reaches the
// offset before base without a hole: its first offset, and how many
// remote segments make it.
func (p *partition) remoteBelow(base int64) (int64, int, bool) {
	rs := slices.Clone(p.c.o.RemoteHeld[p.topic][p.part])
	slices.SortFunc(rs, func(a, b analysis.OffsetRange) int { return cmp.Compare(b.Last, a.Last) })
	from, n := base, 0
	for _, r := range rs {
		if r.Last < from-1 {
			break // a hole: the run reaching base ends here
		}
		if r.First < from {
			from = r.First
		}
		n++
	}
	return from, n, n > 0 && from < base
}

// remoteOnly puts the offsets below the first segment that remote storage
// holds in the ledger as remote-only, and shortens *l to what is left
// below them; done when nothing is.
func (g *gapLedger) remoteOnly(first *segSummary, l *int64, lso int64, lsoKnown bool) bool {
	from, n, ok := g.p.remoteBelow(first.base)
	switch {
	case ok:
		last := *l
		g.gap(from, &last, CauseRemoteOnly, finding.Note, first.path, -1,
			"offsets %d..%d are below the first segment on disk (%d) and held only in remote storage: __remote_log_metadata lists %d segment(s) "+
				"copied (COPY_SEGMENT_FINISHED) and not deleted that hold them", from, last, first.base, n)
	case g.p.remoteAnyBelow(first.base):
		// The remote log ends before the local one starts: the offsets
		// between are a hole, the remote run below it is held.
		from = first.base
	default:
		return false
	}
	from = g.remoteBelowHoles(first, from)
	if from <= 0 {
		return true
	}
	*l = from - 1
	if lsoKnown && lso >= from {
		g.gap(0, l, CauseRetention, finding.Note, first.path, -1,
			"offsets 0..%d are below the log start offset checkpoint (%d) and the first remote segment (%d): deleted by retention", *l, lso, from)
		return true
	}
	return false
}

// remoteAnyBelow reports whether remote storage holds some offset below
// base.
func (p *partition) remoteAnyBelow(base int64) bool {
	for _, r := range p.c.o.RemoteHeld[p.topic][p.part] {
		if r.First < base {
			return true
		}
	}
	return false
}

// remoteHolds reports whether remote storage holds every offset from
// start up to the one before base.
func (p *partition) remoteHolds(start, base int64) bool {
	from, _, ok := p.remoteBelow(base)
	return ok && from <= start
}

// remoteBelowHoles goes on below a remote run that starts at from: a
// range no held remote segment holds between two that are held is a
// hole in the remote log, a missing segment (retention deletes from the
// log's start, never from its middle), and the run below it is
// remote-only again. It returns where the lowest run starts.
func (g *gapLedger) remoteBelowHoles(first *segSummary, from int64) int64 {
	for from > 0 {
		top := int64(-1)
		for _, r := range g.p.c.o.RemoteHeld[g.p.topic][g.p.part] {
			if r.Last < from-1 {
				top = max(top, r.Last)
			}
		}
		if top < 0 {
			return from
		}
		holeFirst, holeLast := top+1, from-1
		l := holeLast
		where := "between remote segments that are: a hole in the remote log"
		if holeLast == first.base-1 {
			where = fmt.Sprintf("between the end of the remote log (%d) and the first segment on disk (%d)", top, first.base)
		}
		g.gap(holeFirst, &l, CauseMissingSegment, finding.Warning, first.path, -1,
			"offsets %d..%d are below the first segment on disk (%d) and in no remote segment held, though remote segments below them are: "+
				"a hole in the remote log", holeFirst, holeLast, first.base)
		g.p.add(finding.NewSev(g.p.where(first.path), finding.KindMissingSegment, finding.Warning, -1, holeFirst,
			"offsets %d..%d are in no remote segment held, %s", holeFirst, holeLast, where))
		low, n, _ := g.p.remoteBelow(top + 1)
		last := top
		g.gap(low, &last, CauseRemoteOnly, finding.Note, first.path, -1,
			"offsets %d..%d are below the first segment on disk (%d) and held only in remote storage: __remote_log_metadata lists %d segment(s) "+
				"copied (COPY_SEGMENT_FINISHED) and not deleted that hold them", low, top, first.base, n)
		from = low
	}
	return from
}

// remoteDir reports whether the partition is a remote segment's
// (segmentKeyDir), whatever input holds it.
func (p *partition) remoteDir() bool {
	_, ok := source.ParseRemoteDir(path.Base(path.Dir(p.key.dir)))
	return ok && strings.HasSuffix(p.key.dir, "/"+path.Base(p.key.dir))
}

// segmentKeyDir is the key of the partition the file at p belongs to for
// the checks: its partition dir, or for a file of a remote segment
// (<start>-<segment id>.<suffix> in a <topic>-<partition>-<topic id> dir)
// that dir and the segment id. Each remote segment is an object of its
// own: a failed copy left beside the copy retried, or a segment copied
// again by another leader, holds the same offsets as another without
// the log going back, so offsets, sequences and segment bounds are
// checked within one remote segment, not across them.
func segmentKeyDir(p string) string {
	dir := analysis.PartitionDir(p)
	if _, ok := source.ParseRemoteDir(path.Base(dir)); !ok {
		return dir
	}
	if n := snapshot.ParseName(path.Base(p)); n.SegmentID != "" {
		return dir + "/" + n.SegmentID
	}
	return dir
}

// linkRemoteHoles sets caused_by on each hole in the remote log
// (missing-segment) whose first offset is the start of a remote segment
// the store lacks or holds damaged: that finding is the evidence of the
// loss.
func linkRemoteHoles(findings []analysis.AnomalyRow) {
	type at struct {
		topic string
		part  int32
		off   int64
	}
	causes := map[at]int{}
	for i := range findings {
		f := &findings[i]
		if (f.Kind == finding.KindRemoteSegmentMissing || f.Kind == finding.KindRemoteSegmentDamaged) && f.Offset != nil && f.Topic != nil && f.Partition != nil {
			causes[at{*f.Topic, *f.Partition, *f.Offset}] = i
		}
	}
	if len(causes) == 0 {
		return
	}
	for i := range findings {
		f := &findings[i]
		if f.Kind != finding.KindMissingSegment || f.CausedBy != nil || f.Offset == nil || f.Topic == nil || f.Partition == nil {
			continue
		}
		if c, ok := causes[at{*f.Topic, *f.Partition, *f.Offset}]; ok {
			*f = finding.Follows(*f, &findings[c])
		}
	}
	linkRemoteFollowers(findings)
}

// linkRemoteFollowers sets caused_by on the findings of a remote
// segment's index files and producer snapshot that name an offset the
// segment no longer holds (followerKinds): they follow from its
// remote-segment-damaged, as a local segment's do from its cut.
func linkRemoteFollowers(findings []analysis.AnomalyRow) {
	type seg struct {
		input  int32
		prefix string // <dir>/<start>-<segment id>.
	}
	damaged := map[seg]int{}
	for i := range findings {
		f := &findings[i]
		if f.Kind == finding.KindRemoteSegmentDamaged && f.Offset != nil {
			damaged[seg{f.Input, strings.TrimSuffix(f.File, "log")}] = i
		}
	}
	if len(damaged) == 0 {
		return
	}
	for i := range findings {
		f := &findings[i]
		if !followerKinds[f.Kind] || f.CausedBy != nil || f.Offset == nil {
			continue
		}
		dot := strings.LastIndexByte(f.File, '.')
		c, ok := damaged[seg{f.Input, f.File[:dot+1]}]
		if ok && *f.Offset >= *findings[c].Offset {
			*f = finding.Follows(*f, &findings[c])
		}
	}
}
