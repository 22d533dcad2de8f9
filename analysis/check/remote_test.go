package check_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/producer"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
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

// TestLedgerRemoteEndsBeforeLocal: the remote log ends below the first
// local segment (a segment deleted locally before its copy finished, or
// whose copy was lost): exactly the offsets between are lost, a missing
// segment that says so, and the remote run below stays remote-only.
func TestLedgerRemoteEndsBeforeLocal(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	dropSegment(mfs, p.Segments[0].File)
	dropSegment(mfs, p.Segments[1].File)
	b1, b2 := p.Segments[1].BaseOffset, p.Segments[2].BaseOffset
	dir := writeFS(t, mfs, "")
	held := map[string]map[int32][]analysis.OffsetRange{"codecs": {1: {{First: 0, Last: b1 - 1}}}}
	rep := runPathsWith(t, check.Options{RemoteHeld: held}, dir)
	var got []string
	for _, g := range gapsOf(rep, "codecs-1") {
		got = append(got, fmt.Sprintf("%s %d..%d", g.Cause, g.FirstOffset, lastOf(g)))
	}
	slices.Sort(got)
	want := []string{fmt.Sprintf("missing-segment %d..%d", b1, b2-1), fmt.Sprintf("remote-only %d..%d", 0, b1-1)}
	if !slices.Equal(got, want) {
		t.Errorf("gaps %v, want %v", got, want)
	}
	if v := verdictOf(t, rep, "codecs-1"); v.Intact || v.Lost != b2-b1 {
		t.Errorf("verdict %+v, want %d offsets lost", v, b2-b1)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Kind == finding.KindMissingSegment {
			n++
			if !strings.Contains(f.Message, "end of the remote log") {
				t.Errorf("missing-segment %q does not say the remote log ends before the local one", f.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d missing-segment findings, want 1", n)
	}
}

// TestRemoteHoleCausedBy: the hole a remote segment missing from the
// store leaves follows from that segment's remote-segment-missing.
func TestRemoteHoleCausedBy(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	for _, s := range p.Segments[:3] {
		dropSegment(mfs, s.File)
	}
	b1, b2, b3 := p.Segments[1].BaseOffset, p.Segments[2].BaseOffset, p.Segments[3].BaseOffset
	dir := writeFS(t, mfs, "")
	inputs, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	c := check.New(inputs, []string{dir}, check.Options{NewProducerState: producer.NewProducerState})
	row := func(id string, first, last int64) analysis.RemoteSegmentRow {
		return analysis.RemoteSegmentRow{Topic: "codecs", Partition: 1, TopicID: "Fy3GRnlwRH2elChibHkMug", SegmentID: id,
			StartOffset: first, EndOffset: last, State: "COPY_SEGMENT_FINISHED", Held: true}
	}
	seg := func(id string, first, last int64) analysis.RemoteStoreSegment {
		return analysis.RemoteStoreSegment{Input: 0, Dir: "codecs-1-Fy3GRnlwRH2elChibHkMug", Topic: "codecs", Partition: 1,
			TopicID: "Fy3GRnlwRH2elChibHkMug", SegmentID: id, StartOffset: first, Files: []string{"log"}, LogFile: id + ".log", First: first, Last: last}
	}
	scanInto(t, c, inputs)
	c.AddRemoteStore([]analysis.RemoteStoreSegment{seg("AAAAAAAAAAAAAAAAAAAAAA", 0, b1-1), seg("CCCCCCCCCCCCCCCCCCCCCC", b2, b3-1)}, 0)
	c.AddRemoteSegments([]analysis.RemoteSegmentRow{row("AAAAAAAAAAAAAAAAAAAAAA", 0, b1-1), row("BBBBBBBBBBBBBBBBBBBBBB", b1, b2-1),
		row("CCCCCCCCCCCCCCCCCCCCCC", b2, b3-1)})
	res := c.Finish()
	var missing, hole *analysis.AnomalyRow
	for i := range res.Findings {
		switch f := &res.Findings[i]; f.Kind {
		case finding.KindRemoteSegmentMissing:
			missing = f
		case finding.KindMissingSegment:
			hole = f
		}
	}
	if missing == nil || hole == nil {
		t.Fatalf("findings %+v, want a remote-segment-missing and the hole's missing-segment", res.Findings)
	}
	if hole.CausedBy == nil || *hole.CausedBy != analysis.FindingRef(missing) {
		t.Errorf("the hole's caused_by is %v, want %v", hole.CausedBy, analysis.FindingRef(missing))
	}
}

// scanInto feeds the checker a scan of inputs, as the pipeline does.
func scanInto(t *testing.T, c *check.Checker, inputs []*source.Input) {
	t.Helper()
	_, err := scan.Run(context.Background(), inputs, scan.Config{Jobs: 1}, scan.Output{Batches: c.Batches, File: c.File})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRemoteSegmentCutShort: a remote segment whose .log was cut short
// still holds the intact batches it starts with; exactly the offsets past
// the cut are lost, and the hole follows from its remote-segment-damaged.
func TestRemoteSegmentCutShort(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	for _, s := range p.Segments[:2] {
		dropSegment(mfs, s.File)
	}
	b1, b2 := p.Segments[1].BaseOffset, p.Segments[2].BaseOffset
	if b2-b1 < 3 {
		t.Fatalf("segment %d..%d too short to cut", b1, b2-1)
	}
	cut := b1 + (b2-b1)/2 // the last offset left intact
	dir := writeFS(t, mfs, "")
	inputs, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	c := check.New(inputs, []string{dir}, check.Options{NewProducerState: producer.NewProducerState})
	scanInto(t, c, inputs)
	const topicID = "Fy3GRnlwRH2elChibHkMug"
	a, b := "AAAAAAAAAAAAAAAAAAAAAA", "BBBBBBBBBBBBBBBBBBBBBB"
	c.AddRemoteStore([]analysis.RemoteStoreSegment{
		{Topic: "codecs", Partition: 1, TopicID: topicID, SegmentID: a, StartOffset: 0, Files: []string{"log"}, LogFile: a + ".log",
			First: 0, Last: b1 - 1, IntactTo: b1 - 1},
		{Topic: "codecs", Partition: 1, TopicID: topicID, SegmentID: b, StartOffset: b1, Files: []string{"log"}, LogFile: b + ".log",
			First: b1, Last: cut, IntactTo: cut, Damaged: 1},
	}, 0)
	c.AddRemoteSegments([]analysis.RemoteSegmentRow{
		{Topic: "codecs", Partition: 1, TopicID: topicID, SegmentID: a, StartOffset: 0, EndOffset: b1 - 1, Held: true},
		{Topic: "codecs", Partition: 1, TopicID: topicID, SegmentID: b, StartOffset: b1, EndOffset: b2 - 1, Held: true},
	})
	res := c.Finish()
	var got []string
	for _, g := range res.Gaps {
		if g.Topic == "codecs" && g.Partition == 1 {
			got = append(got, fmt.Sprintf("%s %d..%d", g.Cause, g.FirstOffset, lastOf(g)))
		}
	}
	slices.Sort(got)
	want := []string{fmt.Sprintf("missing-segment %d..%d", cut+1, b2-1), fmt.Sprintf("remote-only %d..%d", 0, cut)}
	if !slices.Equal(got, want) {
		t.Errorf("gaps %v, want %v", got, want)
	}
	var damaged, hole *analysis.AnomalyRow
	for i := range res.Findings {
		switch f := &res.Findings[i]; f.Kind {
		case finding.KindRemoteSegmentDamaged:
			damaged = f
		case finding.KindMissingSegment:
			hole = f
		}
	}
	if damaged == nil || hole == nil || damaged.Offset == nil || *damaged.Offset != cut+1 {
		t.Fatalf("findings %+v, want remote-segment-damaged at %d and the hole's missing-segment", res.Findings, cut+1)
	}
	if hole.CausedBy == nil || *hole.CausedBy != analysis.FindingRef(damaged) {
		t.Errorf("the hole's caused_by is %v, want %v", hole.CausedBy, analysis.FindingRef(damaged))
	}
}
