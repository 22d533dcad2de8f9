package pipeline_test

import (
	"slices"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

func gap(input int32, first int64, last *int64, cause string) analysis.GapRow {
	return analysis.GapRow{Input: input, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: first, LastOffset: last,
		Cause: cause, Severity: finding.Warning}
}

func at(o int64) *int64 { return &o }

// TestClusterVerdictLostWhereNoCopyHolds: an offset one copy lost is lost
// cluster-wide only where no other copy holds it, and each lost range is
// one set of causes.
func TestClusterVerdictLostWhereNoCopyHolds(t *testing.T) {
	copies := []analysis.Verdict{
		{Input: 0, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 0, LogEndOffset: 50, State: analysis.CopyLost},
		{Input: 1, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 0, LogEndOffset: 30, State: analysis.CopyLost},
	}
	gaps := []analysis.GapRow{
		gap(0, 20, at(39), "truncated-batch"), // copy 1 holds 20..29 of these
		gap(1, 30, at(59), "missing-segment"), // copy 0 holds 40..49 of these
		gap(1, 55, nil, "checkpoint-ahead"),
	}
	cvs := pipeline.ClusterVerdicts(pipeline.ClusterFacts{Copies: copies, Gaps: gaps})
	if len(cvs) != 1 {
		t.Fatalf("%d verdicts", len(cvs))
	}
	cv := cvs[0]
	type rng struct {
		first, last int64
		causes      string
	}
	var got []rng
	for _, l := range cv.LostRanges {
		last := int64(-1)
		if l.LastOffset != nil {
			last = *l.LastOffset
		}
		c := ""
		for _, x := range l.Causes {
			c += x + ";"
		}
		got = append(got, rng{l.FirstOffset, last, c})
	}
	want := []rng{{30, 39, "missing-segment;truncated-batch;"}, {50, 54, "missing-segment;"},
		{55, 59, "checkpoint-ahead;missing-segment;"}, {60, -1, "checkpoint-ahead;"}}
	if !slices.Equal(got, want) {
		t.Errorf("lost ranges\n got %v\nwant %v", got, want)
	}
	if cv.Verdict != analysis.CopyLost || cv.Lost != 20 || !cv.Unbounded {
		t.Errorf("verdict %s, %d lost, unbounded %v: %s", cv.Verdict, cv.Lost, cv.Unbounded, cv.Text)
	}
	if cv.BestCopy == nil || cv.BestCopy.Input != 0 || cv.BestCopy.Held != 30 || cv.Full {
		t.Errorf("best copy %+v, full %v; want input 0 holding 30 of 50", cv.BestCopy, cv.Full)
	}
}

// TestClusterVerdictIntactAndUnread: a copy's loss that another copy
// holds leaves the partition intact; a range only a cut input lacks is
// unread, not lost.
func TestClusterVerdictIntactAndUnread(t *testing.T) {
	copies := []analysis.Verdict{
		{Input: 0, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 0, LogEndOffset: 50, State: analysis.CopyIntact},
		{Input: 1, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 0, LogEndOffset: 40, State: analysis.CopyLost},
	}
	reps := []analysis.ReplicaRow{{Input: 0, Dir: "t-0", Verdict: "reference"}, {Input: 1, Dir: "t-0", Verdict: "lost"}}
	cv := pipeline.ClusterVerdicts(pipeline.ClusterFacts{Copies: copies, Replicas: reps,
		Gaps: []analysis.GapRow{gap(1, 40, at(49), "truncated-batch")}})[0]
	if cv.Verdict != analysis.CopyIntact || len(cv.LostRanges) != 0 || cv.BestCopy.Input != 0 || !cv.Full ||
		cv.Copies[0].State != analysis.CopyReference {
		t.Errorf("intact: %+v", cv)
	}
	cv = pipeline.ClusterVerdicts(pipeline.ClusterFacts{Copies: copies[1:],
		Gaps: []analysis.GapRow{gap(1, 40, at(49), check.CauseUnread)}})[0]
	if cv.Verdict != analysis.CopyUnread || len(cv.LostRanges) != 1 || !cv.LostRanges[0].Unread {
		t.Errorf("unread: %+v", cv)
	}
}

// TestClusterVerdictCitesElections: the partition's unclean election and
// a broker's truncation of it are cited; another partition's, and a clean
// leader change, are not.
func TestClusterVerdictCitesElections(t *testing.T) {
	topic, other := "t", "u"
	p0, p1 := int32(0), int32(1)
	events := []analysis.ClusterEventRow{
		{Topic: &topic, Partition: &p0, Kind: "unclean-election", Details: "t-0: broker 2 elected leader from outside the ISR [1]"},
		{Topic: &topic, Partition: &p0, Kind: "leader-change", Details: "t-0: leader 1 -> 2"},
		{Topic: &topic, Partition: &p0, Kind: "truncation", Details: "truncating t-0 to 40"},
		{Topic: &topic, Partition: &p1, Kind: "unclean-election"},
		{Topic: &other, Partition: &p0, Kind: "unclean-election"},
	}
	copies := []analysis.Verdict{{Input: 0, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 0, LogEndOffset: 50, State: analysis.CopyIntact}}
	cv := pipeline.ClusterVerdicts(pipeline.ClusterFacts{Copies: copies, Events: events})[0]
	if len(cv.Events) != 2 || cv.Events[0].Kind != "unclean-election" || cv.Events[1].Kind != "truncation" {
		t.Errorf("events %+v", cv.Events)
	}
}
