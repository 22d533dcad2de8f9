package dups

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
)

// appLog writes what a consume-transform-produce application leaves in
// its output topic "out" (input "in", group "app"):
//   - reprocess: PID 11 writes outputs 0-9 in batches of two, the group
//     committing 4 and 8; it dies; the group's generation 2 begins 3 s
//     later, and PID 12 writes outputs 8 and 9 again, then 10-13, the
//     group committing 10;
//   - rebalance: PIDs 21 and 22 (members a and b) write outputs 100-103
//     and 200-203; a is paused, the group's generation 4 drops it, b
//     writes 104-107, then a writes 104-107 too.
//
// withGroups false leaves the commits and group records out; replicas
// hands them over twice, as two brokers' copies of __consumer_offsets
// read one after the other give them.
//
// A memory budget set adds 200 records of other content to another topic
// first, so that the entries spill.
func appLog(t *testing.T, opts Options, withGroups, replicas bool) []analysis.DuplicateRow {
	t.Helper()
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := d.Partition(0, "in", "out", 0, "out-0")
	var off int64
	seqs := map[int64]int32{}
	batch := func(pid int64, ts int64, contents ...int) {
		t.Helper()
		es := make([]analysis.RecordEntry, len(contents))
		for i, n := range contents {
			es[i] = analysis.RecordEntry{Fingerprint: content(n), Offset: off, Timestamp: ts, Sequence: seqs[pid]}
			off++
			seqs[pid]++
		}
		if err := d.AddBatch(p, pid, 0, false, false, es); err != nil {
			t.Fatal(err)
		}
	}
	var commits []analysis.CommitRow
	var groups []analysis.GroupRow
	commit := func(part int32, o, ts int64) {
		commits = append(commits, analysis.CommitRow{Group: "app", Topic: "in", Partition: part, CommittedOffset: &o, CommitTimestamp: &ts, TxnState: "none"})
	}
	gen := func(g int32, ts int64, members ...string) {
		r := analysis.GroupRow{Group: "app", Generation: &g, CurrentStateTimestamp: &ts}
		for _, m := range members {
			r.Members = append(r.Members, analysis.GroupMemberRow{MemberID: m + "-1", ClientID: m, ClientHost: "/10.0.0.1"})
		}
		groups = append(groups, r)
	}
	if opts.MemBudget > 0 {
		other := d.Partition(0, "in", "other", 0, "other-0")
		for i := range 200 {
			e := []analysis.RecordEntry{{Fingerprint: content(1000 + i), Offset: int64(i), Timestamp: t0 - 9000, Sequence: int32(i)}}
			if err := d.AddBatch(other, 99, 0, false, false, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	gen(1, t0-1000, "first")
	for i := 0; i < 10; i += 2 {
		batch(11, t0+int64(i)*100, i, i+1)
		if i%4 == 2 {
			commit(0, int64(i+2), t0+int64(i)*100+50)
		}
	}
	gen(2, t0+4000, "second")
	batch(12, t0+4500, 8, 9)
	commit(0, 10, t0+4600)
	batch(12, t0+4700, 10, 11, 12, 13)

	u := t0 + 60_000
	gen(3, u-1000, "a", "b")
	batch(21, u, 100, 101, 102, 103)
	commit(1, 4, u+10)
	batch(22, u+100, 200, 201, 202, 203)
	commit(2, 4, u+110)
	gen(4, u+5000, "b")
	batch(22, u+5100, 104, 105, 106, 107)
	commit(1, 8, u+5150)
	batch(21, u+5200, 104, 105, 106, 107)
	gen(5, u+8000, "b", "a")
	switch {
	case replicas:
		d.SetConsumers(slices.Concat(commits, commits), slices.Concat(groups, groups))
	case withGroups:
		d.SetConsumers(commits, groups)
	}
	rows, spilled := finish(t, d)
	if opts.MemBudget > 0 && spilled == 0 {
		t.Error("nothing spilled")
	}
	return rows
}

func classes(rows []analysis.DuplicateRow) []string {
	var out []string
	for i := range rows {
		if rows[i].Class != "" {
			out = append(out, rowKey(&rows[i]))
		}
	}
	slices.Sort(out)
	return out
}

// TestConsumerCauses: the outputs written again after the group's
// restart are a reprocess, those of the member that lost its input a
// rebalance; weak while the link from group to topic is inferred, strong
// once a Pipeline names it; without the groups' records they are what
// the producers alone show, a restart-resend and a repeat.
func TestConsumerCauses(t *testing.T) {
	want := func(rp, rb string) []string {
		return []string{"0@10:" + rp, "0@11:" + rp, "0@28:" + rb, "0@29:" + rb, "0@30:" + rb, "0@31:" + rb}
	}
	for _, c := range []struct {
		name             string
		opts             Options
		groups, replicas bool
		want             []string
	}{
		{"no groups", Options{}, false, false, want("restart-resend/strong", "repeat")},
		{"inferred", Options{}, true, false, want("reprocess/weak", "rebalance/weak")},
		{"checked", Options{Pipelines: []Pipeline{{"app", "in", "out"}}}, true, false, want("reprocess/strong", "rebalance/strong")},
		{"other pipeline", Options{Pipelines: []Pipeline{{"other", "in", "out"}}}, true, false, want("restart-resend/strong", "repeat")},
		{"spilled", Options{MemBudget: 4096, Pipelines: []Pipeline{{"app", "in", "out"}}}, true, false, want("reprocess/strong", "rebalance/strong")},
		{"replicas", Options{Pipelines: []Pipeline{{"app", "in", "out"}}}, true, true, want("reprocess/strong", "rebalance/strong")},
		{"beyond the window", Options{RestartWindow: 2 * time.Second}, true, false, want("repeat", "rebalance/weak")},
		{"beyond the window, checked", Options{RestartWindow: 2 * time.Second, Pipelines: []Pipeline{{"app", "in", "out"}}}, true, false,
			want("reprocess/weak", "rebalance/strong")},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := appLog(t, c.opts, c.groups, c.replicas)
			if got := classes(rows); !slices.Equal(got, c.want) {
				t.Errorf("got %v\nwant %v", got, c.want)
			}
			for i := range rows {
				r := &rows[i]
				switch {
				case r.Class == ClassReprocess && !strings.Contains(r.Explanation, "a reprocess by consumer group app after a crash") ||
					r.Class == ClassReprocess && !strings.Contains(r.Explanation, "in-0 offsets 8 to 9"):
					t.Errorf("reprocess explanation: %s", r.Explanation)
				case r.Class == ClassRebalance && !strings.Contains(r.Explanation, "went from generation 3 to 4, member a leaving"):
					t.Errorf("rebalance explanation: %s", r.Explanation)
				case r.Class == ClassReprocess && r.Evidence == EvidenceWeak && r.EvidenceWhy&WhyInferred == 0 && len(c.opts.Pipelines) == 0:
					t.Errorf("inferred reprocess without WhyInferred: %s", r.EvidenceReasons)
				case r.Class == ClassRepeat && c.groups && !strings.Contains(r.Explanation, "; not a re"):
					t.Errorf("repeat does not say why it is no rebalance: %s", r.Explanation)
				}
			}
		})
	}
}

func TestParsePipeline(t *testing.T) {
	p, err := ParsePipeline("ns:app:in.topic:out-topic")
	if err != nil || p != (Pipeline{"ns:app", "in.topic", "out-topic"}) {
		t.Errorf("got %+v, %v", p, err)
	}
	for _, bad := range []string{"", "a:b", "a::c", ":b:c", "a:b:"} {
		if _, err := ParsePipeline(bad); !errors.Is(err, ErrPipeline) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	if _, err := ParsePipelines([]string{"g:i:o", "x"}); !errors.Is(err, ErrPipeline) || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("ParsePipelines: %v", err)
	}
}

// TestZombieLooksLikeRestart: member a (PID 31) writes outputs 0-3 into
// out-0 and pauses; the group drops it (generation 2) and b (PID 32)
// writes its first records into out-0, outputs 0-3 again, so the
// producers alone show a restart; but a resumes and writes on, into
// out-1. Its group moved its input away while it lived: a rebalance, not
// a reprocess.
func TestZombieLooksLikeRestart(t *testing.T) {
	d, err := New(Options{Pipelines: []Pipeline{{"app", "in", "out"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p0, p1 := d.Partition(0, "in", "out", 0, "out-0"), d.Partition(0, "in", "out", 1, "out-1")
	offs := map[PartID]int64{}
	seqs := map[int64]int32{}
	batch := func(p PartID, pid int64, ts int64, contents ...int) {
		t.Helper()
		var es []analysis.RecordEntry
		for _, n := range contents {
			es = append(es, analysis.RecordEntry{Fingerprint: content(n), Offset: offs[p], Timestamp: ts, Sequence: seqs[pid]})
			offs[p]++
			seqs[pid]++
		}
		if err := d.AddBatch(p, pid, 0, false, false, es); err != nil {
			t.Fatal(err)
		}
	}
	one, two, four := int32(1), int32(2), int64(4)
	at := func(ms int64) *int64 { v := t0 + ms; return &v }
	batch(p0, 31, t0, 0, 1, 2, 3)
	batch(p0, 32, t0+6000, 0, 1, 2, 3)
	batch(p1, 31, t0+7000, 4, 5)
	d.SetConsumers([]analysis.CommitRow{{Group: "app", Topic: "in", Partition: 0, CommittedOffset: &four, CommitTimestamp: at(-100), TxnState: "none"}},
		[]analysis.GroupRow{
			{Group: "app", Generation: &one, CurrentStateTimestamp: at(-1000), Members: []analysis.GroupMemberRow{{MemberID: "a-1", ClientID: "a"}, {MemberID: "b-1", ClientID: "b"}}},
			{Group: "app", Generation: &two, CurrentStateTimestamp: at(5000), Members: []analysis.GroupMemberRow{{MemberID: "b-1", ClientID: "b"}}},
		})
	rows, _ := finish(t, d)
	want := []string{"0@4:rebalance/strong", "0@5:rebalance/strong", "0@6:rebalance/strong", "0@7:rebalance/strong"}
	if got := classes(rows); !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	for i := range rows {
		if rows[i].Class == ClassRebalance && !strings.Contains(rows[i].Explanation, "began 6.0 s after PID 31's last write there, yet PID 31 wrote on elsewhere after the group") {
			t.Errorf("explanation: %s", rows[i].Explanation)
		}
	}
}

// TestReprocessNeedsAJoin: PID 42 writes, after PID 41's last write, what
// 41 wrote after the group's last commit, but the group's only change
// between them is its member leaving (the group empty, no instance come
// back): the producers' restart-resend, no reprocess. A member joining
// at the next generation, within the gap, makes it one.
func TestReprocessNeedsAJoin(t *testing.T) {
	for _, join := range []bool{false, true} {
		d, err := New(Options{Pipelines: []Pipeline{{"app", "in", "out"}}})
		if err != nil {
			t.Fatal(err)
		}
		p := d.Partition(0, "in", "out", 0, "out-0")
		add := func(pid int64, off int64, ts int64, seq int32, contents ...int) {
			var es []analysis.RecordEntry
			for i, n := range contents {
				es = append(es, analysis.RecordEntry{Fingerprint: content(n), Offset: off + int64(i), Timestamp: ts, Sequence: seq + int32(i)})
			}
			if err := d.AddBatch(p, pid, 0, false, false, es); err != nil {
				t.Fatal(err)
			}
		}
		add(41, 0, t0, 0, 1, 2)
		add(42, 2, t0+5000, 0, 1, 2)
		g1, g2, g3, four := int32(1), int32(2), int32(3), int64(4)
		at := func(ms int64) *int64 { v := t0 + ms; return &v }
		groups := []analysis.GroupRow{
			{Group: "app", Generation: &g1, CurrentStateTimestamp: at(-1000), Members: []analysis.GroupMemberRow{{MemberID: "a-1"}}},
			{Group: "app", Generation: &g2, CurrentStateTimestamp: at(2000)},
		}
		if join {
			groups = append(groups, analysis.GroupRow{Group: "app", Generation: &g3, CurrentStateTimestamp: at(4000),
				Members: []analysis.GroupMemberRow{{MemberID: "b-1"}}})
		}
		d.SetConsumers([]analysis.CommitRow{{Group: "app", Topic: "in", Partition: 0, CommittedOffset: &four, CommitTimestamp: at(-100), TxnState: "none"}}, groups)
		rows, _ := finish(t, d)
		d.Close()
		want := []string{"0@2:restart-resend/strong", "0@3:restart-resend/strong"}
		if join {
			want = []string{"0@2:reprocess/weak", "0@3:reprocess/weak"} // no commit after the change shows the group resume
		}
		if got := classes(rows); !slices.Equal(got, want) {
			t.Errorf("join %v: got %v, want %v", join, got, want)
		}
	}
}
