package check_test

import (
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// TestLedgerRemoteOnly: the oldest segments of a tiered partition, gone
// from the log dir but held in remote storage by the metadata's account,
// are remote-only notes, and the copy is intact; a hole in the remote
// segments below them is still a missing segment.
func TestLedgerRemoteOnly(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	dropSegment(mfs, p.Segments[0].File)
	dropSegment(mfs, p.Segments[1].File)
	b1, b2 := p.Segments[1].BaseOffset, p.Segments[2].BaseOffset
	dir := writeFS(t, mfs, "")

	held := map[string]map[int32][]analysis.OffsetRange{"codecs": {1: {{First: 0, Last: b1 - 1}, {First: b1, Last: b2 - 1}}}}
	rep := runPathsWith(t, check.Options{RemoteHeld: held}, dir)
	gs := gapsOf(rep, "codecs-1")
	if len(gs) != 1 || gs[0].Cause != check.CauseRemoteOnly || gs[0].Severity != finding.Note || gs[0].FirstOffset != 0 || lastOf(gs[0]) != b2-1 {
		t.Fatalf("gaps %+v, want one remote-only note 0..%d", gs, b2-1)
	}
	v := verdictOf(t, rep, "codecs-1")
	if !v.Intact || v.Lost != 0 || !strings.Contains(v.Text, "remote-only: offsets 0..") {
		t.Errorf("verdict %+v, want intact with the remote-only offsets", v)
	}
	for _, f := range rep.Findings {
		if f.Kind == finding.KindMissingSegment {
			t.Errorf("finding %v on offsets remote storage holds", f)
		}
	}

	// Remote storage lacks the first segment: a hole below the remote run.
	held = map[string]map[int32][]analysis.OffsetRange{"codecs": {1: {{First: b1, Last: b2 - 1}}}}
	rep = runPathsWith(t, check.Options{RemoteHeld: held}, dir)
	byCause := map[string]analysis.GapRow{}
	for _, g := range gapsOf(rep, "codecs-1") {
		byCause[g.Cause] = g
	}
	if g, ok := byCause[check.CauseRemoteOnly]; !ok || g.FirstOffset != b1 || lastOf(g) != b2-1 {
		t.Errorf("remote-only gap %+v, want %d..%d", g, b1, b2-1)
	}
	if g, ok := byCause[check.CauseMissingSegment]; !ok || g.FirstOffset != 0 || lastOf(g) != b1-1 || !finding.Counts(g.Severity) {
		t.Errorf("missing-segment gap %+v, want 0..%d counted", g, b1-1)
	}
	if v := verdictOf(t, rep, "codecs-1"); v.Intact || v.Lost != b1 {
		t.Errorf("verdict %+v, want %d offsets lost", v, b1)
	}
}
