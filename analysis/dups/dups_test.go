package dups

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// synth adds n records over 4 partitions of 2 topics, a third of them
// copies of earlier content under another PID, and returns every group.
func synth(t *testing.T, opts Options, n int) ([][]analysis.DuplicateRow, Stats) {
	t.Helper()
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	return synthOn(t, d, n)
}

// synthOn is synth on a detector of the caller's.
func synthOn(t *testing.T, d *Detector, n int) ([][]analysis.DuplicateRow, Stats) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	parts := []PartID{d.Partition(0, "in", "a", 0, "a-0"), d.Partition(0, "in", "a", 1, "a-1"), d.Partition(0, "in", "b", 0, "b-0"), d.Partition(0, "in", "b", 1, "b-1")}
	offs := make([]int64, len(parts))
	var fps [][16]byte
	for i := range n {
		var fp [16]byte
		if len(fps) > 0 && rng.IntN(3) == 0 {
			fp = fps[rng.IntN(len(fps))]
		} else {
			binary.BigEndian.PutUint64(fp[:], rng.Uint64())
			binary.BigEndian.PutUint64(fp[8:], rng.Uint64())
			fps = append(fps, fp)
		}
		p := rng.IntN(len(parts))
		r := Record{Part: parts[p], Offset: offs[p], Timestamp: 1_000_000 + int64(i)*10, ProducerID: int64(100 + i/500),
			Sequence: int32(i % 500), Txn: analysis.TxnState(rng.IntN(3)), Fingerprint: fp}
		offs[p]++
		if err := d.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	var groups [][]analysis.DuplicateRow
	st, err := d.Finish(context.Background(), func(rows []analysis.DuplicateRow) error {
		groups = append(groups, append([]analysis.DuplicateRow(nil), rows...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return groups, st
}

// TestSpillMatchesMemory: a budget of a few KiB forces two spill levels;
// the groups, their ids and every row must equal the in-memory run's.
func TestSpillMatchesMemory(t *testing.T) {
	const n = 10000
	for _, scope := range []Scope{ScopeTopic, ScopePartition, ScopeAll} {
		want, st := synth(t, Options{Scope: scope}, n)
		if st.SpillFiles != 0 || len(want) == 0 {
			t.Fatalf("in-memory run: %+v, %d groups", st, len(want))
		}
		tmp := t.TempDir()
		got, st2 := synth(t, Options{Scope: scope, MemBudget: 8 << 10, TmpDir: tmp}, n)
		if st2.SpillFiles <= fanout {
			t.Errorf("scope %d: %d spill files, want a second level (> %d)", scope, st2.SpillFiles, fanout)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("scope %d: spilled groups differ (%d vs %d groups)", scope, len(want), len(got))
		}
		if st != (Stats{Records: st2.Records, Groups: st2.Groups, Members: st2.Members, Duplicates: st2.Duplicates}) {
			t.Errorf("scope %d: stats %+v vs %+v", scope, st, st2)
		}
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			t.Errorf("%d entries left in the spill dir", len(ents))
		}
	}
}

// TestCancelRemovesSpill: a cancelled Finish still leaves nothing behind
// after Close.
func TestCancelRemovesSpill(t *testing.T) {
	tmp := t.TempDir()
	d, _ := New(Options{MemBudget: 4 << 10, TmpDir: tmp})
	p := d.Partition(0, "in", "a", 0, "a-0")
	for i := range 5000 {
		var fp [16]byte
		binary.BigEndian.PutUint64(fp[:], uint64(i)*0x9e3779b97f4a7c15)
		if err := d.Add(&Record{Part: p, Offset: int64(i), ProducerID: int64(i % 2), Fingerprint: fp}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Finish(ctx, func([]analysis.DuplicateRow) error { return nil }); err == nil {
		t.Error("cancelled Finish returned nil")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%d entries left after Close", len(ents))
	}
}

func TestFmtGap(t *testing.T) {
	for ms, want := range map[int64]string{400: "0.4 s", 2100: "2.1 s", 725_000: "12m05s", 3 * 3_600_000: "3h00m", 60 * 3_600_000: "2.5 days"} {
		if got := fmtGap(ms); got != want {
			t.Errorf("fmtGap(%d) = %q, want %q", ms, got, want)
		}
	}
}

// TestOrderIndependent: the groups do not depend on the order partitions
// are registered and records added (one scan of everything versus the
// tables of several scans merged, dups --from-tables), replicas of one
// record from two sources included.
func TestOrderIndependent(t *testing.T) {
	type part struct {
		source, topic string
		partition     int32
	}
	parts := []part{{"b1", "a", 0}, {"b1", "a", 1}, {"b1", "b", 0}, {"b2", "a", 0}, {"b2", "b", 1}}
	type add struct {
		part int
		r    Record
	}
	rng := rand.New(rand.NewPCG(3, 3))
	var adds []add
	var fps [][16]byte
	for i := range 3000 {
		fp := repeatingFP(rng, &fps)
		p := rng.IntN(3)
		r := Record{Offset: int64(i), Timestamp: 1_000_000 + int64(i/3)*10, ProducerID: int64(100 + i/400), Txn: analysis.TxnState(rng.IntN(3)), Fingerprint: fp}
		adds = append(adds, add{p, r})
		if p == 0 && rng.IntN(2) == 0 { // broker b2's replica of a-0
			adds = append(adds, add{3, r})
		}
	}
	run := func(order []int, regOrder []int, scope Scope) string {
		d, _ := New(Options{Scope: scope})
		defer d.Close()
		ids := make([]PartID, len(parts))
		for _, k := range regOrder {
			p := parts[k]
			ids[k] = d.Partition(int32(k/3), p.source, p.topic, p.partition, p.topic+"-"+string(rune('0'+p.partition)))
		}
		for _, i := range order {
			r := adds[i].r
			r.Part = ids[adds[i].part]
			if err := d.Add(&r); err != nil {
				t.Fatal(err)
			}
		}
		out, _ := finishJSON(t, d)
		return out
	}
	fwd := make([]int, len(adds))
	for i := range fwd {
		fwd[i] = i
	}
	shuffled := append([]int(nil), fwd...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, scope := range []Scope{ScopeTopic, ScopePartition, ScopeAll} {
		want := run(fwd, []int{0, 1, 2, 3, 4}, scope)
		if len(want) < 1000 {
			t.Fatalf("scope %d: too few groups", scope)
		}
		if got := run(shuffled, []int{4, 2, 3, 1, 0}, scope); got != want {
			t.Errorf("scope %d: groups depend on the order of the input", scope)
		}
	}
}

// TestSortRecsMatchesCmp: the radix pass plus bucket sorts give exactly
// the comparison sort's order, with fingerprints crowded into few buckets,
// spread out, and repeated.
func TestSortRecsMatchesCmp(t *testing.T) {
	d, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		d.Partition(int32(i), "src", "orders", int32(i), fmt.Sprintf("orders-%d", i))
	}
	d.rankScopes()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{10, 5000, 100_000} {
		for _, spread := range []int{1, 3, 1 << 16} {
			rs := make([]rec, n)
			for i := range rs {
				binary.BigEndian.PutUint16(rs[i].fp[:], uint16(rng.IntN(spread)))
				rs[i].fp[2] = byte(rng.IntN(4)) // many equal fingerprints
				rs[i].part = uint32(rng.IntN(3))
				rs[i].off = int64(rng.IntN(1000))
				rs[i].ts = int64(rng.IntN(50))
				rs[i].flags = uint8(rng.IntN(8))
			}
			want := slices.Clone(rs)
			slices.SortStableFunc(want, func(a, b rec) int { return d.cmp(&a, &b) })
			d.sortRecs(rs)
			for i := range rs {
				if d.cmp(&rs[i], &want[i]) != 0 {
					t.Fatalf("n=%d spread=%d: entry %d is %+v, want %+v", n, spread, i, rs[i], want[i])
				}
			}
		}
	}
}

// TestReserveWithinBudget: Reserve grows the entry buffer up to the
// memory budget and never past it, keeping what was added.
func TestReserveWithinBudget(t *testing.T) {
	d, err := New(Options{MemBudget: 1000 * memPerRec})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := d.Partition(0, "in", "a", 0, "a-0")
	d.Reserve(10)
	if err := d.Add(&Record{Part: p, Offset: 7, Fingerprint: [16]byte{1}}); err != nil {
		t.Fatal(err)
	}
	if cap(d.buf) != 10 || len(d.buf) != 1 {
		t.Fatalf("Add after Reserve(10): len %d cap %d", len(d.buf), cap(d.buf))
	}
	d.Reserve(20)
	if cap(d.buf) != 21 || len(d.buf) != 1 || d.buf[0].off != 7 {
		t.Fatalf("after Reserve(20): len %d cap %d", len(d.buf), cap(d.buf))
	}
	d.Reserve(1 << 30)
	if cap(d.buf) != 1000 || d.buf[0].off != 7 {
		t.Fatalf("Reserve past the budget: cap %d, want 1000", cap(d.buf))
	}
}

// TestRepeatedKeepsEveryRepeat: the pre-sort filter keeps, in order,
// every entry whose fingerprint occurs twice or more, and drops nearly
// all unique ones.
func TestRepeatedKeepsEveryRepeat(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 50_000
	rs := make([]rec, n)
	count := map[[16]byte]int{}
	for i := range rs {
		if i > 0 && rng.IntN(10) == 0 {
			rs[i].fp = rs[rng.IntN(i)].fp // a repeat
		} else {
			binary.BigEndian.PutUint64(rs[i].fp[:], rng.Uint64())
			binary.BigEndian.PutUint64(rs[i].fp[8:], rng.Uint64())
		}
		rs[i].off = int64(i)
		count[rs[i].fp]++
	}
	var want []int64
	unique := 0
	for i := range rs {
		if count[rs[i].fp] > 1 {
			want = append(want, rs[i].off)
		} else {
			unique++
		}
	}
	got := repeated(slices.Clone(rs))
	var kept []int64
	j := 0
	for _, r := range got {
		if count[r.fp] > 1 {
			kept = append(kept, r.off)
		}
		if j > 0 && r.off <= got[j-1].off {
			t.Fatalf("order not kept at %d", j)
		}
		j++
	}
	if !slices.Equal(kept, want) {
		t.Fatalf("kept %d repeated entries, want %d", len(kept), len(want))
	}
	if extra := len(got) - len(want); extra > unique/5 {
		t.Errorf("%d of %d unique entries kept", extra, unique)
	}
	t.Logf("%d entries: %d repeated kept, %d of %d unique kept", n, len(want), len(got)-len(want), unique)
}

// repeatingFP returns one of the fingerprints in seen a third of the time,
// else a new one, which it adds to seen.
func repeatingFP(rng *rand.Rand, seen *[][16]byte) [16]byte {
	var fp [16]byte
	if len(*seen) > 0 && rng.IntN(3) == 0 {
		return (*seen)[rng.IntN(len(*seen))]
	}
	binary.BigEndian.PutUint64(fp[:], rng.Uint64())
	*seen = append(*seen, fp)
	return fp
}

// finishJSON finishes d and returns its groups, each as a JSON array, one
// after the other.
func finishJSON(t *testing.T, d *Detector) (string, Stats) {
	t.Helper()
	var out []byte
	st, err := d.Finish(context.Background(), func(rows []analysis.DuplicateRow) error {
		b, _ := json.Marshal(rows)
		out = append(out, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(out), st
}

// TestAddBatchEqualsAdd: AddBatch gives exactly the groups, classes and
// stats of Add called per data record, with control entries skipped,
// unknown timestamps, several writers per partition and a budget small
// enough to spill in the middle of a batch.
func TestAddBatchEqualsAdd(t *testing.T) {
	type batch struct {
		part    int
		pid     int64
		epoch   int16
		damaged bool
		es      []analysis.RecordEntry
	}
	rng := rand.New(rand.NewPCG(11, 5))
	var batches []batch
	var fps [][16]byte
	offs := make([]int64, 3)
	ts := int64(1_000_000)
	for i := range 600 {
		b := batch{part: rng.IntN(3), pid: int64(100 + i/40), epoch: int16(i / 200), damaged: rng.IntN(20) == 0}
		for range 1 + rng.IntN(12) {
			fp := repeatingFP(rng, &fps)
			ts += int64(rng.IntN(30_000))
			e := analysis.RecordEntry{Fingerprint: fp, Offset: offs[b.part], Timestamp: ts, Sequence: int32(i), Txn: analysis.TxnState(rng.IntN(4))}
			if rng.IntN(10) == 0 {
				e.Timestamp = -1
			}
			if rng.IntN(15) == 0 {
				e.Control, e.Fingerprint = true, [16]byte{}
			}
			offs[b.part]++
			b.es = append(b.es, e)
		}
		batches = append(batches, b)
	}
	run := func(budget int64, batched bool) (string, Stats) {
		d, err := New(Options{MemBudget: budget, TmpDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		ids := []PartID{d.Partition(0, "in", "a", 0, "a-0"), d.Partition(0, "in", "a", 1, "a-1"), d.Partition(0, "in", "b", 0, "b-0")}
		for _, b := range batches {
			if batched {
				if err := d.AddBatch(ids[b.part], b.pid, b.epoch, b.damaged, false, b.es); err != nil {
					t.Fatal(err)
				}
				continue
			}
			for _, e := range b.es {
				if e.Control {
					continue
				}
				r := Record{Part: ids[b.part], Offset: e.Offset, Timestamp: e.Timestamp, ProducerID: b.pid, Epoch: b.epoch,
					Sequence: e.Sequence, Txn: e.Txn, Damaged: b.damaged, Fingerprint: e.Fingerprint}
				if err := d.Add(&r); err != nil {
					t.Fatal(err)
				}
			}
		}
		return finishJSON(t, d)
	}
	for _, budget := range []int64{0, 4 << 10} {
		want, wst := run(budget, false)
		got, gst := run(budget, true)
		if wst.Groups < 100 || wst.Records < 2000 {
			t.Fatalf("budget %d: %+v: too few records or groups to compare", budget, wst)
		}
		if budget > 0 && gst.SpillFiles == 0 {
			t.Errorf("budget %d: AddBatch never spilled", budget)
		}
		if got != want || gst != wst {
			t.Errorf("budget %d: AddBatch %+v, Add %+v, or their groups differ", budget, gst, wst)
		}
		classes := map[string]bool{}
		var rows []analysis.DuplicateRow
		dec := json.NewDecoder(strings.NewReader(want))
		for dec.More() {
			var g []analysis.DuplicateRow
			if err := dec.Decode(&g); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, g...)
		}
		for _, r := range rows {
			classes[r.Class] = true
		}
		if !classes[ClassRestartResend] || !classes[ClassRepeat] {
			t.Errorf("budget %d: classes %v: the input should give restart-resend and repeat groups", budget, classes)
		}
	}
}

// TestReservedArena: a reserved buffer large enough to live outside the Go
// heap (allocRecs) holds what was added before and after each Reserve, is
// released by Finish, and gives the same groups as a detector that never
// reserved, in memory and when it spills (the spill reuses the buffer).
func TestReservedArena(t *testing.T) {
	const n = 120_000
	for _, budget := range []int64{0, 5 << 20} {
		opts := Options{MemBudget: budget, TmpDir: t.TempDir()}
		want, wst := synth(t, opts, n)
		d, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		p := d.Partition(9, "x", "x", 0, "x-0")
		if err := d.Add(&Record{Part: p, Offset: 1, ProducerID: 1, Fingerprint: [16]byte{9}}); err != nil {
			t.Fatal(err)
		}
		d.Reserve(70_000)
		if err := d.Add(&Record{Part: p, Offset: 2, ProducerID: 2, Fingerprint: [16]byte{9}}); err != nil {
			t.Fatal(err)
		}
		d.Reserve(2 * n)
		if runtime.GOOS == "linux" && d.arena == nil {
			t.Fatalf("budget %d: a %d-record reservation is on the heap", budget, cap(d.buf))
		}
		if len(d.buf) != 2 || d.buf[0].off != 1 || d.buf[1].off != 2 {
			t.Fatalf("budget %d: records added before Reserve lost: %+v", budget, d.buf)
		}
		got, gst := synthOn(t, d, n)
		if d.arena != nil || d.buf != nil {
			t.Errorf("budget %d: Finish kept the buffer", budget)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		// The reserved run has the extra group of the two records above
		// (same content, two producers).
		if gst.Groups != wst.Groups+1 || len(got) != len(want)+1 {
			t.Fatalf("budget %d: %d groups reserved, %d not", budget, gst.Groups, wst.Groups)
		}
		if budget > 0 && gst.SpillFiles == 0 {
			t.Errorf("budget %d: never spilled", budget)
		}
		var extra int
		for _, g := range got {
			if g[0].Topic == "x" {
				extra++
			}
		}
		if extra != 1 {
			t.Errorf("budget %d: %d groups of the records added around Reserve, want 1", budget, extra)
		}
		trim := func(gs [][]analysis.DuplicateRow) []string {
			var out []string
			for _, g := range gs {
				if g[0].Topic == "x" {
					continue
				}
				for _, r := range g {
					out = append(out, fmt.Sprintf("%s/%d@%d %s %d", r.Topic, r.Partition, r.Offset, r.Class, r.Occurrence))
				}
			}
			return out
		}
		if !slices.Equal(trim(got), trim(want)) {
			t.Errorf("budget %d: groups differ from the unreserved run", budget)
		}
	}
}

// TestLargeGroupMatchesMemory: one fingerprint repeated by far more
// records than the budget holds (a constant heartbeat), across topics,
// partitions, replicas, writers and transaction states, among ordinary
// groups. Spilled, splitting cannot divide it: it goes through sorted runs
// and a streamed merge, and its rows, emitted in several parts, must equal
// the in-memory run's in every scope and with --same-pid.
func TestLargeGroupMatchesMemory(t *testing.T) {
	const n = 20000
	run := func(opts Options) ([]analysis.DuplicateRow, []int64, Stats) {
		d, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		rng := rand.New(rand.NewPCG(9, 9))
		parts := []PartID{d.Partition(0, "in", "hb", 0, "hb-0"), d.Partition(0, "in", "hb", 1, "hb-1"), d.Partition(0, "in", "other", 0, "other-0"),
			d.Partition(1, "replica", "hb", 0, "hb-0")} // a second copy of hb-0
		var hot, other [16]byte
		hot[0], other[0] = 0x42, 0x42 // both in the same spill buckets
		other[15] = 1
		offs := make([]int64, 3)
		for i := range n {
			p := rng.IntN(3)
			fp := hot
			switch k := rng.IntN(10); {
			case k == 0:
				fp = other
			case k == 1:
				binary.BigEndian.PutUint64(fp[8:], rng.Uint64()) // unique
			}
			r := Record{Part: parts[p], Offset: offs[p], Timestamp: 1_000_000 + int64(i)*10, ProducerID: int64(100 + i/700),
				Epoch: int16(i / 5000), Sequence: int32(i % 700), Txn: analysis.TxnState(rng.IntN(4)), Damaged: rng.IntN(50) == 0, Fingerprint: fp}
			if i%3000 == 2999 {
				r.ProducerID = -1
			}
			offs[p]++
			if err := d.Add(&r); err != nil {
				t.Fatal(err)
			}
			if p == 0 && rng.IntN(4) == 0 { // the replica holds some of hb-0's records
				r.Part, r.Damaged = parts[3], rng.IntN(3) == 0
				if err := d.Add(&r); err != nil {
					t.Fatal(err)
				}
			}
		}
		var rows []analysis.DuplicateRow
		var emits []int64
		st, err := d.Finish(context.Background(), func(g []analysis.DuplicateRow) error {
			rows = append(rows, g...)
			emits = append(emits, g[0].GroupID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows, emits, st
	}
	for _, opts := range []Options{{Scope: ScopeTopic}, {Scope: ScopePartition}, {Scope: ScopeAll}, {Scope: ScopeTopic, SamePID: true}} {
		want, wantEmits, st := run(opts)
		small := opts
		small.MemBudget, small.TmpDir = 64*memPerRec, t.TempDir()
		got, gotEmits, st2 := run(small)
		if st.SpillFiles != 0 || st2.SortedRuns < 2 {
			t.Fatalf("%+v: spill files %d in memory; %d sorted runs with the small budget", opts, st.SpillFiles, st2.SortedRuns)
		}
		// The large group comes in parts (emitRows rows each), in memory
		// too, under one group id.
		if !slices.Equal(wantEmits, gotEmits) || len(wantEmits) <= int(st.Groups) {
			t.Errorf("%+v: emits by group %v, spilled %v, for %d groups", opts, wantEmits, gotEmits, st.Groups)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("%+v: rows differ (%d vs %d)", opts, len(want), len(got))
		}
		if st.Groups != st2.Groups || st.Members != st2.Members || st.Groups == 0 {
			t.Errorf("%+v: stats %+v vs %+v", opts, st, st2)
		}
		if ents, _ := os.ReadDir(small.TmpDir); len(ents) != 0 {
			t.Errorf("%+v: %d entries left in the spill dir", opts, len(ents))
		}
		t.Logf("%+v: %d groups, %d rows, %d emits, %d sorted runs", opts, st2.Groups, len(got), len(gotEmits), st2.SortedRuns)
	}
}

// TestFirstExplanationNamesFewPIDs: a group written under many PIDs names
// the first few in its first row.
func TestFirstExplanationNamesFewPIDs(t *testing.T) {
	d, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := d.Partition(0, "in", "hb", 0, "hb-0")
	var fp [16]byte
	fp[3] = 9
	for i := range 40 {
		r := Record{Part: p, Offset: int64(i), Timestamp: int64(i) * 1000, ProducerID: int64(1000 + i), Fingerprint: fp}
		if err := d.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	var first string
	if _, err := d.Finish(context.Background(), func(rows []analysis.DuplicateRow) error {
		if rows[0].Occurrence == 1 {
			first = rows[0].Explanation
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(first, "39 later copies by PID 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 1015, 1016 and others") {
		t.Fatalf("first row: %q", first)
	}
}

// TestNoExplanations: without explanations every row is the same, class,
// gap and reference included, and its explanation is empty; with them
// every row has one.
func TestNoExplanations(t *testing.T) {
	full, _ := synth(t, Options{SamePID: true}, 6000)
	terse, _ := synth(t, Options{SamePID: true, NoExplanations: true}, 6000)
	if len(full) != len(terse) || len(full) < 100 {
		t.Fatalf("%d groups, %d without explanations", len(full), len(terse))
	}
	classes := map[string]int{}
	for i := range full {
		if len(full[i]) != len(terse[i]) {
			t.Fatalf("group %d: %d rows, %d without explanations", i, len(full[i]), len(terse[i]))
		}
		for j := range full[i] {
			f, r := full[i][j], terse[i][j]
			if f.Explanation == "" || r.Explanation != "" {
				t.Fatalf("group %d row %d: explanations %q / %q", i, j, f.Explanation, r.Explanation)
			}
			f.Explanation = ""
			a, _ := json.Marshal(f)
			b, _ := json.Marshal(r)
			if string(a) != string(b) {
				t.Fatalf("group %d row %d differs:\n%s\n%s", i, j, a, b)
			}
			classes[f.Class]++
		}
	}
	if classes[ClassRepeat] == 0 || classes[ClassTxnRetry] == 0 || classes[ClassRestartResend] == 0 {
		t.Errorf("classes %v: the test should see every class", classes)
	}
}
