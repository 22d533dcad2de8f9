package dups

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// resendChain feeds d with 60 producer sessions in topic a, each resending
// the last 5 records of the one before and then writing 5 of its own, and
// in topic b a constant value written once by each session: every resend
// is strong, every copy of the constant weak.
func resendChain(t *testing.T, d *Detector) ([][]analysis.DuplicateRow, Stats) {
	t.Helper()
	pa, pb := d.Partition(0, "in", "a", 0, "a-0"), d.Partition(0, "in", "b", 0, "b-0")
	fp := func(topic byte, n int) (f [16]byte) {
		f[0] = topic
		binary.BigEndian.PutUint64(f[8:], uint64(n)*0x9e3779b97f4a7c15)
		return f
	}
	var offA, offB int64
	for s := range 60 {
		pid, ts := int64(1000+s), int64(1_700_000_000_000)+int64(s)*1000
		var es []analysis.RecordEntry
		for i := range 10 {
			n := s*5 + i - 5 // the first five repeat the last five of session s-1
			if s == 0 {
				n = i - 5
			}
			es = append(es, analysis.RecordEntry{Fingerprint: fp('a', n+5), Offset: offA, Timestamp: ts + int64(i), Sequence: int32(i)})
			offA++
		}
		if err := d.AddBatch(pa, pid, 0, false, false, es); err != nil {
			t.Fatal(err)
		}
		if err := d.AddBatch(pb, pid, 0, false, false, []analysis.RecordEntry{{Fingerprint: fp('b', 0), Offset: offB, Timestamp: ts + 20}}); err != nil {
			t.Fatal(err)
		}
		offB++
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

// TestEvidenceBudget: the grades are the same when the records fit in
// memory but the grading's own tape, candidates and chains spill (a
// budget of 64 KiB) as with the default budget, and they are right.
func TestEvidenceBudget(t *testing.T) {
	big, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	want, st := resendChain(t, big)
	tmp := t.TempDir()
	small, err := New(Options{MemBudget: 64 << 10, TmpDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	got, st2 := resendChain(t, small)
	small.Close()
	if small.spill != nil || st2.SpillFiles < 3 || st.SpillFiles != 0 {
		t.Errorf("want the records in memory and the grading spilled: detector spill %v, %d and %d spill files", small.spill != nil, st2.SpillFiles, st.SpillFiles)
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Error("rows differ when the grading spills")
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%d entries left in the spill dir", len(ents))
	}
	grades := map[string]int{}
	for _, g := range want {
		for _, r := range g {
			if r.Class != "" {
				grades[r.Topic+" "+r.Class+" "+r.Evidence]++
			}
		}
	}
	if grades["a restart-resend strong"] != 59*5 || grades["b restart-resend weak"] != 59 || len(grades) != 2 {
		t.Errorf("grades %v, want 295 strong resends in a and 59 weak in b", grades)
	}
}

// TestSeqDist: sequences wrap from the largest int32 to 0.
func TestSeqDist(t *testing.T) {
	for _, c := range []struct {
		a, b int32
		want int64
	}{{0, 5, 5}, {5, 5, 0}, {1<<31 - 2, 1, 3}, {-1, 4, -1}, {4, -1, -1}} {
		if got := seqDist(c.a, c.b); got != c.want {
			t.Errorf("seqDist(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
