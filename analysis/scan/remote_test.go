package scan

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestRemoteStore lays a generated partition's segments out as Kafka's
// LocalTieredStorage does (one damaged, one without its .log, one file
// named like no remote segment) and scans the root: each segment's
// files and offsets from the scan's file events, the reader's findings on
// the damaged one, and the other name as a skipped file.
func TestRemoteStore(t *testing.T) {
	logDir := t.TempDir()
	m, err := segtest.GenerateLogDir(logDir, 7, segtest.GenOptions{SegmentBytes: 1200})
	if err != nil {
		t.Fatal(err)
	}
	var pm *segtest.PartitionManifest
	for i := range m.Partitions {
		if len(m.Partitions[i].Segments) >= 3 {
			pm = &m.Partitions[i]
			break
		}
	}
	if pm == nil {
		t.Fatal("no generated partition with 3 segments")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "kafka-tiered-storage", pm.Dir+"-Fy3GRnlwRH2elChibHkMug")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ids := []string{"AAAAAAAAAAAAAAAAAAAAAA", "B-B_BBBBBBBBBBBBBBBBBB", "CCCCCCCCCCCCCCCCCCCCCC"}
	for i, s := range pm.Segments[:3] {
		data, err := os.ReadFile(filepath.Join(logDir, s.File))
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, segtest.SegmentFileName(s.BaseOffset)[:20]+"-"+ids[i])
		if i == 1 {
			data[len(data)/2] ^= 0xff // a flipped byte: a CRC mismatch
		}
		if i != 2 {
			write(t, name+".log", data)
		}
		write(t, name+".index", nil)
	}
	write(t, filepath.Join(dir, "notes.txt"), []byte("x"))

	inputs, err := source.Classify([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if inputs[0].Kind != source.Remote {
		t.Fatalf("input kind %v, want remote", inputs[0].Kind)
	}
	st := NewRemoteStore()
	var found []analysis.AnomalyRow
	res, err := Run(context.Background(), inputs, Config{Jobs: 2}, Output{
		Batches: func(rows []analysis.BatchRow) error { st.Batches(rows); return nil },
		File: func(ev *FileEvent) error {
			st.File(ev)
			found = append(found, ev.Anomalies...)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Batches == 0 {
		t.Errorf("no batch scanned in the remote root")
	}
	others, err := RemoteOthers(0, root)
	if err != nil {
		t.Fatal(err)
	}
	found = append(found, others...)
	segs := st.Segments()
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3: %+v", len(segs), segs)
	}
	s0 := segs[0]
	wantLast := pm.Segments[1].BaseOffset - 1
	if s0.Input != 0 || s0.SegmentID != ids[0] || s0.StartOffset != pm.Segments[0].BaseOffset || s0.First != s0.StartOffset || s0.Last != wantLast ||
		s0.Damaged != 0 || s0.Topic != pm.Topic || !s0.HasLog() || len(s0.Files) != 2 || s0.Files[0] != "log" || s0.Files[1] != "index" {
		t.Errorf("first segment %+v, want offsets %d..%d, log and index, intact", s0, s0.StartOffset, wantLast)
	}
	if s0.IntactTo != wantLast {
		t.Errorf("first segment intact to %d, want %d", s0.IntactTo, wantLast)
	}
	if segs[1].SegmentID != ids[1] || segs[1].Damaged == 0 {
		t.Errorf("damaged segment %+v, want damage counted", segs[1])
	}
	if s1 := segs[1]; s1.IntactTo >= pm.Segments[2].BaseOffset-1 || s1.IntactTo < -1 {
		t.Errorf("damaged segment intact to %d, want below its end %d", s1.IntactTo, pm.Segments[2].BaseOffset-1)
	}
	if segs[2].HasLog() || segs[2].First != -1 || len(segs[2].Files) != 1 {
		t.Errorf("segment without .log %+v", segs[2])
	}
	kinds := map[finding.Kind]int{}
	for _, f := range found {
		kinds[f.Kind]++
	}
	if kinds[finding.KindCRCMismatch] == 0 || kinds[finding.KindSkippedFile] != 1 {
		t.Errorf("findings %v, want a crc-mismatch and one skipped file", kinds)
	}
}

func write(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
