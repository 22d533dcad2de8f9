package check

import (
	"cmp"

	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"

	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/snapshot"
)

// archiveHold keeps an archive input's batches and files until the archive
// ends: its entries come in any order, and the checks need a directory's.
type archiveHold struct {
	input   int32
	batches map[string][]analysis.BatchRow // by segment path
	files   []*scan.FileEvent
	// seen indexes files by path: an archive may hold several entries of
	// one name, and only the last, which extraction would keep, is the
	// partition's (the others are reported as duplicate entries).
	seen map[string]int
	kept []analysis.AnomalyRow // findings of the entries replaced
}

// hold returns the hold of an archive input, replaying the previous
// archive's first: inputs are scanned one after another.
func (c *Checker) hold(input int32) *archiveHold {
	if c.held != nil && c.held.input != input {
		c.flushHeld()
	}
	if c.held == nil {
		c.held = &archiveHold{input: input, batches: map[string][]analysis.BatchRow{}, seen: map[string]int{}}
	}
	return c.held
}

func (h *archiveHold) batch(seg string, b analysis.BatchRow) {
	if _, again := h.seen[seg]; again {
		// The first batch of a later entry of the same name.
		delete(h.batches, seg)
		h.replaced(seg)
	}
	h.batches[seg] = append(h.batches[seg], b)
}

func (h *archiveHold) file(ev *scan.FileEvent) {
	if _, again := h.seen[ev.Entry.Path]; again {
		h.replaced(ev.Entry.Path)
	}
	h.seen[ev.Entry.Path] = len(h.files)
	h.files = append(h.files, ev)
}

// replaced drops the earlier entry of a name seen again, keeping its
// findings.
func (h *archiveHold) replaced(p string) {
	i := h.seen[p]
	delete(h.seen, p)
	if old := h.files[i]; old != nil {
		h.kept = append(h.kept, old.Anomalies...)
		h.files[i] = nil
	}
}

// kindRank orders a partition's files of one offset: a snapshot named N
// describes the state before segment N's batches, so it comes first; index
// files follow their segment.
func kindRank(k snapshot.Kind) int {
	switch k {
	case snapshot.KindSnapshot:
		return 0
	case snapshot.KindLog:
		return 1
	case snapshot.KindIndex:
		return 2
	case snapshot.KindTimeIndex:
		return 3
	case snapshot.KindTxnIndex:
		return 4
	}
	return 5
}

// flushHeld replays the held archive in directory order: by directory,
// then, within a partition dir, by offset and kind.
func (c *Checker) flushHeld() {
	h := c.held
	if h == nil {
		return
	}
	c.held = nil
	c.findings = append(c.findings, h.kept...)
	h.files = slices.DeleteFunc(h.files, func(ev *scan.FileEvent) bool { return ev == nil })
	slices.SortStableFunc(h.files, func(a, b *scan.FileEvent) int {
		da, db := analysis.PartitionDir(a.Entry.Path), analysis.PartitionDir(b.Entry.Path)
		if da != db {
			return strings.Compare(da, db)
		}
		na, nb := a.Entry.Name, b.Entry.Name
		oa, ob := na.Offset, nb.Offset
		if na.Kind != snapshot.KindLog && na.Kind != snapshot.KindSnapshot && !indexKind(na.Kind) {
			oa = 1 << 62
		}
		if nb.Kind != snapshot.KindLog && nb.Kind != snapshot.KindSnapshot && !indexKind(nb.Kind) {
			ob = 1 << 62
		}
		return cmp.Or(cmp.Compare(oa, ob), cmp.Compare(kindRank(na.Kind), kindRank(nb.Kind)), strings.Compare(path.Base(a.Entry.Path), path.Base(b.Entry.Path)))
	})
	var last *partition
	for _, ev := range h.files {
		e := ev.Entry
		if liveSegment(e.Name) {
			topic, part := "", int32(-1)
			if e.Partition != nil {
				topic, part = e.Partition.Topic, e.Partition.Partition
			}
			p := c.partitionOf(h.input, segmentKeyDir(e.Path), topic, part)
			if last != nil && last != p {
				last.release()
			}
			last = p
			bs := h.batches[e.Path]
			for i := range bs {
				c.replay(&bs[i])
			}
			delete(h.batches, e.Path)
		}
		c.route(ev)
	}
	if last != nil {
		last.release()
	}
}

func indexKind(k snapshot.Kind) bool {
	return k == snapshot.KindIndex || k == snapshot.KindTimeIndex || k == snapshot.KindTxnIndex
}
