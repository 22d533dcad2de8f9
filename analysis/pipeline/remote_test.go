package pipeline_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// tieredLogDir generates a log dir and returns it with a partition of
// three segments or more.
func tieredLogDir(t *testing.T, seed int64) (string, *segtest.PartitionManifest) {
	t.Helper()
	dir := t.TempDir()
	m, err := segtest.GenerateLogDir(dir, seed, segtest.GenOptions{SegmentBytes: 1200})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Partitions {
		if len(m.Partitions[i].Segments) >= 3 {
			return dir, &m.Partitions[i]
		}
	}
	t.Fatal("no generated partition with 3 segments")
	return "", nil
}

// tierSegments copies segments n of pm from logDir into a remote store
// root as LocalTieredStorage names them (.log and .index), and returns
// the remote partition dir.
func tierSegments(t *testing.T, root, logDir string, pm *segtest.PartitionManifest, n ...int) string {
	t.Helper()
	meta, err := os.ReadFile(filepath.Join(logDir, pm.Dir, "partition.metadata"))
	_, id, ok := strings.Cut(string(meta), "topic_id: ")
	if err != nil || !ok || len(id) < 22 {
		t.Fatalf("%s/partition.metadata: %v %q", pm.Dir, err, meta)
	}
	dir := filepath.Join(root, "kafka-tiered-storage", pm.Dir+"-"+id[:22])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, i := range n {
		s := pm.Segments[i]
		id := strings.Repeat(string(rune('A'+i)), 22)
		for _, ext := range []string{".log", ".index"} {
			src := filepath.Join(logDir, strings.TrimSuffix(s.File, ".log")+ext)
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, segtest.SegmentFileName(s.BaseOffset)[:20]+"-"+id+ext)
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func countKind(fs []analysis.AnomalyRow, k finding.Kind) int {
	n := 0
	for _, f := range fs {
		if f.Kind == k {
			n++
		}
	}
	return n
}

// TestRemoteJoinsScan: a remote store root's segments are scanned as a log
// dir's. Segments both local and remote are one log (no finding, no
// duplicate of itself); segments only remote join the scan's rows, so the
// duplicates of the whole log are found across remote and local.
func TestRemoteJoinsScan(t *testing.T) {
	logDir, pm := tieredLogDir(t, 7)
	base, _ := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, logDir)
	_, baseDups := runDups(t, pipeline.Plan{Command: pipeline.Dups}, logDir)
	if len(baseDups) == 0 {
		t.Fatal("the generated log dir holds no duplicates to find across remote and local")
	}

	// Overlap: the first two segments in the store and still on disk.
	root := t.TempDir()
	tierSegments(t, root, logDir, pm, 0, 1)
	res, _ := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, logDir, root)
	if res.Scan.Batches <= base.Scan.Batches {
		t.Errorf("%d batches with the remote root, %d without: the remote segments were not scanned", res.Scan.Batches, base.Scan.Batches)
	}
	for _, f := range res.Scan.Anomalies {
		if finding.Counts(f.Severity) && strings.Contains(f.File, "kafka-tiered-storage") {
			t.Errorf("finding on a clean remote copy: %+v", f)
		}
	}
	if n := countKind(res.Scan.Anomalies, finding.KindRemoteOverlapDiffers); n != 0 {
		t.Errorf("%d remote-overlap-differs on equal copies", n)
	}
	if _, rows := runDups(t, pipeline.Plan{Command: pipeline.Dups}, logDir, root); len(rows) != len(baseDups) {
		t.Errorf("%d duplicate rows with the overlapping remote copy, %d without: the overlap is one log", len(rows), len(baseDups))
	}

	// Tiered away: the first segment only in the store.
	local := copyDir(t, logDir)
	if err := os.Remove(filepath.Join(local, pm.Segments[0].File)); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(local, strings.TrimSuffix(pm.Segments[0].File, ".log")+".index"))
	root2 := t.TempDir()
	tierSegments(t, root2, logDir, pm, 0)
	if _, rows := runDups(t, pipeline.Plan{Command: pipeline.Dups}, local, root2); len(rows) != len(baseDups) {
		t.Errorf("%d duplicate rows across remote and local, %d in the whole local log", len(rows), len(baseDups))
	}
}

// TestRemoteOverlapDiffers: a remote segment whose batches differ from the
// local segment at the same offsets is a finding on the local copy; a
// damaged remote index is found by the index checks, naming the remote
// file.
func TestRemoteOverlapDiffers(t *testing.T) {
	logDir, pm := tieredLogDir(t, 7)
	root := t.TempDir()
	dir := tierSegments(t, root, logDir, pm, 0)
	// The remote segment's first batch replaced by the first batch of the
	// next segment moved to its offset: the base offset is outside the
	// CRC, so the batch is intact and differs from the local one.
	next, err := os.ReadFile(filepath.Join(logDir, pm.Segments[1].File))
	if err != nil || len(next) < 61 {
		t.Fatalf("segment %s: %v", pm.Segments[1].File, err)
	}
	n := 12 + int(binary.BigEndian.Uint32(next[8:12]))
	moved := append([]byte(nil), next[:n]...)
	binary.BigEndian.PutUint64(moved[:8], uint64(pm.Segments[0].BaseOffset))
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if err := os.WriteFile(logs[0], moved, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, logDir, root)
	if n := countKind(res.Scan.Anomalies, finding.KindRemoteOverlapDiffers); n != 1 {
		t.Errorf("%d remote-overlap-differs, want 1: %+v", n, res.Scan.Anomalies)
	}

	root2 := t.TempDir()
	dir = tierSegments(t, root2, logDir, pm, 0)
	idx, _ := filepath.Glob(filepath.Join(dir, "*.index"))
	// 7 bytes: no whole 8-byte entry, an index that does not parse.
	if err := os.WriteFile(idx[0], []byte{0, 0, 0, 1, 0, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ = runPlan(t, pipeline.Plan{Command: pipeline.Verify}, logDir, root2)
	found := false
	for _, f := range res.Scan.Anomalies {
		if f.File == filepath.ToSlash(strings.TrimPrefix(idx[0], root2+string(filepath.Separator))) && finding.Counts(f.Severity) {
			found = true
		}
	}
	if !found {
		t.Errorf("no finding on the damaged remote index %s: %+v", idx[0], res.Scan.Anomalies)
	}
}

// TestRemoteInArchive: a remote store root inside an archive is read as
// the same root given as a dir: the same batches and records, no finding
// on its files.
func TestRemoteInArchive(t *testing.T) {
	logDir, pm := tieredLogDir(t, 7)
	root := filepath.Join(t.TempDir(), "remote")
	tierSegments(t, root, logDir, pm, 0, 1)
	dirRes, _ := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, logDir, root)
	arcRes, _ := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, logDir, tarGz(t, root))
	if arcRes.Scan.Batches != dirRes.Scan.Batches || arcRes.Scan.Records != dirRes.Scan.Records {
		t.Errorf("archive: %d batches, %d records; dir: %d, %d", arcRes.Scan.Batches, arcRes.Scan.Records, dirRes.Scan.Batches, dirRes.Scan.Records)
	}
	for _, f := range arcRes.Scan.Anomalies {
		if finding.Counts(f.Severity) && strings.Contains(f.File, "kafka-tiered-storage") {
			t.Errorf("finding on a clean remote copy in an archive: %+v", f)
		}
	}
	found := false
	for _, p := range arcRes.Scan.Partitions {
		found = found || strings.Contains(p.Dir, "kafka-tiered-storage/") && p.Topic == pm.Topic && p.Partition == pm.Partition
	}
	if !found {
		t.Errorf("no partition of the archive's remote dir: %+v", arcRes.Scan.Partitions)
	}
}

// TestRemoteCopyBeside: a failed copy left in the store beside the copy
// retried (one segment under two segment ids) holds the same offsets
// twice; each remote segment is an object of its own, so neither the
// offset checks nor the producer's sequences see the log go back.
func TestRemoteCopyBeside(t *testing.T) {
	logDir, pm := tieredLogDir(t, 7)
	root := t.TempDir()
	dir := tierSegments(t, root, logDir, pm, 0, 1)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, filepath.Base(logs[0])[:21]+strings.Repeat("Z", 22)+".log")
	if err := os.WriteFile(again, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, logDir, root)
	for _, f := range res.Scan.Anomalies {
		if finding.Counts(f.Severity) && strings.Contains(f.File, "kafka-tiered-storage") {
			t.Errorf("finding on a copy beside another: %+v", f)
		}
	}
}
