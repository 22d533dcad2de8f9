package scan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// preallocated writes n batches to a segment and extends the file to
// size with a hole, as Kafka's preallocation (log.preallocate) does.
func preallocated(t *testing.T, path string, n int, size int64) []byte {
	t.Helper()
	var seg []byte
	for i := range n {
		seg = append(seg, segtest.Batch{Magic: 2, BaseOffset: int64(i), FirstTimestamp: 1_700_000_000_000,
			Records: []segtest.Record{{Value: []byte(fmt.Sprint("value ", i))}}}.Encode()...)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	if source.FileDataRanges(f, size) == nil {
		t.Skip("SKIPPED: the temp dir's file system does not report holes")
	}
	return seg
}

func segmentRow(t *testing.T, res *Result) analysis.FileRow {
	t.Helper()
	for _, f := range res.Files {
		if strings.HasSuffix(f.Path, ".log") {
			return f
		}
	}
	t.Fatalf("no segment row in %+v", res.Files)
	return analysis.FileRow{}
}

func holeFinding(res *Result) *analysis.AnomalyRow {
	for i := range res.Anomalies {
		if res.Anomalies[i].Kind == KindSparseHole {
			return &res.Anomalies[i]
		}
	}
	return nil
}

// TestPreallocatedSegmentHole: a segment preallocated to 256 MiB with 50
// batches in it is read to its data's end: every batch, one sparse-hole
// finding where the hole starts, and the file's hash as sha256sum gives
// it (the hole hashed as zeros), mapped or read.
func TestPreallocatedSegmentHole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	p := filepath.Join(dir, "t-0", segtest.SegmentFileName(0))
	const size = 256 << 20
	seg := preallocated(t, p, 50, size)
	h := sha256.New()
	h.Write(seg)
	h.Write(make([]byte, size-len(seg)))
	want := hex.EncodeToString(h.Sum(nil))
	inputs, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, jobs := range []int{1, 2} {
		var progress int64
		res, err := Run(context.Background(), inputs, Config{Jobs: jobs, Hash: true, Progress: func(n int64) { progress += n }}, Output{})
		if err != nil {
			t.Fatal(err)
		}
		row := segmentRow(t, res)
		if row.Batches != 50 || row.Size != size || row.SHA256 != want || row.Status != statusNotes {
			t.Errorf("jobs %d: row %+v", jobs, row)
		}
		a := holeFinding(res)
		if a == nil || a.Position == nil || *a.Position < int64(len(seg)) || *a.Position >= 1<<20 || a.Severity != "note" {
			t.Fatalf("jobs %d: hole finding %+v in %+v", jobs, a, res.Anomalies)
		}
		if progress != size {
			t.Errorf("jobs %d: progress %d, want %d", jobs, progress, size)
		}
	}
}

// TestPreallocatedTerabyte: a 1 TiB preallocated segment scans in
// seconds; its hole is too large to hash, which a finding says.
func TestPreallocatedTerabyte(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	p := filepath.Join(dir, "t-0", segtest.SegmentFileName(0))
	preallocated(t, p, 20, 1<<40)
	inputs, _ := source.Classify([]string{dir})
	start := time.Now()
	res, err := Run(context.Background(), inputs, Config{Jobs: 2, Hash: true}, Output{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a 1 TiB preallocated segment took %v", d)
	}
	row := segmentRow(t, res)
	if row.Batches != 20 || row.SHA256 != "" || holeFinding(res) == nil {
		t.Errorf("row %+v", row)
	}
	found := false
	for _, a := range res.Anomalies {
		found = found || a.Kind == "not-hashed"
	}
	if !found {
		t.Errorf("no not-hashed finding in %+v", res.Anomalies)
	}
}

func needTar(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tar"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tar is needed by this test and missing on the CI machine")
		}
		t.Skip("SKIPPED: tar is not installed; this test needs it")
	}
}

// sparseTar archives a partition dir with tar -S in the old GNU form.
func sparseTar(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(filepath.Dir(dir), "logs.tar")
	cmd := exec.Command("tar", "-S", "--format=gnu", "-cf", out, filepath.Base(dir))
	cmd.Dir = filepath.Dir(dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, b)
	}
	return out
}

// TestSparseTarTerabyte: the sparse bomb, a 10 KB tar declaring a 1 TiB
// segment, scans in seconds: its batches, and its hole as one finding.
func TestSparseTarTerabyte(t *testing.T) {
	needTar(t)
	base := t.TempDir()
	p := filepath.Join(base, "t-0", segtest.SegmentFileName(0))
	preallocated(t, p, 30, 1<<40)
	tarPath := sparseTar(t, filepath.Join(base, "t-0"))
	if st, _ := os.Stat(tarPath); st.Size() > 64<<10 {
		t.Fatalf("the tar is %d bytes: not sparse", st.Size())
	}
	inputs, _ := source.Classify([]string{tarPath})
	start := time.Now()
	res, err := Run(context.Background(), inputs, Config{Jobs: 2, Hash: true}, Output{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a 1 TiB sparse entry took %v", d)
	}
	row := segmentRow(t, res)
	if row.Batches != 30 || row.Size != 1<<40 || holeFinding(res) == nil {
		t.Errorf("row %+v, anomalies %+v", row, res.Anomalies)
	}
}

// TestSparseTarCancel: a sparse entry whose hole is in the middle (data
// at both ends) is read through, as zeros; cancelling stops it within a
// second.
func TestSparseTarCancel(t *testing.T) {
	needTar(t)
	base := t.TempDir()
	p := filepath.Join(base, "t-0", segtest.SegmentFileName(0))
	preallocated(t, p, 5, 1<<40)
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte("tail"), 1<<40-4)
	f.Close()
	tarPath := sparseTar(t, filepath.Join(base, "t-0"))
	inputs, _ := source.Classify([]string{tarPath})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, inputs, Config{Jobs: 2, Hash: true}, Output{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	if d := time.Since(start); d > 1300*time.Millisecond {
		t.Errorf("cancelled after 300 ms, returned after %v", d)
	}
}
