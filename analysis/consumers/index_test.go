package consumers

import (
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// commit builds a commit row of group g for orders-0 at log offset at.
func commit(g string, off, ts, at int64) analysis.CommitRow {
	return analysis.CommitRow{Group: g, Topic: "orders", Partition: 0, CommittedOffset: &off,
		CommitTimestamp: &ts, Offset: at, TxnState: "none"}
}

func tombstone(g string, at int64) analysis.CommitRow {
	return analysis.CommitRow{Group: g, Topic: "orders", Partition: 0, Tombstone: true, Offset: at, TxnState: "none"}
}

func firstPast(x *Index, off int64) map[string]int64 {
	out := map[string]int64{}
	for _, c := range x.ConsumedPast(0, "", "orders", 0, off) {
		out[c.Group] = c.Commit.Offset
	}
	return out
}

// TestConsumedPast: Kafka's committed offset is the next offset to read,
// so a group consumed offset o when it committed an offset above o; the
// first such commit in time order is the evidence.
func TestConsumedPast(t *testing.T) {
	rows := []analysis.CommitRow{
		commit("billing", 10, 1000, 0),
		commit("billing", 20, 2000, 1),
		commit("audit", 15, 1500, 2),
		tombstone("audit", 3),
	}
	x := NewIndex(rows, nil)
	for _, c := range []struct {
		off  int64
		want map[string]int64
	}{
		{9, map[string]int64{"billing": 10, "audit": 15}},
		// A commit of exactly 10 means 10 is the next to read: not consumed.
		{10, map[string]int64{"billing": 20, "audit": 15}},
		{14, map[string]int64{"billing": 20, "audit": 15}},
		{15, map[string]int64{"billing": 20}},
		{19, map[string]int64{"billing": 20}},
		{20, map[string]int64{}},
	} {
		if got := firstPast(x, c.off); !mapsEqual(got, c.want) {
			t.Errorf("offset %d: %v, want %v", c.off, got, c.want)
		}
	}
	// A tombstone deletes the offset but not the evidence before it.
	var audit *Timeline
	for _, tl := range x.Timelines() {
		if tl.Group == "audit" {
			audit = tl
		}
	}
	if audit == nil || audit.Tombstones != 1 || len(audit.Commits) != 1 {
		t.Fatalf("audit timeline: %+v", audit)
	}
	if got := x.ConsumedPast(0, "", "orders", 1, 0); len(got) != 0 {
		t.Errorf("another partition: %v", got)
	}
	if got := x.ConsumedPast(0, "", "payments", 0, 0); len(got) != 0 {
		t.Errorf("another topic: %v", got)
	}
}

// TestConsumedPastReset: a group that went back (an offset reset) still
// consumed what it committed past before; the first crossing in time is
// the one reported, and the reset is counted.
func TestConsumedPastReset(t *testing.T) {
	rows := []analysis.CommitRow{
		commit("g", 50, 1000, 0),
		commit("g", 5, 2000, 1), // reset to 5
		commit("g", 30, 3000, 2),
		commit("g", 60, 4000, 3),
	}
	x := NewIndex(rows, nil)
	tl := x.Timelines()[0]
	if tl.Resets != 1 {
		t.Errorf("resets %d, want 1", tl.Resets)
	}
	if c, ok := tl.First(20); !ok || c.Offset != 50 || c.Time != 1000 {
		t.Errorf("First(20) = %+v %v, want the commit of 50 at 1000", c, ok)
	}
	if c, ok := tl.First(55); !ok || c.Offset != 60 || c.Time != 4000 {
		t.Errorf("First(55) = %+v %v, want the commit of 60", c, ok)
	}
}

// TestCommitOrderAndCopies: commits are ordered by commit timestamp
// whatever order they are read in, and one record read from two brokers'
// copies of a __consumer_offsets partition counts once.
func TestCommitOrderAndCopies(t *testing.T) {
	a, b := commit("g", 20, 2000, 8), commit("g", 10, 1000, 7)
	b2 := b
	b2.Input = 1 // the same record, another broker's copy
	x := NewIndex([]analysis.CommitRow{a, b, b2}, nil)
	tl := x.Timelines()[0]
	if len(tl.Commits) != 2 || tl.Commits[0].Offset != 10 || tl.Commits[1].Offset != 20 || tl.Resets != 0 {
		t.Fatalf("commits %+v resets %d", tl.Commits, tl.Resets)
	}
	if c, _ := tl.First(5); c.Offset != 10 {
		t.Errorf("First(5) = %+v", c)
	}
}

// TestTransactionalCommits: an aborted or still open transactional
// offset commit was never applied to the group.
func TestTransactionalCommits(t *testing.T) {
	ab, op, ok := commit("g", 100, 1000, 0), commit("g", 200, 2000, 1), commit("g", 50, 3000, 2)
	ab.TxnState, op.TxnState, ok.TxnState = "aborted", "open", "committed"
	x := NewIndex([]analysis.CommitRow{ab, op, ok}, nil)
	if got := firstPast(x, 60); len(got) != 0 {
		t.Errorf("offset 60 consumed by %v: only aborted and open commits pass it", got)
	}
	if got := firstPast(x, 49); got["g"] != 50 {
		t.Errorf("offset 49: %v, want g's committed commit of 50", got)
	}
	if tl := x.Timelines()[0]; tl.Skipped != 2 {
		t.Errorf("skipped %d, want 2", tl.Skipped)
	}
}

// A commit of a damaged batch is not evidence: a flipped bit can raise
// its offset or rename its group.
func TestDamagedCommits(t *testing.T) {
	bad, good := commit("g", 900, 1000, 0), commit("g", 50, 2000, 1)
	bad.Damaged = true
	x := NewIndex([]analysis.CommitRow{bad, good}, nil)
	if got := firstPast(x, 60); len(got) != 0 {
		t.Errorf("offset 60 consumed by %v: only a damaged commit passes it", got)
	}
	if got := firstPast(x, 49); got["g"] != 50 {
		t.Errorf("offset 49: %v, want g's intact commit of 50", got)
	}
	if tl := x.Timelines()[0]; tl.Damaged != 1 || len(tl.Commits) != 1 {
		t.Errorf("damaged %d, commits %+v; want 1 damaged and the intact commit", tl.Damaged, tl.Commits)
	}
}

func TestText(t *testing.T) {
	x := NewIndex([]analysis.CommitRow{
		commit("billing", 1234, 1714533247000, 0), // 2024-05-01T03:14:07Z
		commit("audit", 1201, 1714533000000, 1),
	}, nil)
	if got, want := x.Text(0, "", "orders", 0, 1200, 1210), "consumed by group billing (committed 1234 at 2024-05-01T03:14:07Z); partly consumed by group audit (committed 1201 at 2024-05-01T03:10:00Z)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := x.Text(0, "", "orders", 0, 1234, 1234); got != "" {
		t.Errorf("offset 1234: %q, want nothing (1234 is the next to read)", got)
	}
	var nilIndex *Index
	if nilIndex.Text(0, "", "orders", 0, 1, 2) != "" || nilIndex.ConsumedPast(0, "", "orders", 0, 1) != nil || !nilIndex.Empty() {
		t.Error("a nil index says something")
	}
	if g := Groups(x.ConsumedPast(0, "", "orders", 0, 1200)); !slices.Equal(g, []string{"audit", "billing"}) {
		t.Errorf("groups %v, want sorted by name", g)
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestImpacts: a group is listed under a flagged range when it committed
// past its first offset, complete when past its last; ranges repeated by
// another input's copy of the partition count once.
func TestImpacts(t *testing.T) {
	dup := func(in int32, off int64, class string) analysis.DuplicateRow {
		return analysis.DuplicateRow{Input: in, Topic: "orders", Partition: 0, Offset: off, Class: class}
	}
	runs := (*Index)(nil).DuplicateRanges([]analysis.DuplicateRow{
		dup(0, 1, ""), dup(0, 5, "restart-resend"), dup(0, 6, "restart-resend"), dup(0, 9, "restart-resend"),
		dup(1, 5, "restart-resend"), dup(1, 6, "restart-resend"), // broker 2's copy
	})
	if len(runs) != 2 || runs[0].First != 5 || runs[0].Last != 6 || runs[0].Records != 2 || runs[1].First != 9 {
		t.Fatalf("ranges %+v", runs)
	}
	x := NewIndex([]analysis.CommitRow{commit("billing", 7, 1000, 0), commit("audit", 6, 1000, 1), commit("late", 5, 1000, 2)}, nil)
	got := x.Impacts(runs)
	if len(got) != 2 {
		t.Fatalf("impacts %+v", got)
	}
	if a := got[0]; a.Group != "audit" || a.Complete || a.Commit.Offset != 6 {
		t.Errorf("audit: %+v, want partly (6 passes 5, not 6)", a)
	}
	if b := got[1]; b.Group != "billing" || !b.Complete || b.Commit.Offset != 7 {
		t.Errorf("billing: %+v, want complete", b)
	}
	last := int64(19)
	gaps := (*Index)(nil).GapRanges([]analysis.GapRow{{Topic: "orders", FirstOffset: 13, LastOffset: &last, Cause: "missing-segment"}, {Topic: "orders", FirstOffset: 30, Cause: "truncated-batch"}})
	if len(gaps) != 2 || gaps[0].Records != 7 || gaps[1].Last != 30 {
		t.Errorf("gaps %+v", gaps)
	}
	end := int64(12)
	ab := (*Index)(nil).AbortedRanges([]analysis.PartitionTxnRow{{Topic: "orders", FirstOffset: 10, EndOffset: &end, EndMarker: "ABORT", Records: 2, ProducerID: 2000},
		{Topic: "orders", FirstOffset: 20, EndOffset: &end, EndMarker: "COMMIT"}, {Topic: "orders", FirstOffset: 25, EndOffset: &end, EndMarker: "ABORT", Empty: true}})
	if len(ab) != 1 || ab[0].First != 10 || ab[0].Last != 12 || ab[0].Detail != "PID 2000 epoch 0" {
		t.Errorf("aborted %+v", ab)
	}
}

// TestClusters: two clusters' topics of one name are not one topic. Truth:
// inputs 0 and 1 are cluster c1, input 2 is c2, input 3 unknown; group
// billing committed 100 in c1 (read from input 1's __consumer_offsets),
// group audit 200 in c2. Offset 50 of input 0's orders-0 was consumed by
// billing only, of input 2's by audit only, and of input 3's by both,
// which cannot be told apart; the two groups' timelines name their
// clusters.
func TestClusters(t *testing.T) {
	cluster := func(in int32, _ string) string { return map[int32]string{0: "c1", 1: "c1", 2: "c2"}[in] }
	billing, audit := commit("billing", 100, 1000, 0), commit("audit", 200, 1000, 1)
	billing.Input, audit.Input = 1, 2
	x := NewIndex([]analysis.CommitRow{billing, audit}, cluster)
	for in, want := range map[int32]string{0: "billing", 1: "billing", 2: "audit", 3: "audit,billing"} {
		var got []string
		for _, c := range x.ConsumedPast(in, "", "orders", 0, 50) {
			got = append(got, c.Group)
		}
		slices.Sort(got)
		if strings.Join(got, ",") != want {
			t.Errorf("input %d: consumed by %v, want %s", in, got, want)
		}
		im := x.Impacts([]Flagged{{What: FlaggedGap, Input: in, Topic: "orders", Partition: 0, First: 40, Last: 60}})
		if len(im) != strings.Count(want, ",")+1 {
			t.Errorf("input %d: %d impacts %+v, want groups %s", in, len(im), im, want)
		}
	}
	var clusters []string
	for _, tl := range x.Timelines() {
		clusters = append(clusters, tl.Group+"@"+tl.Cluster)
	}
	if strings.Join(clusters, " ") != "audit@c2 billing@c1" {
		t.Errorf("timelines %v", clusters)
	}
}

// TestImpactsDivergenceEpochs: broker 1 wrote offsets 100–149 in leader
// epoch 3, which the replica that led epoch 4 from offset 100 never held.
// A commit's leader epoch is that of the last record the group consumed.
// Truth: "old" committed 120 in epoch 3, so it read lost records 100–119
// (partly: never past 149 in epoch 3; its later commit 200 is of epoch 4);
// "new" committed 130 and 200 in epoch 4 only and read epoch 4's records
// at those offsets, not the lost ones; "plain" names no epoch (value v1)
// and still counts, as nothing says which history it read.
func TestImpactsDivergenceEpochs(t *testing.T) {
	at := func(c analysis.CommitRow, epoch int32) analysis.CommitRow {
		c.LeaderEpoch = &epoch
		return c
	}
	x := NewIndex([]analysis.CommitRow{
		at(commit("old", 120, 1000, 0), 3), at(commit("old", 200, 2000, 3), 4),
		at(commit("new", 130, 1500, 1), 4), at(commit("new", 200, 2500, 4), 4),
		commit("plain", 150, 1800, 2),
	}, nil)
	last, re := int64(149), int32(4)
	gaps := (*Index)(nil).GapRanges([]analysis.GapRow{{Topic: "orders", FirstOffset: 100, LastOffset: &last, Cause: "replica-divergence", ReferenceEpoch: &re}})
	got := map[string]Impact{}
	for _, im := range x.Impacts(gaps) {
		got[im.Group] = im
	}
	if _, ok := got["new"]; ok || len(got) != 2 {
		t.Fatalf("impacts %+v, want old and plain only", got)
	}
	if o := got["old"]; o.Complete || o.Commit.Offset != 120 || o.Commit.Epoch != 3 {
		t.Errorf("old: %+v, want partly, by the epoch-3 commit of 120", o)
	}
	if p := got["plain"]; !p.Complete || p.Commit.Offset != 150 || p.Commit.Epoch != -1 {
		t.Errorf("plain: %+v, want complete, epoch unknown", p)
	}
	// Without the epoch (another cause), every commit past the start counts.
	gaps[0].ReferenceEpoch = nil
	if n := len(x.Impacts(gaps)); n != 3 {
		t.Errorf("%d impacts without a reference epoch, want 3", n)
	}
}

// TestClustersPerLogDir: one input (an archive) holds the log dirs of two
// clusters, c1-1 and c1-4 of c1 and c2-2 of c2, and old-3 of none. Truth:
// billing committed 100 in c1's __consumer_offsets, audit 200 in c2's.
// Offset 50 of c1's orders-0 was consumed by billing only, of c2's by
// audit only, of old-3's by either; one gap in both clusters' orders-0 is
// two flagged ranges, one in both of c1's brokers' copies is one.
func TestClustersPerLogDir(t *testing.T) {
	cluster := func(_ int32, dir string) string {
		return map[string]string{"c1-1": "c1", "c1-4": "c1", "c2-2": "c2"}[strings.SplitN(dir, "/", 2)[0]]
	}
	billing, audit := commit("billing", 100, 1000, 0), commit("audit", 200, 1000, 1)
	billing.File, audit.File = "c1-1/__consumer_offsets-0/00000000000000000000.log", "c2-2/__consumer_offsets-7/00000000000000000000.log"
	x := NewIndex([]analysis.CommitRow{billing, audit}, cluster)
	for dir, want := range map[string]string{"c1-1/orders-0": "billing", "c1-4/orders-0": "billing", "c2-2/orders-0": "audit", "old-3/orders-0": "audit,billing"} {
		var got []string
		for _, c := range x.ConsumedPast(0, dir, "orders", 0, 50) {
			got = append(got, c.Group)
		}
		slices.Sort(got)
		if strings.Join(got, ",") != want {
			t.Errorf("%s: consumed by %v, want %s", dir, got, want)
		}
	}
	last := int64(60)
	gap := func(dir string) analysis.GapRow {
		return analysis.GapRow{Dir: dir, Topic: "orders", FirstOffset: 40, LastOffset: &last, Cause: "missing-segment"}
	}
	gaps := x.GapRanges([]analysis.GapRow{gap("c1-1/orders-0"), gap("c1-4/orders-0"), gap("c2-2/orders-0")})
	if len(gaps) != 2 || gaps[0].Dir != "c1-1/orders-0" || gaps[1].Dir != "c2-2/orders-0" {
		t.Fatalf("gap ranges %+v, want c1's once and c2's", gaps)
	}
	var impacts []string
	for _, im := range x.Impacts(gaps) {
		impacts = append(impacts, im.Group+"@"+im.Dir)
	}
	if strings.Join(impacts, " ") != "billing@c1-1/orders-0 audit@c2-2/orders-0" {
		t.Errorf("impacts %v", impacts)
	}
}
