package recovery

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/snapshot"
)

func fileRow(p string, size int64) analysis.FileRow {
	topic, part := "orders", int32(0)
	n := snapshot.ParseName(p[strings.LastIndexByte(p, '/')+1:])
	return analysis.FileRow{Path: p, Topic: &topic, Partition: &part, Kind: n.Kind.String(), Suffix: n.Suffix, Size: size}
}

// segment adds n whole batches of 10 offsets and 100 bytes each to s
// for the segment at base; bad marks the batch index whose CRC fails.
func segment(s *Simulator, base int64, n, bad int) (string, int64) {
	name := fmt.Sprintf("orders-0/%020d.log", base)
	for i := range n {
		s.Batch(&analysis.BatchRow{Segment: name, Position: int64(i) * 100, SizeBytes: 100, BaseOffset: base + int64(i)*10,
			LastOffset: base + int64(i)*10 + 9, CRCValid: i != bad, Magic: 2})
	}
	return name, int64(n) * 100
}

type checkpoints map[snapshot.Kind]int64

func (c checkpoints) get(kind snapshot.Kind, _ int32, logDir, topic string, part int32) (int64, bool) {
	v, ok := c[kind]
	return v, ok && logDir == "." && topic == "orders" && part == 0
}

func actions(p Partition) string {
	var out []string
	for _, a := range p.Actions {
		s := a.Action + " " + a.File[strings.LastIndexByte(a.File, '/')+1:]
		if a.Action == ActTruncate {
			s += fmt.Sprintf(" to %d (%d bytes)", a.Offset, a.Bytes)
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// Three segments, an unclean start with the recovery point in the second:
// the second and third are recovered; the second has a torn tail (30
// bytes past its last whole batch), so it is truncated there and the third
// is deleted. Snapshots past the second segment's base go; a stray one
// below it goes; the .deleted and .cleaned leftovers and an orphaned
// index go.
func TestUncleanTornTail(t *testing.T) {
	s := New()
	l0, n0 := segment(s, 0, 5, -1)
	l1, n1 := segment(s, 50, 4, -1)
	l2, n2 := segment(s, 90, 3, -1)
	files := []analysis.FileRow{
		{Path: "recovery-point-offset-checkpoint", Kind: "recovery-point-offset-checkpoint"},
		fileRow(l0, n0), fileRow("orders-0/00000000000000000000.index", 8), fileRow("orders-0/00000000000000000000.timeindex", 12),
		fileRow(l1, n1+30), fileRow("orders-0/00000000000000000050.index", 8), fileRow("orders-0/00000000000000000050.timeindex", 12),
		fileRow(l2, n2), fileRow("orders-0/00000000000000000090.index", 8), fileRow("orders-0/00000000000000000090.timeindex", 12),
		fileRow("orders-0/00000000000000000020.snapshot", 50), // stray, below the last base: deleted
		fileRow("orders-0/00000000000000000050.snapshot", 50), // at the recovered segment's base: kept
		fileRow("orders-0/00000000000000000090.snapshot", 50), // past it: deleted
		fileRow("orders-0/00000000000000000000.log.deleted", 10),
		fileRow("orders-0/00000000000000000030.log.cleaned", 10),
		fileRow("orders-0/00000000000000000777.index", 8),
	}
	ps := s.Finish(Inputs{Files: files, Checkpoint: checkpoints{snapshot.KindRecoveryPointCheckpoint: 60,
		snapshot.KindReplicationCheckpoint: 200}.get})
	if len(ps) != 1 {
		t.Fatalf("%d partitions", len(ps))
	}
	p := ps[0]
	got := actions(p)
	want := "delete 00000000000000000000.log.deleted; delete 00000000000000000030.log.cleaned; delete 00000000000000000777.index; " +
		"recover-segment 00000000000000000050.log; truncate 00000000000000000050.log to 90 (30 bytes); " +
		"delete 00000000000000000090.log; delete-snapshot 00000000000000000090.snapshot; delete-snapshot 00000000000000000020.snapshot"
	if got != want {
		t.Errorf("actions:\n got %s\nwant %s", got, want)
	}
	if p.Clean || p.RecoveryPoint != 60 || p.LogStartOffset != 0 || p.LogEndOffset != 90 || p.HighWatermark != 90 {
		t.Errorf("state after: %+v", p)
	}
	if fmt.Sprint(p.Segments) != "[0 50]" || fmt.Sprint(p.Snapshots) != "[50]" {
		t.Errorf("segments %v, snapshots %v", p.Segments, p.Snapshots)
	}
}

// A clean start recovers nothing past the sanity checks: a CRC-damaged
// batch stays, the log end counts it, a missing .timeindex is created
// empty, and a snapshot past the log end is deleted.
func TestCleanStart(t *testing.T) {
	s := New()
	l0, n0 := segment(s, 0, 5, 4)
	files := []analysis.FileRow{
		{Path: ".kafka_cleanshutdown", Kind: "clean-shutdown"},
		fileRow(l0, n0), fileRow("orders-0/00000000000000000000.index", 8),
		fileRow("orders-0/00000000000000000050.snapshot", 50),
		fileRow("orders-0/00000000000000000070.snapshot", 50),
	}
	p := s.Finish(Inputs{Files: files, Checkpoint: checkpoints{snapshot.KindReplicationCheckpoint: 20}.get})[0]
	want := "create-index 00000000000000000000.timeindex; delete-snapshot 00000000000000000050.snapshot; delete-snapshot 00000000000000000070.snapshot"
	if got := actions(p); got != want {
		t.Errorf("actions:\n got %s\nwant %s", got, want)
	}
	if !p.Clean || p.LogEndOffset != 50 || p.HighWatermark != 20 {
		t.Errorf("state after: %+v", p)
	}
}

// The first segment lacks its .index under a clean start: the sanity
// check recovers it, and its CRC-damaged last batch is cut.
func TestCleanStartMissingIndex(t *testing.T) {
	s := New()
	l0, n0 := segment(s, 0, 5, 4)
	files := []analysis.FileRow{{Path: ".kafka_cleanshutdown", Kind: "clean-shutdown"}, fileRow(l0, n0), fileRow("orders-0/00000000000000000000.timeindex", 12)}
	p := s.Finish(Inputs{Files: files})[0]
	want := "recover-segment 00000000000000000000.log; truncate 00000000000000000000.log to 40 (100 bytes)"
	if got := actions(p); got != want {
		t.Errorf("actions:\n got %s\nwant %s", got, want)
	}
	if p.LogEndOffset != 40 || p.HighWatermark != 0 {
		t.Errorf("state after: %+v", p)
	}
}

// A valid .swap replaces the segments it covers and is renamed; one at
// or above a .cleaned offset is deleted.
func TestSwap(t *testing.T) {
	s := New()
	l0, n0 := segment(s, 0, 2, -1)
	l1, n1 := segment(s, 20, 2, -1)
	// The swap holds 0..39 (compacted), replacing both.
	for i := range 2 {
		s.Batch(&analysis.BatchRow{Segment: "orders-0/00000000000000000000.log.swap", Position: int64(i) * 100, SizeBytes: 100,
			BaseOffset: int64(i) * 20, LastOffset: int64(i)*20 + 19, CRCValid: true, Magic: 2})
	}
	files := []analysis.FileRow{{Path: ".kafka_cleanshutdown", Kind: "clean-shutdown"},
		fileRow(l0, n0), fileRow("orders-0/00000000000000000000.index", 8), fileRow("orders-0/00000000000000000000.timeindex", 12),
		fileRow(l1, n1), fileRow("orders-0/00000000000000000020.index", 8), fileRow("orders-0/00000000000000000020.timeindex", 12),
		fileRow("orders-0/00000000000000000000.log.swap", 200),
		fileRow("orders-0/00000000000000000040.log.swap", 10),
		fileRow("orders-0/00000000000000000040.log.cleaned", 10),
	}
	p := s.Finish(Inputs{Files: files})[0]
	got := actions(p)
	for _, w := range []string{"delete 00000000000000000040.log.swap", "delete 00000000000000000040.log.cleaned",
		"delete 00000000000000000000.log;", "delete 00000000000000000020.log;", "rename 00000000000000000000.log.swap",
		"recover-segment 00000000000000000000.log.swap"} {
		if !strings.Contains(got+";", w) {
			t.Errorf("no %q in %s", w, got)
		}
	}
	if fmt.Sprint(p.Segments) != "[0]" || p.LogEndOffset != 40 {
		t.Errorf("segments %v, log end %d", p.Segments, p.LogEndOffset)
	}
}

// A segment recovered for its missing .index rebuilds producer state from
// its base: every snapshot past it goes, even under a clean start.
func TestMissingIndexDropsLaterSnapshots(t *testing.T) {
	s := New()
	l0, n0 := segment(s, 0, 2, -1)
	l1, n1 := segment(s, 20, 2, -1)
	files := []analysis.FileRow{{Path: ".kafka_cleanshutdown", Kind: "clean-shutdown"},
		fileRow(l0, n0), fileRow("orders-0/00000000000000000000.timeindex", 12),
		fileRow(l1, n1), fileRow("orders-0/00000000000000000020.index", 8), fileRow("orders-0/00000000000000000020.timeindex", 12),
		fileRow("orders-0/00000000000000000020.snapshot", 50), fileRow("orders-0/00000000000000000040.snapshot", 50)}
	p := s.Finish(Inputs{Files: files})[0]
	want := "recover-segment 00000000000000000000.log; delete-snapshot 00000000000000000020.snapshot; delete-snapshot 00000000000000000040.snapshot"
	if got := actions(p); got != want {
		t.Errorf("actions:\n got %s\nwant %s", got, want)
	}
}

// A clean start over an active segment cut below the byte its offset
// index's last entry names: the broker recovers nothing, finds no batch
// there (LogSegment.readNextOffset) and takes the segment's base offset
// as the log end, deleting the producer snapshots past it (issue #42,
// item 5). The same copy with the cut above that byte keeps the batches.
func TestCleanStartIndexPastCut(t *testing.T) {
	for _, tc := range []struct {
		indexPos      int64
		indexOff      int64
		leo           int64
		reset         bool
		wantSnapshots string
	}{{indexPos: 700, indexOff: 119, leo: 50, reset: true, wantSnapshots: "[]"}, {indexPos: 300, indexOff: 89, leo: 90, wantSnapshots: "[90]"}} {
		s := New()
		l0, n0 := segment(s, 0, 5, -1)
		l1, n1 := segment(s, 50, 4, -1) // cut: the index's last entry may name byte 700, past its 400 bytes
		files := []analysis.FileRow{
			{Path: ".kafka_cleanshutdown", Kind: "clean-shutdown"},
			fileRow(l0, n0), fileRow("orders-0/00000000000000000000.index", 8), fileRow("orders-0/00000000000000000000.timeindex", 12),
			fileRow(l1, n1), fileRow("orders-0/00000000000000000050.index", 16), fileRow("orders-0/00000000000000000050.timeindex", 12),
			fileRow("orders-0/00000000000000000090.snapshot", 50),
		}
		idx := func(_ int32, seg string) (int64, int64, bool) {
			if seg == l1 {
				return tc.indexOff, tc.indexPos, true
			}
			return 0, 0, false
		}
		ps := s.Finish(Inputs{Files: files, IndexEnd: idx, Checkpoint: checkpoints{snapshot.KindRecoveryPointCheckpoint: 120}.get})
		p := ps[0]
		if !p.Clean || p.LogEndOffset != tc.leo || p.LogStartOffset != 0 {
			t.Errorf("index at byte %d: clean %v, log %d..%d, want end %d", tc.indexPos, p.Clean, p.LogStartOffset, p.LogEndOffset, tc.leo)
		}
		if got := strings.Contains(actions(p), ActResetLogEnd); got != tc.reset {
			t.Errorf("index at byte %d: actions %q, reset-log-end %v, want %v", tc.indexPos, actions(p), got, tc.reset)
		}
		if got := fmt.Sprint(p.Snapshots); got != tc.wantSnapshots {
			t.Errorf("index at byte %d: snapshots %s, want %s", tc.indexPos, got, tc.wantSnapshots)
		}
	}
}
