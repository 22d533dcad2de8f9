package check

import (
	"fmt"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// A partition dir renamed with a -delete, -future or -stray suffix is no
// live copy of its partition: the broker removes a -delete or -stray dir
// (its topic or replica is gone), and a -future dir is built from the
// live copy in the same broker until it replaces it. What such a dir
// lacks is therefore never a loss: its ledger rows are notes, the
// ledger's findings of missing offsets give way to one note naming what
// is left on disk, and its verdict is the dir's own state.

// transitKind is the note each suffix gets.
var transitKind = map[string]finding.Kind{
	"delete": finding.KindDeletedPartitionDir,
	"future": finding.KindFuturePartitionDir,
	"stray":  finding.KindStrayPartitionDir,
}

// transitWhy says why a dir of each suffix lacks offsets without loss.
var transitWhy = map[string]string{
	"delete": "renamed for deletion when its topic or replica was deleted; the broker removes it after file.delete.delay.ms",
	"future": "the replica AlterReplicaLogDirs is moving to this log dir, built from the live copy in the same broker",
	"stray":  "a replica the broker found it no longer hosts, set aside for deletion",
}

// transitHead leads the verdict of a dir of each state.
var transitHead = map[analysis.CopyState]string{
	analysis.CopyDeleting: "deleted, awaiting removal",
	analysis.CopyFuture:   "future replica being moved",
	analysis.CopyStray:    "stray replica",
}

// inTransit turns the ledger of a -delete, -future or -stray dir into
// notes: gaps are its rows, and the findings from index from on are
// those the ledger added.
func (p *partition) inTransit(gaps []analysis.GapRow, from int) []analysis.GapRow {
	var absent []string
	for i := range gaps {
		g := &gaps[i]
		if !finding.Counts(g.Severity) {
			continue
		}
		absent = append(absent, rangeText(g.FirstOffset, g.LastOffset)+" ("+g.Cause+")")
		g.Severity = finding.Note
		g.Explanation = "not a loss, the dir is " + transitWhy[p.dirState] + ": " + g.Explanation
	}
	kept := p.findings[:from]
	for _, f := range p.findings[from:] {
		if !finding.Counts(f.Severity) {
			kept = append(kept, f)
		}
	}
	p.findings = kept
	onDisk := "no batches on disk"
	if first := p.firstOffset(); first >= 0 {
		onDisk = fmt.Sprintf("offsets %d..%d on disk in %d segment(s)", first, p.logEnd()-1, len(p.segs))
	}
	lacks := ""
	if len(absent) > 0 {
		lacks = "; not on disk, and not a loss: " + strings.Join(absent, ", ")
	}
	p.add(finding.NewSev(p.where(p.key.dir), transitKind[p.dirState], finding.Note, -1, -1,
		"partition dir %s: %s; %s%s", p.key.dir, transitWhy[p.dirState], onDisk, lacks))
	return gaps
}

// rangeText is "first..last", or "first..?" for a range with no known end.
func rangeText(first int64, last *int64) string {
	if last == nil {
		return fmt.Sprintf("%d..?", first)
	}
	return fmt.Sprintf("%d..%d", first, *last)
}
