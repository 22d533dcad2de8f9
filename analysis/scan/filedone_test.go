package scan

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestEmptyFilesHeap: what a scan keeps per file is bounded. 20,000 empty
// segments in one partition dir leave, in the live heap of the result,
// their rows and little else: 450 bytes a file, where a row that
// pointed into the worker's per-file state kept that state too (1,370
// bytes a file).
func TestEmptyFilesHeap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 20000
	start := time.Now()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, segtest.SegmentFileName(int64(i)*10)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%v to write the files", time.Since(start))
	inputs, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Run(context.Background(), inputs, Config{Jobs: 2, Hash: true}, Output{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	if len(res.Files) != n || res.Files[n-1].Status != statusOK {
		t.Fatalf("%d file rows", len(res.Files))
	}
	runtime.KeepAlive(res)
	t.Logf("%v in all", time.Since(start))
	t.Logf("%d bytes of live heap per empty file", per)
	if per > 650 {
		t.Errorf("%d bytes of live heap per empty file after the scan, want at most 650", per)
	}
}
