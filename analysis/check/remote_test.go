package check_test

import (
	"fmt"
	"slices"
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

// TestLedgerRemoteHole: a remote segment held between two others is
// missing (deleted by hand, or its copy lost): its offsets are lost, a
// missing segment, and the remote runs above and below it stay
// remote-only.
func TestLedgerRemoteHole(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	if len(p.Segments) < 4 {
		t.Fatalf("codecs-1 has %d segments, want 4 or more", len(p.Segments))
	}
	for _, s := range p.Segments[:3] {
		dropSegment(mfs, s.File)
	}
	b1, b2, b3 := p.Segments[1].BaseOffset, p.Segments[2].BaseOffset, p.Segments[3].BaseOffset
	dir := writeFS(t, mfs, "")
	held := map[string]map[int32][]analysis.OffsetRange{"codecs": {1: {{First: 0, Last: b1 - 1}, {First: b2, Last: b3 - 1}}}}
	rep := runPathsWith(t, check.Options{RemoteHeld: held}, dir)
	var got []string
	for _, g := range gapsOf(rep, "codecs-1") {
		got = append(got, fmt.Sprintf("%s %d..%d", g.Cause, g.FirstOffset, lastOf(g)))
	}
	slices.Sort(got)
	want := []string{fmt.Sprintf("missing-segment %d..%d", b1, b2-1), fmt.Sprintf("remote-only %d..%d", 0, b1-1), fmt.Sprintf("remote-only %d..%d", b2, b3-1)}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("gaps %v, want %v", got, want)
	}
	if v := verdictOf(t, rep, "codecs-1"); v.Intact || v.Lost != b2-b1 {
		t.Errorf("verdict %+v, want %d offsets lost", v, b2-b1)
	}
}
