package check_test

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/producer"
)

// TestRemoteStoreFindings: with a remote store read, each segment the
// metadata holds is checked against it: one there and whole is quiet,
// one without its .log is missing, one damaged or short is damaged, and
// a segment of the store the metadata does not hold is an orphan.
func TestRemoteStoreFindings(t *testing.T) {
	row := func(id string, start, end int64, state string, held bool) analysis.RemoteSegmentRow {
		return analysis.RemoteSegmentRow{Topic: "t", Partition: 0, TopicID: "Fy3GRnlwRH2elChibHkMug", SegmentID: id,
			StartOffset: start, EndOffset: end, State: state, Held: held}
	}
	seg := func(id string, start, first, last int64, damaged int, files ...string) analysis.RemoteStoreSegment {
		s := analysis.RemoteStoreSegment{Input: 1, Dir: "t-0-Fy3GRnlwRH2elChibHkMug", Topic: "t", TopicID: "Fy3GRnlwRH2elChibHkMug",
			SegmentID: id, StartOffset: start, Files: files, First: first, Last: last, Damaged: damaged}
		if len(files) > 0 && files[0] == "log" {
			s.LogFile = s.Dir + "/" + id + ".log"
		}
		return s
	}
	const fin = "COPY_SEGMENT_FINISHED"
	rows := []analysis.RemoteSegmentRow{
		row("whole", 0, 9, fin, true),
		row("nolog", 10, 19, fin, true),
		row("gone", 20, 29, fin, true),
		row("short", 30, 39, fin, true),
		row("broken", 40, 49, fin, true),
		row("deleted", 50, 59, "DELETE_SEGMENT_FINISHED", false),
	}
	store := []analysis.RemoteStoreSegment{
		seg("whole", 0, 0, 9, 0, "log", "index"),
		seg("nolog", 10, -1, -1, 0, "index"),
		seg("short", 30, 30, 35, 0, "log"),
		seg("broken", 40, 40, 49, 1, "log"),
		seg("deleted", 50, 50, 59, 0, "log"),
		seg("unknown", 60, 60, 69, 0, "log"),
	}
	c := check.New(nil, nil, check.Options{NewProducerState: producer.NewProducerState})
	c.AddRemoteStore(store, 1)
	c.AddRemoteSegments(rows)
	got := map[string]finding.Kind{}
	for _, f := range c.Finish().Findings {
		if f.Offset == nil || f.Input != 1 {
			t.Errorf("finding %+v without its offset or on input %d", f, f.Input)
			continue
		}
		got[f.File+" "+string(f.Kind)] = f.Kind
	}
	want := []string{
		"t-0-Fy3GRnlwRH2elChibHkMug/00000000000000000010-nolog.log remote-segment-missing",
		"t-0-Fy3GRnlwRH2elChibHkMug/00000000000000000020-gone.log remote-segment-missing",
		"t-0-Fy3GRnlwRH2elChibHkMug/short.log remote-segment-damaged",
		"t-0-Fy3GRnlwRH2elChibHkMug/broken.log remote-segment-damaged",
		"t-0-Fy3GRnlwRH2elChibHkMug/deleted.log remote-orphan",
		"t-0-Fy3GRnlwRH2elChibHkMug/unknown.log remote-orphan",
	}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			t.Errorf("no finding %q; got %v", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d findings, want %d: %v", len(got), len(want), got)
	}
}
