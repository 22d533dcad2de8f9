package dups

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// writer feeds a detector record by record, one session at a time.
type writer struct {
	t    *testing.T
	d    *Detector
	offs map[PartID]int64
	seqs map[[2]int64]int32 // next sequence by PID and partition
}

func newWriter(t *testing.T, d *Detector) *writer {
	return &writer{t: t, d: d, offs: map[PartID]int64{}, seqs: map[[2]int64]int32{}}
}

func content(n int) (f [16]byte) {
	binary.BigEndian.PutUint64(f[:], uint64(n)*0x9e3779b97f4a7c15)
	binary.BigEndian.PutUint64(f[8:], uint64(n))
	return f
}

// write adds the record of content n, written by pid into p at ts.
func (w *writer) write(p PartID, pid int64, n int, ts int64) {
	w.t.Helper()
	k := [2]int64{pid, int64(p)}
	e := analysis.RecordEntry{Fingerprint: content(n), Offset: w.offs[p], Timestamp: ts, Sequence: w.seqs[k]}
	w.offs[p]++
	w.seqs[k]++
	if err := w.d.AddBatch(p, pid, 0, false, false, []analysis.RecordEntry{e}); err != nil {
		w.t.Fatal(err)
	}
}

// finish returns the rows and how many spill files the detector wrote.
func finish(t *testing.T, d *Detector) ([]analysis.DuplicateRow, int) {
	t.Helper()
	var rows []analysis.DuplicateRow
	st, err := d.Finish(context.Background(), func(g []analysis.DuplicateRow) error {
		rows = append(rows, g...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows, st.SpillFiles
}

const t0 = int64(1_700_000_000_000)

// startupRepublish: n sessions that each publish the same three
// records to partition 0 at their start and then write orders to
// partitions 1 and 2 for four minutes; with replay, each also resends
// the last three orders of each partition its predecessor wrote.
func startupRepublish(t *testing.T, opts Options, n int, replay bool) ([]analysis.DuplicateRow, int) {
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ps := []PartID{d.Partition(0, "in", "app", 0, "app-0"), d.Partition(0, "in", "app", 1, "app-1"), d.Partition(0, "in", "app", 2, "app-2")}
	w := newWriter(t, d)
	next := 1000
	var tails [3][]int
	for s := range n {
		pid, start := int64(100+s), t0+int64(s)*6*60_000
		for i := range 3 {
			w.write(ps[0], pid, i, start+int64(i))
		}
		ts := start + 10_000
		if replay {
			for p := 1; p <= 2; p++ {
				for _, n := range tails[p] {
					w.write(ps[p], pid, n, ts)
				}
				tails[p] = nil
			}
		}
		for i := range 30 {
			p := 1 + i%2
			w.write(ps[p], pid, next, ts+int64(i)*8_000)
			tails[p] = append(tails[p], next)
			if len(tails[p]) > 3 {
				tails[p] = tails[p][1:]
			}
			next++
		}
	}
	return finish(t, d)
}

// TestEvidenceStartupRepublish: a startup sequence written again by
// every clean restart is the head of the new session and the tail of the
// old one in its partition, but the old session wrote on elsewhere for
// minutes after it: not in flight at its end, so weak, with the reason.
// Without the bound it would be strong; when the new session also
// replayed the tails of the partitions written later, it is strong.
func TestEvidenceStartupRepublish(t *testing.T) {
	// The grades of the copies in partition 0, the startup sequence.
	grades := func(rows []analysis.DuplicateRow, _ int) (strong, weak int, reasons []string) {
		for _, r := range rows {
			if r.Class != ClassRestartResend || r.Partition != 0 {
				continue
			}
			if r.Evidence == EvidenceStrong {
				strong++
				reasons = append(reasons, r.EvidenceReasons)
				continue
			}
			weak++
			if r.EvidenceWhy&WhyNotInFlight == 0 {
				t.Errorf("@%d weak for %v, not for the session's end: %s", r.Offset, WhyText(r.EvidenceWhy), r.EvidenceReasons)
			}
			reasons = append(reasons, r.EvidenceReasons)
		}
		return strong, weak, reasons
	}
	s, w, reasons := grades(startupRepublish(t, Options{}, 4, false))
	if s != 0 || w != 9 {
		t.Errorf("startup sequence: %d strong, %d weak copies, want 0 and 9", s, w)
	}
	want := "PID 100 wrote for 4m01s more in 2 other partitions after the run's last record: it was not in flight when the session ended"
	if len(reasons) == 0 || reasons[0] != want {
		t.Errorf("reason %q, want %q", reasons, want)
	}
	if s, w, _ := grades(startupRepublish(t, Options{ResendInFlight: -1}, 4, false)); s != 9 || w != 0 {
		t.Errorf("without the in-flight bound: %d strong, %d weak copies, want 9 and 0", s, w)
	}
	s, w, reasons = grades(startupRepublish(t, Options{}, 4, true))
	if s != 9 || w != 0 || !strings.Contains(reasons[0], "PID 101 resent their tails too (a replay)") {
		t.Errorf("with a replay: %d strong, %d weak copies (%q), want 9 strong ones that say why", s, w, reasons)
	}
}

// shutdownMessage: two sessions write a startup record, numbered
// heartbeats and a two-record shutdown message; the second stops after a
// dozen heartbeats, the first after 25.
func shutdownMessage(t *testing.T, opts Options) ([]analysis.DuplicateRow, int) {
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := d.Partition(0, "in", "life", 0, "life-0")
	w := newWriter(t, d)
	for s, beats := range []int{25, 12} {
		pid, ts := int64(200+s), t0+int64(s)*60_000
		w.write(p, pid, 0, ts)
		for i := range beats {
			w.write(p, pid, 1+i, ts+int64(1+i)*1000)
		}
		w.write(p, pid, 500, ts+50_000)
		w.write(p, pid, 501, ts+50_001)
	}
	return finish(t, d)
}

// TestEvidenceShutdownAfterHeartbeats: the repeated shutdown message is
// the earlier session's tail, but thirteen records of the later session
// came before it that copy the earlier session's first records, not the
// ones before its tail: they count, so it is not the head.
func TestEvidenceShutdownAfterHeartbeats(t *testing.T) {
	rows, _ := shutdownMessage(t, Options{})
	n := 0
	for _, r := range rows {
		if r.Class == "" || r.Offset < 41 {
			continue
		}
		n++
		want := "not the head of PID 201's session in life-0: 13 records of its own came before the run there, " +
			"13 of them copies of PID 200's records that this run does not continue"
		if r.Evidence != EvidenceWeak || r.EvidenceWhy != WhyNotHead || r.EvidenceReasons != want {
			t.Errorf("@%d: %s %v %q, want weak, %q", r.Offset, r.Evidence, WhyText(r.EvidenceWhy), r.EvidenceReasons, want)
		}
	}
	if n != 2 {
		t.Errorf("%d copies of the shutdown message, want 2", n)
	}
}

// TestEvidenceResendHole: a resend of 20 records of which one came out
// with other content is two chains; the second is still the head of
// the session: the first chain's copies do not count, only the record
// written in place of the changed one.
func TestEvidenceResendHole(t *testing.T) {
	d, _ := New(Options{})
	defer d.Close()
	p := d.Partition(0, "in", "a", 0, "a-0")
	w := newWriter(t, d)
	for i := range 60 {
		w.write(p, 300, i, t0+int64(i))
	}
	for i := 40; i < 60; i++ {
		n := i
		if i == 45 {
			n = 9999
		}
		w.write(p, 301, n, t0+10_000+int64(i))
	}
	strong := 0
	rows, _ := finish(t, d)
	for _, r := range rows {
		if r.Class != ClassRestartResend || r.Offset < 66 {
			continue
		}
		if r.Evidence != EvidenceStrong {
			t.Errorf("@%d %s: %s", r.Offset, r.Evidence, r.EvidenceReasons)
			continue
		}
		strong++
		if want := "after 1 record of its own (not counting 5 copies of earlier records"; !strings.Contains(r.EvidenceReasons, want) {
			t.Errorf("@%d: %q lacks %q", r.Offset, r.EvidenceReasons, want)
		}
	}
	if strong != 14 {
		t.Errorf("%d strong copies after the hole, want 14", strong)
	}
}

// TestEvidenceSessionBudget: the whole-session facts grade the same at
// a budget that spills every stage of the grading, the chains' facts and
// the second store sessionEnd fills included.
func TestEvidenceSessionBudget(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(Options) ([]analysis.DuplicateRow, int)
	}{
		{"startup", func(o Options) ([]analysis.DuplicateRow, int) { return startupRepublish(t, o, 60, false) }},
		{"replay", func(o Options) ([]analysis.DuplicateRow, int) { return startupRepublish(t, o, 60, true) }},
		{"shutdown", func(o Options) ([]analysis.DuplicateRow, int) { return shutdownMessage(t, o) }},
	} {
		want, _ := c.run(Options{})
		got, files := c.run(Options{MemBudget: 4 << 10, TmpDir: t.TempDir()})
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("%s: rows differ at a 4 KiB budget", c.name)
		}
		if c.name != "shutdown" && files < 6 {
			t.Errorf("%s: %d spill files at a 4 KiB budget, want the grading's stores spilled too", c.name, files)
		}
	}
}

// TestEvidenceTxnRetryAfterOtherWrites: a transaction aborted minutes
// before its session's last write and retried by the next epoch is a
// strong txn-retry still: the end-of-session rule is about what a crash
// leaves in flight, and a retry rests on the abort.
func TestEvidenceTxnRetryAfterOtherWrites(t *testing.T) {
	d, _ := New(Options{})
	defer d.Close()
	p0, p1 := d.Partition(0, "in", "pay", 0, "pay-0"), d.Partition(0, "in", "pay", 1, "pay-1")
	add := func(p PartID, epoch int16, off int64, seq int32, n int, ts int64, txn analysis.TxnState) {
		e := analysis.RecordEntry{Fingerprint: content(n), Offset: off, Timestamp: ts, Sequence: seq, Txn: txn}
		if err := d.AddBatch(p, 400, epoch, false, false, []analysis.RecordEntry{e}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		add(p0, 0, int64(i), int32(i), i, t0+int64(i), analysis.TxnAborted)
	}
	for i := range 30 {
		add(p1, 0, int64(i), int32(i), 100+i, t0+10_000+int64(i)*10_000, analysis.TxnCommitted)
	}
	for i := range 3 {
		add(p0, 1, int64(4+i), int32(i), i, t0+400_000+int64(i), analysis.TxnCommitted)
	}
	rows, _ := finish(t, d)
	n := 0
	for _, r := range rows {
		if r.Class == "" {
			continue
		}
		n++
		if r.Class != ClassTxnRetry || r.Evidence != EvidenceStrong {
			t.Errorf("@%d: %s %s (%s), want a strong txn-retry", r.Offset, r.Class, r.Evidence, r.EvidenceReasons)
		}
	}
	if n != 3 {
		t.Errorf("%d later copies, want 3", n)
	}
}
