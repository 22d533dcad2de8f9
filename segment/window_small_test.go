package segment

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestSmallFileWindow: the window over a file of known size is sized to
// the file, so reading an empty or small segment allocates kilobytes, not
// the MiB of a window over a stream (100,000 empty segments in one
// partition allocated 100 GB and took minutes).
func TestSmallFileWindow(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.log")
	small := filepath.Join(dir, "small.log")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(small, make([]byte, 100), 0o644) // zeros: one zero-tail finding
	for _, p := range []string{empty, small} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		const runs = 20
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			f.Seek(0, 0)
			r := NewReader(f, Options{Path: p})
			for r.Next() {
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			r.Close()
		}
		runtime.ReadMemStats(&after)
		f.Close()
		if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 256<<10 {
			t.Errorf("%s: %d bytes allocated per reader", filepath.Base(p), per)
		}
	}
}
