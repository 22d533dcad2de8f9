package analysis_test

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

func row(input int32, kind analysis.FindingKind, file string, pos int64, causedBy string) analysis.AnomalyRow {
	a := analysis.AnomalyRow{Input: input, Kind: kind, File: file, Position: &pos}
	if causedBy != "" {
		a.CausedBy = &causedBy
	}
	return a
}

// TestFoldFindings: followers fold under their cause by kind, each
// counting what it stands for; a cause of another input, or one not in
// the list, folds nothing, and a follower without its cause stands alone.
func TestFoldFindings(t *testing.T) {
	cut := row(1, "truncated-batch", "t-0/0.log", 408, "")
	ref := analysis.FindingRef(&cut)
	if ref != "truncated-batch t-0/0.log@408" {
		t.Errorf("ref %q", ref)
	}
	many := row(1, "index-mismatch", "t-0/0.index", 8, ref)
	n := int64(27)
	many.Omitted = &n
	rows := []analysis.AnomalyRow{
		cut,
		row(1, "index-mismatch", "t-0/0.index", 0, ref),
		many,
		row(1, "snapshot-ahead", "t-0/85.snapshot", 0, ref),
		row(0, "index-mismatch", "t-0/0.index", 0, ref), // input 0 has no such cause
		row(1, "offset-gap", "t-1/0.log", 10, ""),
	}
	got := analysis.FoldFindings(rows)
	if len(got) != 3 {
		t.Fatalf("%d causes, want 3: %+v", len(got), got)
	}
	c := got[0]
	if c.Finding.Kind != "truncated-batch" || c.Followers["index-mismatch"] != 28 || c.Followers["snapshot-ahead"] != 1 || c.Total() != 29 {
		t.Errorf("cause %+v", c)
	}
	if s := c.FollowerText(); s != "+28 index-mismatch, +1 snapshot-ahead" {
		t.Errorf("text %q", s)
	}
	if got[1].Finding.Kind != "offset-gap" || got[1].Total() != 0 || got[2].Finding.Input != 0 || got[2].Total() != 0 {
		t.Errorf("lone findings %+v, %+v", got[1], got[2])
	}
}
