package dups

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/ksleuth/ksleuth/analysis"
)

// causeLog writes, into two partitions, what each cause leaves:
//   - p0: a non-idempotent producer's batches of 5 records, the 3rd and 4th
//     batches retried after 7 records of another writer (retry, strong);
//   - p0: one record retried alone (retry, weak: too few records);
//   - p0: PID -1 sending a batch again with new timestamps (repeat, by
//     the application);
//   - p1: PID 7 writing sequences 0-5, then 3-5 again with the same
//     timestamps (dedup-failure, strong), and sequence 9 again with a
//     new timestamp (dedup-failure, weak);
//   - p1: PID 7 writing a record again under a new sequence (repeat,
//     seen only with SamePID).
func causeLog(t *testing.T, opts Options) []analysis.DuplicateRow {
	t.Helper()
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p0, p1 := d.Partition(0, "in", "t", 0, "t-0"), d.Partition(0, "in", "t", 1, "t-1")
	off := map[PartID]int64{}
	batch := func(p PartID, pid int64, seq int32, ts int64, contents ...int) {
		t.Helper()
		es := make([]analysis.RecordEntry, len(contents))
		for i, n := range contents {
			es[i] = analysis.RecordEntry{Fingerprint: content(n), Offset: off[p], Timestamp: ts + int64(i), Sequence: -1}
			if pid >= 0 {
				es[i].Sequence = seq + int32(i)
			}
			off[p]++
		}
		if err := d.AddBatch(p, pid, 0, false, false, es); err != nil {
			t.Fatal(err)
		}
	}
	for b := range 4 {
		batch(p0, -1, 0, t0+int64(b)*100, b*5, b*5+1, b*5+2, b*5+3, b*5+4) // offsets 0-19
	}
	batch(p0, 99, 0, t0+1000, 900, 901, 902, 903, 904, 905, 906) // 20-26
	batch(p0, -1, 0, t0+200, 10, 11, 12, 13, 14)                 // 27-31: retry of offsets 10-14
	batch(p0, -1, 0, t0+300, 15, 16, 17, 18, 19)                 // 32-36: retry of 15-19
	batch(p0, -1, 0, t0+2000, 50)                                // 37
	batch(p0, 99, 5, t0+2100, 907)                               // 38
	batch(p0, -1, 0, t0+2000, 50)                                // 39: retry of 37, alone
	batch(p0, -1, 0, t0+3000, 60, 61, 62)                        // 40-42
	batch(p0, -1, 0, t0+9000, 60, 61, 62)                        // 43-45: sent again, new timestamps
	batch(p1, 7, 0, t0, 100, 101, 102)                           // 0-2
	batch(p1, 7, 3, t0+100, 103, 104, 105)                       // 3-5
	batch(p1, 7, 3, t0+100, 103, 104, 105)                       // 6-8: the same sequences again
	batch(p1, 7, 6, t0+200, 106, 107, 108, 109)                  // 9-12
	batch(p1, 7, 9, t0+5000, 109)                                // 13: sequence 9 again, later
	batch(p1, 7, 10, t0+6000, 101)                               // 14: content of sequence 1, new sequence
	rows, _ := finish(t, d)
	return rows
}

func rowKey(r *analysis.DuplicateRow) string {
	s := fmt.Sprintf("%d@%d", r.Partition, r.Offset)
	if r.Class != "" {
		s += ":" + r.Class
	}
	if r.Evidence != "" {
		s += "/" + r.Evidence
	}
	return s
}

// TestCauses: retries and dedup failures are grouped without SamePID,
// classed and graded; an application's resend and a repeat within one
// session are not.
func TestCauses(t *testing.T) {
	got := map[string]bool{}
	rows := causeLog(t, Options{})
	for i := range rows {
		got[rowKey(&rows[i])] = true
	}
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf("0@%d", 10+i), fmt.Sprintf("0@%d:retry/strong", 27+i))
	}
	want = append(want, "0@37", "0@39:retry/weak")
	for i := range 3 {
		want = append(want, fmt.Sprintf("1@%d", 3+i), fmt.Sprintf("1@%d:dedup-failure/strong", 6+i))
	}
	want = append(want, "1@12", "1@13:dedup-failure/weak")
	for _, k := range want {
		if !got[k] {
			t.Errorf("no row %s", k)
		}
	}
	if len(rows) != len(want) {
		var all []string
		for i := range rows {
			all = append(all, rowKey(&rows[i]))
		}
		t.Errorf("%d rows, want %d: %s", len(rows), len(want), strings.Join(all, " "))
	}
	for i := range rows {
		r := &rows[i]
		switch {
		case r.Offset == 27 && r.Partition == 0:
			for _, w := range []string{"the same timestamp, 17 offsets later in the same partition",
				"strong evidence: a run of 10 records with the timestamps of their first copies, in their order, 17 offsets later in t-0"} {
				if !strings.Contains(r.Explanation, w) {
					t.Errorf("retry explanation lacks %q: %s", w, r.Explanation)
				}
			}
		case r.Offset == 39 && r.Partition == 0:
			if r.EvidenceWhy != WhyShort || !strings.Contains(r.EvidenceReasons, "a run of one record") {
				t.Errorf("lone retry: %v %q", WhyText(r.EvidenceWhy), r.EvidenceReasons)
			}
		case r.Offset == 6 && r.Partition == 1:
			if !strings.Contains(r.EvidenceReasons, "wrote sequence 3 in t-1 twice, at offsets 3 and 6, with the same timestamp") ||
				!strings.Contains(r.EvidenceReasons, "a broker-side fault") {
				t.Errorf("dedup failure: %q", r.EvidenceReasons)
			}
		case r.Offset == 13 && r.Partition == 1:
			if r.EvidenceWhy != WhyTimestamps || !strings.Contains(r.EvidenceReasons, "the timestamps differ by 4.8 s") {
				t.Errorf("dedup failure with another timestamp: %v %q", WhyText(r.EvidenceWhy), r.EvidenceReasons)
			}
		}
	}
}

// TestCausesRuledOut: with SamePID the application's resend and the
// session's own repeat are reported as repeats, each saying which cause
// it is not and why.
func TestCausesRuledOut(t *testing.T) {
	rows := causeLog(t, Options{SamePID: true})
	want := map[string]string{
		"0@43": "PID -1 (no idempotence) wrote it twice, and not as a retry: with timestamps 6.0 s apart (a retry keeps the producer's",
		"1@14": "the same producer session wrote it twice, under sequences 1 and 10: sent twice by the producer (a broker dedup failure repeats the sequence)",
	}
	for i := range rows {
		r := &rows[i]
		w, ok := want[fmt.Sprintf("%d@%d", r.Partition, r.Offset)]
		if !ok {
			continue
		}
		delete(want, fmt.Sprintf("%d@%d", r.Partition, r.Offset))
		if r.Class != ClassRepeat || !strings.Contains(r.Explanation, w) {
			t.Errorf("%d@%d: %s %q, want a repeat saying %q", r.Partition, r.Offset, r.Class, r.Explanation, w)
		}
	}
	for k := range want {
		t.Errorf("no row %s", k)
	}
}

// retryLog writes n batches of a non-idempotent producer and of PID 7
// into two partitions, a quarter of them retries of one of the last five
// batches, a tenth sent again with new timestamps, and a tenth of PID 7's
// appended twice; it returns the rows and the spill files.
func retryLog(t *testing.T, opts Options, n int) ([]analysis.DuplicateRow, int) {
	t.Helper()
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rng := rand.New(rand.NewPCG(3, 9))
	parts := []PartID{d.Partition(0, "in", "t", 0, "t-0"), d.Partition(0, "in", "t", 1, "t-1")}
	type sent struct {
		p        int
		pid      int64
		seq      int32
		ts       int64
		contents []int
	}
	var last []sent
	off := make([]int64, len(parts))
	var seq int32
	write := func(b sent) {
		es := make([]analysis.RecordEntry, len(b.contents))
		for i, c := range b.contents {
			es[i] = analysis.RecordEntry{Fingerprint: content(c), Offset: off[b.p], Timestamp: b.ts + int64(i), Sequence: -1}
			if b.pid >= 0 {
				es[i].Sequence = b.seq + int32(i)
			}
			off[b.p]++
		}
		if err := d.AddBatch(parts[b.p], b.pid, 0, false, false, es); err != nil {
			t.Fatal(err)
		}
	}
	next := 0
	for i := range n {
		switch k := rng.IntN(20); {
		case k < 5 && len(last) > 0:
			write(last[rng.IntN(len(last))])
			continue
		case k < 7 && len(last) > 0:
			b := last[rng.IntN(len(last))]
			b.ts += 5000
			write(b)
			continue
		}
		b := sent{p: rng.IntN(2), pid: -1, ts: t0 + int64(i)*10}
		if rng.IntN(3) == 0 {
			b.pid, b.seq = 7, seq
		}
		for range 1 + rng.IntN(5) {
			b.contents = append(b.contents, next)
			next++
		}
		if b.pid >= 0 {
			seq += int32(len(b.contents))
		}
		write(b)
		if last = append(last, b); len(last) > 5 {
			last = last[1:]
		}
	}
	return finish(t, d)
}

// TestCausesSpillMatchesMemory: the causes come out the same at every
// budget, the grouping and the retries' runs spilled to disk.
func TestCausesSpillMatchesMemory(t *testing.T) {
	const n = 4000
	rows, files := retryLog(t, Options{}, n)
	classes := map[string]int{}
	for i := range rows {
		classes[rows[i].Class+"/"+rows[i].Evidence]++
	}
	if files != 0 || classes["retry/strong"] == 0 || classes["retry/weak"] == 0 || classes["dedup-failure/strong"] == 0 {
		t.Fatalf("in-memory run: %d spill files, classes %v", files, classes)
	}
	want, _ := json.Marshal(rows)
	for _, budget := range []int64{4 << 10, 9 << 10} {
		rows, files := retryLog(t, Options{MemBudget: budget, TmpDir: t.TempDir()}, n)
		if files <= fanout {
			t.Errorf("--mem %d: %d spill files, want a second level", budget, files)
		}
		if got, _ := json.Marshal(rows); string(got) != string(want) {
			t.Errorf("--mem %d: rows differ from the in-memory run", budget)
		}
	}
	mem, _ := json.Marshal(causeLog(t, Options{}))
	if small, _ := json.Marshal(causeLog(t, Options{MemBudget: 4 << 10, TmpDir: t.TempDir()})); string(small) != string(mem) {
		t.Error("the cause log differs at 4 KiB")
	}
}

// TestRetryDistance: copies further after their first than the bound
// are weak, and no bound makes them strong.
func TestRetryDistance(t *testing.T) {
	for _, c := range []struct {
		dist int64
		want string
	}{{10, EvidenceWeak}, {-1, EvidenceStrong}, {0, EvidenceStrong}} {
		rows := causeLog(t, Options{RetryDistance: c.dist})
		for i := range rows {
			if r := &rows[i]; r.Class == ClassRetry && r.Offset == 27 && r.Evidence != c.want {
				t.Errorf("distance %d: %s (%s), want %s", c.dist, r.Evidence, r.EvidenceReasons, c.want)
			}
		}
	}
}

// TestRecSize: the batch position fits in the entry's padding, so an
// entry costs what it did.
func TestRecSize(t *testing.T) {
	if n := unsafe.Sizeof(rec{}); n != recordBytes {
		t.Errorf("a rec takes %d bytes, want %d", n, recordBytes)
	}
}
