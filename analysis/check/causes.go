package check

import (
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// followerKinds are the findings that follow from a loss when they name
// an offset inside it or past its start: the index entries, snapshots and
// checkpoints written while the lost offsets were still on disk.
var followerKinds = map[finding.Kind]bool{
	finding.KindIndexMismatch:    true,
	finding.KindTxnIndexMismatch: true,
	finding.KindSnapshotAhead:    true,
	finding.KindSnapshotMismatch: true,
	finding.KindCheckpointAhead:  true,
}

// causeOf is a gap of the ledger whose evidence is a finding: the cut,
// the missing segment, the checkpoint that shows a lost tail.
type causeOf struct {
	gap analysis.GapRow
	at  int // index of the finding in the findings
}

// linkCauses sets caused_by on each finding that follows from a loss of
// its partition copy: the cause is the finding that is the evidence of
// the gap with the highest first offset at or below the finding's offset,
// when the offset is inside the gap or just past it (a checkpoint or a
// snapshot names the end of what was lost); a gap of unknown end reaches
// every later offset. A finding that is the evidence of a gap is a cause
// itself.
func linkCauses(findings []analysis.AnomalyRow, gaps []analysis.GapRow) {
	byPart := map[partName]map[int32][]causeOf{}
	isCause := map[int]bool{}
	ev := indexEvidence(findings)
	for _, g := range gaps {
		if !finding.Counts(g.Severity) {
			continue
		}
		at := ev.of(findings, &g)
		if at < 0 {
			continue
		}
		isCause[at] = true
		k := partName{g.Topic, g.Partition}
		if byPart[k] == nil {
			byPart[k] = map[int32][]causeOf{}
		}
		byPart[k][g.Input] = append(byPart[k][g.Input], causeOf{g, at})
	}
	for i := range findings {
		f := &findings[i]
		if isCause[i] || !followerKinds[f.Kind] || f.Offset == nil || f.Topic == nil || f.Partition == nil || f.CausedBy != nil {
			continue
		}
		best := -1
		var first int64
		for _, c := range byPart[partName{*f.Topic, *f.Partition}][f.Input] {
			reaches := c.gap.LastOffset == nil || *f.Offset <= *c.gap.LastOffset+1
			if c.gap.FirstOffset <= *f.Offset && reaches && (best < 0 || c.gap.FirstOffset > first) {
				best, first = c.at, c.gap.FirstOffset
			}
		}
		if best >= 0 {
			*f = finding.Follows(*f, &findings[best])
		}
	}
	linkOmitted(findings)
}

// linkOmitted sets caused_by on a row that stands for the findings of a
// file and kind past the per-file cap (it has no offset of its own) when
// every listed finding of that file and kind follows from one cause: the
// findings left out come after them in the file, past the same cut.
func linkOmitted(findings []analysis.AnomalyRow) {
	type fileKind struct {
		input int32
		file  string
		kind  finding.Kind
	}
	cause := map[fileKind]string{}
	for i := range findings {
		f := &findings[i]
		if f.Omitted != nil || !followerKinds[f.Kind] {
			continue
		}
		k := fileKind{f.Input, f.File, f.Kind}
		c, seen := cause[k]
		switch {
		case f.CausedBy == nil || seen && c != *f.CausedBy:
			cause[k] = ""
		case !seen:
			cause[k] = *f.CausedBy
		}
	}
	type ref struct {
		input int32
		ref   string
	}
	causes := map[ref]int{}
	for i := range findings {
		if findings[i].CausedBy == nil {
			causes[ref{findings[i].Input, analysis.FindingRef(&findings[i])}] = i
		}
	}
	for i := range findings {
		f := &findings[i]
		if f.Omitted == nil || f.CausedBy != nil {
			continue
		}
		if at, ok := causes[ref{f.Input, cause[fileKind{f.Input, f.File, f.Kind}]}]; ok {
			*f = finding.Follows(*f, &findings[at])
		}
	}
}

// evidence indexes findings by input, kind and file, to find the
// evidence of each gap without a pass over every finding per gap.
type evidence map[evidenceKey][]int

type evidenceKey struct {
	input      int32
	kind, file string
}

// anyKind stands for every kind in the index: a damaged batch's gap is
// evidenced by whatever finding its reader made there (a CRC mismatch, a
// record that does not decode).
const anyKind = ""

func indexEvidence(findings []analysis.AnomalyRow) evidence {
	e := evidence{}
	for i := range findings {
		f := &findings[i]
		for _, kind := range []string{string(f.Kind), anyKind} {
			k := evidenceKey{f.Input, kind, f.File}
			e[k] = append(e[k], i)
		}
	}
	return e
}

// of is the index of the finding a gap names as its evidence (its kind
// is the gap's cause, in the gap's file, at its position), -1 when none
// is.
func (e evidence) of(findings []analysis.AnomalyRow, g *analysis.GapRow) int {
	kind := g.Cause
	if kind == CauseDamaged {
		if g.Position == nil {
			return -1
		}
		kind = anyKind
	}
	for _, i := range e[evidenceKey{g.Input, kind, g.File}] {
		f := &findings[i]
		if kind == anyKind && (!finding.Counts(f.Severity) || f.Position == nil) {
			continue
		}
		if f.Topic != nil && (*f.Topic != g.Topic || f.Partition == nil || *f.Partition != g.Partition) {
			continue
		}
		if g.Position != nil && f.Position != nil && *g.Position != *f.Position {
			continue
		}
		return i
	}
	return -1
}
