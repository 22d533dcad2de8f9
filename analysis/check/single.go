package check

import (
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// A segment given on its own (a file input) is the only segment of its
// partition copy, so the inputs cannot tell whether it is the active
// segment. Its directory can: the names beside it say whether a later
// live segment follows it (source.LaterSegment), as dump judges a file.

// besideView is what the directory of a segment given on its own shows.
type besideView struct {
	looked bool
	place  finding.Place
	next   int64 // base offset of the later live segment beside it, -1 for none
}

// lastPlace is the place of the partition's last segment: the active
// one, unless it was given on its own and its directory shows a later
// segment (a rolled one) or could not be listed (unknown).
func (p *partition) lastPlace() finding.Place {
	if !p.c.isFile(p.key.input) {
		return finding.ActiveSegment
	}
	if !p.beside.looked {
		next, err := source.LaterSegment(p.c.inputs[p.key.input].Abs)
		p.beside = besideView{looked: true, place: finding.PlaceBeside(next, err), next: next}
	}
	return p.beside.place
}

// tailEnd is the last offset lost with a torn tail of the partition's
// last segment, and whether that segment was rolled: up to the high
// watermark hw the checkpoints give (none beside a file given on its
// own), or up to just below the base offset of the later segment beside
// a rolled segment given on its own, which the name of that one bounds.
func (p *partition) tailEnd(hw int64) (int64, bool) {
	if p.lastPlace() == finding.RolledSegment {
		return max(hw, p.beside.next) - 1, true
	}
	return hw - 1, false
}

// tornTail says what a torn tail of the last segment lost with it.
func (p *partition) tornTail() string {
	if p.lastPlace() == finding.UnknownPlace {
		return "lost with the torn tail of a segment given on its own whose directory could not be listed " +
			"(a torn tail if it is the active segment, lost data if a later segment follows it)"
	}
	return "lost with the torn tail of the active segment"
}
