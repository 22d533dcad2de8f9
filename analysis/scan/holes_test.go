package scan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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

// middleHole writes a segment of n batches, a hole to byte at, and m
// batches from there (offsets on from n): a file of at plus their size.
// It returns the whole file's SHA-256 when at is small enough to hash.
func middleHole(t *testing.T, path string, n, m int, at int64) string {
	t.Helper()
	preallocated(t, path, n, at)
	var tail []byte
	for i := range m {
		tail = append(tail, segtest.Batch{Magic: 2, BaseOffset: int64(n + i), FirstTimestamp: 1_700_000_000_000,
			Records: []segtest.Record{{Value: []byte(fmt.Sprint("after ", i))}}}.Encode()...)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(tail, at); err != nil {
		t.Skipf("SKIPPED: the temp dir's file system holds no sparse file of %d bytes: %v", at, err)
	}
	if at > 1<<30 {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, at+int64(len(tail)))); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// runBounded runs a scan that must end in seconds: a hole read through
// instead of passed is cut off by the deadline and fails the test.
func runBounded(t *testing.T, inputs []*source.Input, cfg Config) (*Result, []analysis.BatchRow) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	var batches []analysis.BatchRow
	res, err := Run(ctx, inputs, cfg, Output{Batches: func(b []analysis.BatchRow) error {
		batches = append(batches, b...)
		return nil
	}})
	if err != nil {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %v", d)
	}
	return res, batches
}

// checkMiddleHole: 5 batches, the hole as one sparse-hole error from the
// end of the first batches (their block's zeros included) to where the
// data resumes at byte at, then the 4 batches after it.
func checkMiddleHole(t *testing.T, res *Result, batches []analysis.BatchRow, at int64, hash string) {
	t.Helper()
	row := segmentRow(t, res)
	if row.Batches != 9 || row.Records != 9 || row.Status != statusDamaged || row.SHA256 != hash {
		t.Errorf("row %+v, want 9 batches and sha256 %q", row, hash)
	}
	var holes []analysis.AnomalyRow
	for _, a := range res.Anomalies {
		switch a.Kind {
		case KindSparseHole:
			holes = append(holes, a)
		case "not-hashed":
		default:
			t.Errorf("finding %+v", a)
		}
	}
	if len(holes) != 1 || holes[0].Position == nil || *holes[0].Position >= 4096 || holes[0].Severity != "error" ||
		!strings.Contains(holes[0].Message, fmt.Sprintf("reading goes on at byte %d", at)) {
		t.Fatalf("hole findings %+v", holes)
	}
	var last int64 = -1
	for _, b := range batches {
		last = max(last, b.LastOffset)
		if b.BaseOffset >= 5 && b.Position < at {
			t.Errorf("batch %d at byte %d, before the hole's end", b.BaseOffset, b.Position)
		}
	}
	if last != 8 {
		t.Errorf("last offset %d", last)
	}
}

// TestMiddleHole: a hole between batches, in a file and in a tar -S
// entry, is passed over: one finding, and the batches after it are read.
// A 1 TiB hole takes seconds and leaves the file unhashed; a 64 MiB one
// is hashed as sha256sum hashes the file.
func TestMiddleHole(t *testing.T) {
	for _, at := range []int64{64 << 20, 1 << 40} {
		base := t.TempDir()
		p := filepath.Join(base, "t-0", segtest.SegmentFileName(0))
		want := middleHole(t, p, 5, 4, at)
		inputs, err := source.Classify([]string{filepath.Join(base, "t-0")})
		if err != nil {
			t.Fatal(err)
		}
		for _, jobs := range []int{1, 2} {
			var progress int64
			res, batches := runBounded(t, inputs, Config{Jobs: jobs, Hash: true, Progress: func(n int64) { progress += n }})
			checkMiddleHole(t, res, batches, at, want)
			if st, _ := os.Stat(p); progress != st.Size() {
				t.Errorf("progress %d, want %d", progress, st.Size())
			}
		}
		if _, err := exec.LookPath("tar"); err != nil && os.Getenv("CI") != "true" {
			t.Log("SKIPPED the tar -S half: tar is not installed")
			continue
		}
		tarPath := sparseTar(t, filepath.Join(base, "t-0"))
		inputs, _ = source.Classify([]string{tarPath})
		res, batches := runBounded(t, inputs, Config{Jobs: 2, Hash: true})
		checkMiddleHole(t, res, batches, at, want)
	}
}

// TestSparseTarCancel: cancelling a scan stops it within a second inside
// one long entry: here the hashing of a terabyte hole as zeros, with the
// limit on hashed holes lifted.
func TestSparseTarCancel(t *testing.T) {
	needTar(t)
	defer func(v int64) { maxHashedHole = v }(maxHashedHole)
	maxHashedHole = 1 << 62
	base := t.TempDir()
	p := filepath.Join(base, "t-0", segtest.SegmentFileName(0))
	middleHole(t, p, 5, 1, 1<<40)
	tarPath := sparseTar(t, filepath.Join(base, "t-0"))
	for _, in := range []string{tarPath, filepath.Join(base, "t-0")} {
		inputs, _ := source.Classify([]string{in})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		_, err := Run(ctx, inputs, Config{Jobs: 2, Hash: true}, Output{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v", in, err)
		}
		if d := time.Since(start); d > 1300*time.Millisecond {
			t.Errorf("%s: cancelled after 300 ms, returned after %v", in, d)
		}
	}
}
