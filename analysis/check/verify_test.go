package check_test

import (
	"encoding/binary"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ksleuth/ksleuth/analysis/finding"

	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/snapshot"
)

// generated writes a log dir with segtest and the index, txnindex and
// snapshot files a broker writes beside it, and loads it into a MapFS that
// the crafted cases can damage.
func generated(t *testing.T, seed int64) fstest.MapFS {
	t.Helper()
	dir := t.TempDir()
	m, err := segtest.GenerateLogDir(dir, seed, segtest.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := segtest.WriteState(dir, m, segtest.StateOptions{IndexIntervalBytes: 256}); err != nil {
		t.Fatal(err)
	}
	mfs, err := segtest.LoadFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

func TestGeneratedVerifiesClean(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 42} {
		mfs := generated(t, seed)
		// The state files really were written: indexes with entries, a
		// txnindex with the two aborted transactions, snapshots.
		if n := len(mfs["txn-0/00000000000000000000.txnindex"].Data); n != 2*34 {
			t.Fatalf("seed %d: txnindex has %d bytes, want 2 entries", seed, n)
		}
		if len(mfs["codecs-0/00000000000000000000.index"].Data) == 0 || len(mfs["txn-0/00000000000000000028.snapshot"].Data) <= snapshot.HeaderSize {
			t.Fatalf("seed %d: no index entries or empty snapshot", seed)
		}
		rep := verifyFS(t, mfs)
		if c := counting(rep); len(c) > 0 {
			t.Fatalf("seed %d: generated log dir has findings: %v", seed, c)
		}
		// The only note: the compacted partition's gaps between batches.
		for _, f := range rep.Findings {
			if f.Kind != finding.KindOffsetGap || !strings.HasPrefix(f.File, "compacted-0/") {
				t.Errorf("seed %d: unexpected note %s: %s", seed, f.File, f)
			}
		}
		if rep.Stats.Batches < 150 || rep.Stats.Segments < 10 {
			t.Errorf("seed %d: stats %+v", seed, rep.Stats)
		}
	}
}

// want asserts that the report holds a finding of kind in file at the
// byte position (or, for pos -1, at any position) and offset (-2: any).
func want(t *testing.T, rep *Report, kind finding.Kind, file string, pos, off int64, msgPart string) Finding {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Kind == kind && f.File == file && (pos < 0 || f.Position == pos) && (off == -2 || f.Offset == off) && strings.Contains(f.Message, msgPart) {
			return f
		}
	}
	t.Fatalf("no %s finding in %s at byte %d offset %d containing %q; got:\n%s", kind, file, pos, off, msgPart, dumpFindings(rep))
	return Finding{}
}

func dumpFindings(rep *Report) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		b.WriteString(f.File + ": " + f.String() + "\n")
	}
	return b.String()
}

func flipByte(data []byte, at int) []byte {
	c := append([]byte(nil), data...)
	c[at] ^= 0x55
	return c
}

func TestSnapshotCRCBroken(t *testing.T) {
	mfs := generated(t, 1)
	name := "txn-0/00000000000000000028.snapshot"
	mfs[name].Data = flipByte(mfs[name].Data, 20)
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindSnapshotCRC, name, 2, -1, "crc mismatch")
	if f.Severity != finding.Error {
		t.Errorf("severity %s", f.Severity)
	}
	// A snapshot the broker would delete is not compared with the log.
	for _, f := range rep.Findings {
		if f.Kind == finding.KindSnapshotMismatch {
			t.Errorf("broken snapshot was compared: %s", f)
		}
	}
}

// rewriteSnapshot decodes a snapshot, lets edit change the entries and
// writes it back with a correct CRC.
func rewriteSnapshot(t *testing.T, mfs fstest.MapFS, name string, edit func([]snapshot.Entry) []snapshot.Entry) {
	t.Helper()
	f, err := snapshot.Parse(mfs[name].Data)
	if err != nil {
		t.Fatal(err)
	}
	mfs[name].Data = snapshot.Encode(edit(f.Entries))
}

func TestSnapshotEntryDiffersFromLog(t *testing.T) {
	mfs := generated(t, 1)
	name := "txn-0/00000000000000000028.snapshot"
	rewriteSnapshot(t, mfs, name, func(es []snapshot.Entry) []snapshot.Entry {
		es[1].LastSequence += 7         // producer 2001
		es[1].CoordinatorEpoch = 9      // and its coordinator epoch
		es[0].CurrentTxnFirstOffset = 3 // producer 2000 with a txn the log closed
		return es
	})
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindSnapshotMismatch, name, snapshot.HeaderSize+snapshot.EntrySize, -2, "lastSequence is 12 in the snapshot but 5 in the log")
	if f.ProducerID != 2001 || f.Severity != finding.Error {
		t.Errorf("finding %+v", f)
	}
	want(t, rep, finding.KindSnapshotMismatch, name, snapshot.HeaderSize+snapshot.EntrySize, -2, "coordinatorEpoch is 9 in the snapshot but 5")
	want(t, rep, finding.KindSnapshotMismatch, name, snapshot.HeaderSize, -2, "currentTxnFirstOffset is 3 in the snapshot but -1")
	if n := len(counting(rep)); n != 3 {
		t.Errorf("%d findings, want 3:\n%s", n, dumpFindings(rep))
	}
}

func TestSnapshotExtraAndMissingProducers(t *testing.T) {
	mfs := generated(t, 1)
	name := "idempotent-0/00000000000000000085.snapshot"
	rewriteSnapshot(t, mfs, name, func(es []snapshot.Entry) []snapshot.Entry {
		// Drop producer 3000, add 4242 that never wrote here.
		out := []snapshot.Entry{{ProducerID: 4242, Epoch: 0, LastSequence: 9, LastOffset: 80, OffsetDelta: 0, Timestamp: 1, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1}}
		for _, e := range es {
			if e.ProducerID != 3000 {
				out = append(out, e)
			}
		}
		return out
	})
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindSnapshotMismatch, name, snapshot.HeaderSize, 80, "extra producer 4242")
	if f.Severity != finding.Error || f.ProducerID != 4242 {
		t.Errorf("extra: %+v", f)
	}
	m := want(t, rep, finding.KindSnapshotMismatch, name, -1, -2, "missing producer 3000")
	if m.Severity != finding.Warning || !strings.Contains(m.Message, "producer.id.expiration.ms") {
		t.Errorf("missing: %+v", m)
	}
}

// A snapshot entry whose last batch lies before the first segment on disk
// (deleted by retention) is not verifiable, not "extra".
func TestSnapshotProducerBeforeLogStart(t *testing.T) {
	mfs := generated(t, 1)
	delete(mfs, "idempotent-0/00000000000000000000.log")
	delete(mfs, "idempotent-0/00000000000000000000.index")
	delete(mfs, "idempotent-0/00000000000000000000.timeindex")
	retainTo(t, mfs, "idempotent-0", 70) // as retention leaves it
	name := "idempotent-0/00000000000000000085.snapshot"
	rewriteSnapshot(t, mfs, name, func(es []snapshot.Entry) []snapshot.Entry {
		return append(es, snapshot.Entry{ProducerID: 77, LastSequence: 3, LastOffset: 40, Timestamp: 5, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1})
	})
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindNotVerifiable, name, -1, 40, "data before log start")
	if f.Severity != finding.Note {
		t.Errorf("%+v", f)
	}
	if c := counting(rep); len(c) > 0 {
		t.Errorf("findings: %v", c)
	}
}

func TestIndexEntryPointsMidBatch(t *testing.T) {
	mfs := generated(t, 1)
	name := "codecs-0/00000000000000000000.index"
	d := append([]byte(nil), mfs[name].Data...)
	pos := binary.BigEndian.Uint32(d[8+4:])
	binary.BigEndian.PutUint32(d[8+4:], pos+7) // entry 1
	mfs[name].Data = d
	rep := verifyFS(t, mfs)
	want(t, rep, finding.KindIndexMismatch, name, 8, -2, "not to a batch start")
}

func TestIndexOffsetNotABatchEnd(t *testing.T) {
	mfs := generated(t, 1)
	name := "codecs-0/00000000000000000000.index"
	d := append([]byte(nil), mfs[name].Data...)
	rel := binary.BigEndian.Uint32(d[0:])
	binary.BigEndian.PutUint32(d[0:], rel-1) // entry 0, keeping the order
	mfs[name].Data = d
	rep := verifyFS(t, mfs)
	want(t, rep, finding.KindIndexMismatch, name, 0, int64(rel-1), "no later batch ends at")
}

func TestTimeIndexOutOfOrder(t *testing.T) {
	mfs := generated(t, 1)
	name := "codecs-0/00000000000000000000.timeindex"
	d := append([]byte(nil), mfs[name].Data...)
	if len(d) < 36 {
		t.Fatalf("time index has %d bytes", len(d))
	}
	// Swap entries 1 and 2: entry 2 now goes back in time.
	e1 := append([]byte(nil), d[12:24]...)
	copy(d[12:24], d[24:36])
	copy(d[24:36], e1)
	mfs[name].Data = d
	rep := verifyFS(t, mfs)
	want(t, rep, finding.KindIndexFormat, name, 24, -1, "out of order")
}

func TestTimeIndexTimestampMismatch(t *testing.T) {
	mfs := generated(t, 1)
	name := "txn-0/00000000000000000000.timeindex"
	d := append([]byte(nil), mfs[name].Data...)
	ts := binary.BigEndian.Uint64(d[0:])
	binary.BigEndian.PutUint64(d[0:], ts-1)
	mfs[name].Data = d
	rep := verifyFS(t, mfs)
	want(t, rep, finding.KindIndexMismatch, name, 0, -2, "max timestamp")
}

func TestTxnIndexRangeWithoutAbortMarker(t *testing.T) {
	mfs := generated(t, 1)
	name := "txn-0/00000000000000000000.txnindex"
	d := append([]byte(nil), mfs[name].Data...)
	// Entry 0 (producer 2001, aborted at 14): claim the abort was at 12,
	// a data batch of producer 2000's.
	binary.BigEndian.PutUint64(d[18:], 12)
	mfs[name].Data = d
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindTxnIndexMismatch, name, 0, 12, "no transaction marker at that offset")
	if f.ProducerID != 2001 || f.Severity != finding.Error {
		t.Errorf("%+v", f)
	}
	// The real ABORT at 14 is now not indexed.
	want(t, rep, finding.KindTxnIndexMismatch, "txn-0/00000000000000000000.log", -1, 14, "is not in 00000000000000000000.txnindex")
}

func TestTxnIndexMissing(t *testing.T) {
	mfs := generated(t, 1)
	delete(mfs, "txn-0/00000000000000000000.txnindex")
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindTxnIndexMismatch, "txn-0/00000000000000000000.log", -1, 23, "the segment has no .txnindex")
	if f.Severity != finding.Warning {
		t.Errorf("%+v", f)
	}
}

func renameSegment(mfs fstest.MapFS, dir string, from, to int64) {
	for _, ext := range []string{".log", ".index", ".timeindex", ".txnindex", ".snapshot"} {
		old := dir + "/" + prefix(from) + ext
		if f, ok := mfs[old]; ok {
			delete(mfs, old)
			mfs[dir+"/"+prefix(to)+ext] = f
		}
	}
}

func prefix(off int64) string { return strings.TrimSuffix(segtest.SegmentFileName(off), ".log") }

func TestSegmentNameAfterFirstBatch(t *testing.T) {
	mfs := generated(t, 1)
	renameSegment(mfs, "codecs-0", 68, 70)
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindNameMismatch, "codecs-0/00000000000000000070.log", 0, 68, "below the offset 70")
	if f.Severity != finding.Error {
		t.Errorf("%+v", f)
	}
}

// A first batch above the name offset is what compaction and retention
// leave: not a finding.
func TestSegmentNameBelowFirstBatchIsFine(t *testing.T) {
	mfs := generated(t, 1)
	renameSegment(mfs, "codecs-0", 68, 60) // segment 0 ends at 67
	rep := verifyFS(t, mfs)
	for _, f := range counting(rep) {
		if f.Kind == finding.KindNameMismatch {
			t.Errorf("flagged: %s", f)
		}
	}
	want(t, rep, finding.KindSegmentOverlap, "codecs-0/00000000000000000060.log", 0, 60, "already hold offsets up to 67")
}

func TestOverlappingSegments(t *testing.T) {
	mfs := generated(t, 1)
	// A second copy of segment 0's data under a later name: its batches
	// repeat offsets 0..67.
	mfs["codecs-0/00000000000000000200.log"] = &fstest.MapFile{Data: mfs["codecs-0/00000000000000000000.log"].Data}
	rep := verifyFS(t, mfs)
	want(t, rep, finding.KindOffsetRegression, "codecs-0/00000000000000000200.log", 0, 0, "offsets already seen (up to 84)")
	want(t, rep, finding.KindNameMismatch, "codecs-0/00000000000000000200.log", 0, 0, "below the offset 200")
}

func TestOffsetRegressionInsideSegment(t *testing.T) {
	mfs := generated(t, 1)
	name := "txn-0/00000000000000000000.log"
	d := mfs[name].Data
	mfs[name].Data = append(append([]byte(nil), d...), d...)
	rep := verifyFS(t, mfs)
	want(t, rep, finding.KindOffsetRegression, name, int64(len(d)), 0, "already seen")
}

func TestBatchCRCMismatch(t *testing.T) {
	mfs := generated(t, 1)
	name := "idempotent-1/00000000000000000000.log"
	mfs[name].Data = flipByte(mfs[name].Data, 70)
	rep := verifyFS(t, mfs)
	want(t, rep, "crc-mismatch", name, 0, -2, "crc mismatch")
}

func setCheckpoint(t *testing.T, mfs fstest.MapFS, name, topicPart string, off string) int {
	t.Helper()
	lines := strings.Split(string(mfs[name].Data), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, topicPart+" ") {
			lines[i] = topicPart + " " + off
			mfs[name].Data = []byte(strings.Join(lines, "\n"))
			return i + 1
		}
	}
	t.Fatalf("%s not in %s", topicPart, name)
	return 0
}

func TestCheckpointAheadOfLog(t *testing.T) {
	mfs := generated(t, 1)
	line := setCheckpoint(t, mfs, "replication-offset-checkpoint", "txn 0", "40")
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindCheckpointAhead, "replication-offset-checkpoint", -1, 40, "ahead of the data on disk, which ends at 28")
	if f.Line != line || f.Severity != finding.Warning {
		t.Errorf("%+v (want line %d)", f, line)
	}
}

func TestLogStartAheadOfFirstOffset(t *testing.T) {
	mfs := generated(t, 1)
	// The broker lists only logs that start past their first segment, so
	// the generated checkpoint is empty; DeleteRecords up to 5 adds this.
	mfs["log-start-offset-checkpoint"].Data = []byte("0\n1\ntxn 0 5\n")
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindLogStartAhead, "log-start-offset-checkpoint", -1, 5, "DeleteRecords")
	if f.Severity != finding.Note {
		t.Errorf("%+v", f)
	}
}

func TestMissingSegmentBesideIndex(t *testing.T) {
	mfs := generated(t, 1)
	delete(mfs, "codecs-0/00000000000000000068.log")
	rep := verifyFS(t, mfs)
	want(t, rep, finding.KindMissingSegment, "codecs-0/00000000000000000068.index", -1, 68, "not copied or was lost")
	// The snapshot at the old log end is now beyond the data.
	want(t, rep, finding.KindSnapshotAhead, "codecs-0/00000000000000000085.snapshot", -1, 85, "log ends at 68")
}
