package check

import (
	"fmt"
	"path"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// A broker that stops cleanly flushes every segment and checkpoint, then
// writes .kafka_cleanshutdown. Two things follow for a copy of such a log
// dir. Its active segment cannot end in a torn batch the broker wrote:
// bytes missing there went missing after the stop. And its next start is
// a clean one, which recovers no segment: it takes the active segment's
// log end from the offset index's last entry (LogSegment.readNextOffset
// reads from the byte that entry names to the last whole batch), and
// when no batch is there it falls back to the segment's base offset, so
// every offset of that segment is gone once the broker starts.

// fileKey names a file of an input.
type fileKey struct {
	input int32
	path  string
}

// indexEnd is an offset index's last entry as a broker opens the file:
// a zero-filled (untrimmed) tail makes the last slot (base, 0).
type indexEnd struct {
	file string
	off  int64
	pos  int64
}

// lastIndexEntry is the entry a broker's OffsetIndex.lastOffset reads of
// x, the .index file of the segment named for base.
func lastIndexEntry(file string, base int64, x *segment.OffsetIndex) *indexEnd {
	e := &indexEnd{file: file, off: base}
	if x == nil || x.ZeroTailEntries > 0 || len(x.Entries) == 0 {
		return e
	}
	last := x.Entries[len(x.Entries)-1]
	e.off, e.pos = last.Offset, int64(last.Position)
	return e
}

func (c *Checker) noteIndexEnd(input int32, seg string, e *indexEnd) {
	if c.indexEnds == nil {
		c.indexEnds = map[fileKey]indexEnd{}
	}
	c.indexEnds[fileKey{input, seg}] = *e
}

// OffsetIndexEnd is the last entry of the offset index of the segment at
// path seg of input (offset and byte), as the broker reads it; ok is false
// when no .index of it was read.
func (c *Checker) OffsetIndexEnd(input int32, seg string) (off, pos int64, ok bool) {
	e, ok := c.indexEnds[fileKey{input, seg}]
	return e.off, e.pos, ok
}

// cleanStopCut reports whether offsets from first on, missing from the
// end of the active segment, were lost after a clean stop: the log dir
// holds .kafka_cleanshutdown and its recovery point, which a clean stop
// sets to the log end, is past first. It returns that recovery point.
func (p *partition) cleanStopCut(first int64) (int64, bool) {
	s := p.cleanStop()
	return s.RecoveryPoint, s.LostAfterStop(first)
}

// cleanStop is what the partition's log dir says of its stop; nothing
// for a file given on its own.
func (p *partition) cleanStop() finding.CleanStop {
	if p.c.isFile(p.key.input) {
		return finding.CleanStop{}
	}
	ld := p.c.logDirOfPartition(p)
	if ld == nil || !ld.clean {
		return finding.CleanStop{}
	}
	rp, ok := ld.entry(snapshot.KindRecoveryPointCheckpoint, p.topic, p.part)
	return finding.CleanStop{Clean: true, RecoveryPoint: rp, HasPoint: ok}
}

// cleanStopTear grades the torn batch at the end of the active segment of
// a cleanly stopped log dir as a loss: an error, whose message says why.
func (p *partition) cleanStopTear(t truncRef, active *segSummary) bool {
	first := active.lastIntact + 1
	if active.firstIntact < 0 {
		first = active.base
	}
	s := p.cleanStop()
	if !s.LostAfterStop(first) {
		return false
	}
	finding.GradeActiveTear(&p.findings[t.idx], s, first)
	return true
}

// cleanStartReset adds the ledger row of a cleanly stopped copy whose
// next start loses its whole active segment: the offset index's last
// entry names a byte where no batch of the file is, so the broker comes
// up with its log end at the segment's base offset.
func (g *gapLedger) cleanStartReset(last *segSummary) {
	p := g.p
	// A segment read only in part (an archive cut inside it, a read that
	// failed) is not known to end where its reading did.
	if !g.ld.clean || p.c.isFile(p.key.input) || last.firstIntact < 0 || last.idx == nil || last.unreadable || g.cut {
		return
	}
	e := last.idx
	if last.lastPos >= e.pos && last.lastIntact >= e.off {
		return // the broker finds the batch the entry names, and reads on
	}
	l := last.lastIntact
	where := "where the file holds no batch"
	if last.size >= 0 && e.pos >= last.size {
		where = fmt.Sprintf("past the end of the file (%d bytes)", last.size)
	}
	g.gap(last.firstIntact, &l, CauseCleanStart, finding.Error, last.path, e.pos,
		"offsets %d..%d are on disk, but the log dir was stopped cleanly, so the broker's next start recovers no segment: "+
			"it reads the active segment's log end from %s's last entry (offset %d at byte %d), %s, "+
			"and falls back to the segment's base offset %d: a restart loses them (and the producer snapshots past %d) for followers and consumers",
		last.firstIntact, l, path.Base(e.file), e.off, e.pos, where, last.base, last.base)
}
