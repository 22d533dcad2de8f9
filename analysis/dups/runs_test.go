package dups

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// later is a later copy at offset of (topic, partition, pid) repeating
// refOffset of refPID in the same partition.
func later(topic string, part int32, pid int64, offset int64, class string, refPID, refOffset int64) analysis.DuplicateRow {
	return analysis.DuplicateRow{Topic: topic, Partition: part, ProducerID: pid, Offset: offset, Class: class,
		RefTopic: &topic, RefPartition: &part, RefProducerID: &refPID, RefOffset: &refOffset}
}

func TestRunsFormsRuns(t *testing.T) {
	gap := int64(2100)
	broker := int32(3)
	var rows []analysis.DuplicateRow
	// PID 2 resends 0..4 of PID 1 at 10..14, with a marker at 13 (14
	// repeats 3: the step of two is bridged), in reverse order.
	refs := map[int64]int64{15: 4, 14: 3, 12: 2, 11: 1, 10: 0}
	for _, o := range []int64{15, 14, 12, 11, 10} {
		r := later("t", 0, 2, o, ClassRestartResend, 1, refs[o])
		if o == 10 {
			r.GapMillis = &gap
			r.TransactionalID, r.AllocatedByBroker = "app", &broker
			r.Damaged = true
		}
		if o == 12 {
			r.TxnState = "aborted"
		}
		rows = append(rows, r)
	}
	// A first occurrence is not part of any run.
	rows = append(rows, analysis.DuplicateRow{Topic: "t", Offset: 0})
	// 20, 24: three apart, two runs; 30 of another class, its own.
	rows = append(rows, later("t", 0, 3, 20, ClassRepeat, 1, 0), later("t", 0, 3, 23, ClassRepeat, 1, 1),
		later("t", 0, 3, 24, ClassTxnRetry, 1, 2))
	// The same copy twice in a row (ref not advancing) splits too.
	rows = append(rows, later("u", 1, 4, 5, ClassRepeat, 1, 7), later("u", 1, 4, 6, ClassRepeat, 1, 7))

	got := Runs(rows)
	want := []Run{
		{Topic: "t", ProducerID: 2, Class: ClassRestartResend, RefTopic: "t", RefPID: 1, First: 10, Last: 15, RefFirst: 0, RefLast: 4,
			Records: 5, GapMillis: &gap, Damaged: 1, Aborted: 1, TransactionalID: "app", AllocatedByBroker: &broker},
		{Topic: "t", ProducerID: 3, Class: ClassRepeat, RefTopic: "t", RefPID: 1, First: 20, Last: 20, RefFirst: 0, RefLast: 0, Records: 1},
		{Topic: "t", ProducerID: 3, Class: ClassRepeat, RefTopic: "t", RefPID: 1, First: 23, Last: 23, RefFirst: 1, RefLast: 1, Records: 1},
		{Topic: "t", ProducerID: 3, Class: ClassTxnRetry, RefTopic: "t", RefPID: 1, First: 24, Last: 24, RefFirst: 2, RefLast: 2, Records: 1},
		{Topic: "u", Partition: 1, ProducerID: 4, Class: ClassRepeat, RefTopic: "u", RefPart: 1, RefPID: 1, First: 5, Last: 5, RefFirst: 7, RefLast: 7, Records: 1},
		{Topic: "u", Partition: 1, ProducerID: 4, Class: ClassRepeat, RefTopic: "u", RefPart: 1, RefPID: 1, First: 6, Last: 6, RefFirst: 7, RefLast: 7, Records: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("runs:\n got %+v\nwant %+v", got, want)
	}
	if s := got[0].String(); s != "t-0: PID 2 (epoch 0, txn id app, block of broker 3) resent 5 records first written by PID 1 — offsets 10–15 repeat 0–4, 2.1 s after PID 1's last write (1 in damaged batches) (1 aborted) [restart-resend]" {
		t.Errorf("line: %s", s)
	}
}

// randomLater makes n later copies: resends in order (runs of 1 to 40)
// mixed with scattered repeats, over a few topics, partitions and PIDs,
// in random order.
func randomLater(n int, seed uint64) []analysis.DuplicateRow {
	rnd := rand.New(rand.NewPCG(seed, 1))
	var rows []analysis.DuplicateRow
	next := map[string]int64{}
	for len(rows) < n {
		topic := fmt.Sprintf("t%d", rnd.IntN(3))
		part := int32(rnd.IntN(4))
		pid := int64(100 + rnd.IntN(6))
		k := fmt.Sprint(topic, part, pid)
		off := next[k] + int64(rnd.IntN(5))
		ref := int64(rnd.IntN(1 << 20))
		class := []string{ClassRestartResend, ClassTxnRetry, ClassRepeat}[rnd.IntN(3)]
		refPID, input := int64(rnd.IntN(3)), int32(rnd.IntN(2))
		for range 1 + rnd.IntN(40) {
			r := later(topic, part, pid, off, class, refPID, ref)
			r.Input = input
			if rnd.IntN(5) == 0 {
				g := int64(rnd.IntN(10000) - 5000)
				r.GapMillis = &g
			}
			r.Damaged = rnd.IntN(50) == 0
			if rnd.IntN(9) == 0 {
				r.TxnState = "aborted"
			}
			rows = append(rows, r)
			off += 1 + int64(rnd.IntN(2))
			ref += 1 + int64(rnd.IntN(2))
		}
		next[k] = off + 3
	}
	rnd.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

func buildRuns(t *testing.T, rows []analysis.DuplicateRow, tmp string, budget int64, limit int) ([]Run, int, *RunBuilder) {
	t.Helper()
	ctx := context.Background()
	b := NewRunBuilder(tmp, budget)
	for i := range rows {
		if err := b.Add(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	total, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var runs []Run
	err = b.Each(ctx, limit, func(u *Run) error {
		c := *u
		if u.GapMillis != nil { // Each reuses its Run
			g := *u.GapMillis
			c.GapMillis = &g
		}
		runs = append(runs, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return runs, total, b
}

// TestRunBuilderSpillMatchesMemory: sorted on disk in hundreds of runs
// (two merge levels), the runs are those made in memory, in the same
// order; limit takes their head; Close leaves nothing behind.
// (buildRuns' caller closes the builder.)
func TestRunBuilderSpillMatchesMemory(t *testing.T) {
	rows := randomLater(60000, 7)
	want := Runs(rows)
	if len(want) < 1000 || len(want) > 20000 {
		t.Fatalf("%d runs from %d copies: the generator should make both long runs and single copies", len(want), len(rows))
	}
	tmp := t.TempDir()
	got, total, b := buildRuns(t, rows, tmp, 40000, 0)
	defer b.Close()
	if b.later.files <= mergeFanIn {
		t.Fatalf("%d run files: the test means to merge in levels", b.later.files)
	}
	if total != len(want) || !reflect.DeepEqual(got, want) {
		t.Fatalf("spilled: %d runs (total %d), in memory %d; first difference at %d", len(got), total, len(want), firstDiff(got, want))
	}
	if b.SpillBytes() == 0 || b.SpillFiles() == 0 {
		t.Errorf("spill %d bytes in %d files", b.SpillBytes(), b.SpillFiles())
	}
	head, total, b2 := buildRuns(t, rows, tmp, 40000, 25)
	if total != len(want) || !reflect.DeepEqual(head, want[:25]) {
		t.Fatalf("limit 25: %d runs, total %d", len(head), total)
	}
	if err := errors.Join(b.Close(), b2.Close()); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in tmp: %v", left)
	}
}

func firstDiff(a, b []Run) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRunBuilderHeapBounded: 300,000 later copies, the report's share of
// a constant heartbeat, held in about the budget, not 100 bytes apiece.
func TestRunBuilderHeapBounded(t *testing.T) {
	const n = 300000
	row := later("beat", 0, 7, 0, ClassRepeat, 1, 0)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	b := NewRunBuilder(t.TempDir(), 1<<20)
	defer b.Close()
	for i := range n {
		row.Offset = int64(3 * i) // no two in a run
		if err := b.Add(&row); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if grew := int64(ms.HeapAlloc) - int64(base); grew > 4<<20 {
		t.Errorf("heap grew %d bytes for %d copies under a 1 MiB budget", grew, n)
	}
	total, err := b.Finish(context.Background())
	if err != nil || total != n {
		t.Fatalf("%d runs, %v", total, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if grew := int64(ms.HeapAlloc) - int64(base); grew > 4<<20 {
		t.Errorf("heap grew %d bytes with %d runs under a 1 MiB budget", grew, n)
	}
	last := int64(-1)
	count := 0
	err = b.Each(context.Background(), 0, func(u *Run) error {
		if u.First <= last { // all of one record: by offset
			return fmt.Errorf("run at %d after %d", u.First, last)
		}
		last = u.First
		count++
		return nil
	})
	if err != nil || count != n {
		t.Fatalf("%d runs read back, %v", count, err)
	}
}

// runsOracle makes runs the plain way, every copy in one sorted slice: what
// Runs did before RunBuilder, kept as the builder's reference.
func runsOracle(rows []analysis.DuplicateRow) []Run {
	var cs []analysis.DuplicateRow
	for _, r := range rows {
		if r.Class != "" {
			cs = append(cs, r)
		}
	}
	slices.SortStableFunc(cs, func(a, b analysis.DuplicateRow) int {
		return cmp.Or(cmp.Compare(a.Input, b.Input), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition),
			cmp.Compare(a.ProducerID, b.ProducerID), cmp.Compare(a.ProducerEpoch, b.ProducerEpoch), cmp.Compare(a.Offset, b.Offset))
	})
	var runs []Run
	for _, r := range cs {
		ref := *r.RefOffset
		if n := len(runs); n > 0 {
			u := &runs[n-1]
			same := u.Input == r.Input && u.Topic == r.Topic && u.Partition == r.Partition && u.ProducerID == r.ProducerID &&
				u.Epoch == r.ProducerEpoch && u.Class == r.Class && u.RefTopic == *r.RefTopic && u.RefPart == *r.RefPartition &&
				u.RefPID == *r.RefProducerID && u.PIDChange == r.PIDChange
			if same && r.Offset-u.Last <= 2 && ref > u.RefLast-2 && ref-u.RefLast <= 2 && ref != u.RefLast {
				u.Last, u.RefFirst, u.RefLast = r.Offset, min(u.RefFirst, ref), ref
				u.Records++
				u.Damaged += b2i(r.Damaged)
				u.Aborted += b2i(r.TxnState == "aborted")
				continue
			}
		}
		runs = append(runs, Run{Input: r.Input, Topic: r.Topic, Partition: r.Partition, ProducerID: r.ProducerID, Epoch: r.ProducerEpoch,
			Class: r.Class, RefTopic: *r.RefTopic, RefPart: *r.RefPartition, RefPID: *r.RefProducerID, First: r.Offset, Last: r.Offset,
			RefFirst: ref, RefLast: ref, Records: 1, GapMillis: r.GapMillis, Damaged: b2i(r.Damaged), Aborted: b2i(r.TxnState == "aborted"),
			TransactionalID: r.TransactionalID, AllocatedByBroker: r.AllocatedByBroker, RefTransactionalID: r.RefTransactionalID,
			RefAllocatedByBroker: r.RefAllocatedByBroker, PIDChange: r.PIDChange})
	}
	slices.SortStableFunc(runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(b.Records, a.Records), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition),
			cmp.Compare(a.First, b.First), cmp.Compare(a.Input, b.Input))
	})
	return runs
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestRunsMatchOracle(t *testing.T) {
	for seed := range uint64(5) {
		rows := randomLater(5000, seed)
		if got, want := Runs(rows), runsOracle(rows); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: %d runs, oracle %d; first difference at %d", seed, len(got), len(want), firstDiff(got, want))
		}
	}
}

// TestRunTimes: a run carries the timestamps of its first and last copies
// and of the earliest and latest copies they repeat, and its head's note.
func TestRunTimes(t *testing.T) {
	b := NewRunBuilder(t.TempDir(), 1<<20)
	defer b.Close()
	// 10..13 repeat 5, 4, 6, 7 (the earliest repeated is the second's);
	// the third copy's ref time is unknown.
	refs := []int64{5, 4, 6, 7}
	for i := 3; i >= 0; i-- {
		r := later("t", 0, 2, int64(10+i), ClassRestartResend, 1, refs[i])
		ts := int64(1000 + i)
		r.Timestamp = &ts
		var refTs *int64
		if i != 2 {
			v := 500 + refs[i]
			refTs = &v
		}
		if err := b.AddWith(&r, refTs, uint64(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []Run
	b.Each(context.Background(), 0, func(u *Run) error { got = append(got, *u); return nil })
	val := func(p *int64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	if len(got) != 1 || got[0].Note != 100 || got[0].RefFirst != 4 || got[0].RefLast != 7 ||
		val(got[0].Times.First) != int64(1000) || val(got[0].Times.Last) != int64(1003) ||
		val(got[0].Times.RefFirst) != int64(504) || val(got[0].Times.RefLast) != int64(507) {
		t.Fatalf("runs %+v, times %v %v %v %v", got, val(got[0].Times.First), val(got[0].Times.Last), val(got[0].Times.RefFirst), val(got[0].Times.RefLast))
	}
}

// TestRunBuilderTruncatedRun: a run file cut short on disk, even at a
// record boundary, is an error, not fewer runs.
func TestRunBuilderTruncatedRun(t *testing.T) {
	b := NewRunBuilder(t.TempDir(), 4000)
	defer b.Close()
	for _, r := range randomLater(1000, 3) {
		if err := b.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	if len(b.later.runs) < 2 {
		t.Fatalf("%d run files", len(b.later.runs))
	}
	if err := os.Truncate(b.later.runs[1], laterCopyBytes*3); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Finish(context.Background()); err == nil || !strings.Contains(err.Error(), "no longer the") {
		t.Fatalf("Finish: %v", err)
	}
}

// TestRunsKeepDirsApart: one input holding two brokers' dirs of the same
// partition (a tarball of a cluster) has the same offsets twice; each
// dir's resend is one run, not six copies in turn.
func TestRunsKeepDirsApart(t *testing.T) {
	var rows []analysis.DuplicateRow
	for _, dir := range []string{"b1/t-0", "b2/t-0"} {
		for o := int64(30); o < 33; o++ {
			r := later("t", 0, 5, o, ClassRestartResend, 4, o-10)
			r.Dir, r.RefDir = dir, dir
			rows = append(rows, r)
		}
	}
	rows[0], rows[3] = rows[3], rows[0]
	got := Runs(rows)
	if len(got) != 2 || got[0].Records != 3 || got[1].Records != 3 {
		t.Fatalf("runs %+v", got)
	}
}
