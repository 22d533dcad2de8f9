package pipeline

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// TestCheckedPartialSegments: a segment whose reading failed part way is
// a segment read, only in part, whether it delivered batches before the
// failure or failed at its first byte (an io-error with the byte where
// reading stopped); one never opened (no position) is not read at all.
func TestCheckedPartialSegments(t *testing.T) {
	pos := int64(0)
	files := []analysis.FileRow{
		{Path: "p-0/00000000000000000000.log", Kind: "log", Status: "ok", Batches: 3},
		{Path: "p-0/00000000000000000003.log", Kind: "log", Status: "unreadable", Batches: 2},
		{Path: "p-1/00000000000000000000.log", Kind: "log", Status: "unreadable"},
		{Path: "p-2/00000000000000000000.log", Kind: "log", Status: "unreadable"},
	}
	findings := []analysis.AnomalyRow{
		{Kind: finding.KindIOError, File: "p-0/00000000000000000003.log", Position: &pos},
		{Kind: finding.KindIOError, File: "p-1/00000000000000000000.log", Position: &pos},
		{Kind: finding.KindIOError, File: "p-2/00000000000000000000.log"},
	}
	c := Checked(files, findings)[0]
	if c.What != "segments" || c.Files != 3 || c.Partial != 2 {
		t.Errorf("checked %+v, want 3 segments, 2 of them read only in part", c)
	}
}
