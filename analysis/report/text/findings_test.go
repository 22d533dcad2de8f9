package text

import (
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

func foldRow(kind finding.Kind, sev finding.Severity, file string, pos int64, cause *analysis.AnomalyRow) analysis.AnomalyRow {
	r := analysis.AnomalyRow{Kind: kind, Severity: sev, File: file, Position: &pos, Message: "m"}
	if cause != nil {
		ref := analysis.FindingRef(cause)
		r.CausedBy = &ref
	}
	return r
}

// TestFindingsFolded: a follower prints under its cause as a count, or
// with all on a line of its own; a note left out with noNotes takes its
// followers' fold with it, so they stand alone; the summary's count says
// how many follow, in the singular for one.
func TestFindingsFolded(t *testing.T) {
	cut := foldRow(finding.KindTruncated, finding.Error, "t-0/0.log", 408, nil)
	note := foldRow(finding.KindZeroTail, finding.Note, "t-1/0.log", 10, nil)
	rows := []analysis.AnomalyRow{cut, foldRow(finding.KindIndexMismatch, finding.Error, "t-0/0.index", 8, &cut), note,
		foldRow(finding.KindIndexMismatch, finding.Error, "t-1/0.index", 0, &note)}
	path := func(a *analysis.AnomalyRow) string { return "D/" + a.File }
	var b strings.Builder
	Findings(&b, rows, path, false, false)
	want := "findings:\n  D/t-0/0.log: error truncated-batch at byte 408: m\n    +1 index-mismatch that follows from it\n" +
		"  D/t-1/0.log: note zero-tail at byte 10: m\n    +1 index-mismatch that follows from it\n"
	if b.String() != want {
		t.Errorf("folded:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	Findings(&b, rows, path, true, true)
	want = "findings:\n  D/t-0/0.log: error truncated-batch at byte 408: m\n    + D/t-0/0.index: error index-mismatch at byte 8: m\n" +
		"  D/t-1/0.index: error index-mismatch at byte 0: m\n"
	if b.String() != want {
		t.Errorf("no notes, all:\n%s\nwant\n%s", b.String(), want)
	}
	byKind := map[finding.Kind]int64{finding.KindTruncated: 1, finding.KindIndexMismatch: 1}
	got := FindingCounts(2, byKind, 1, map[finding.Kind]int64{finding.KindIndexMismatch: 1})
	if got != "1 finding (1 truncated-batch) and 1 that follows from it (1 index-mismatch)" {
		t.Errorf("counts %q", got)
	}
	if got := FindingCounts(2, byKind, 0, nil); got != "2 findings (1 index-mismatch, 1 truncated-batch)" {
		t.Errorf("counts without followers %q", got)
	}
}
