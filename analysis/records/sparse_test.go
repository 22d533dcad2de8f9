package records

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestSparseSegment: a segment file with a hole between two batches and a
// hole of 64 GiB to its end (a sparse copy, a preallocated file, a sparse
// bomb). Truth: both batches' ten records are found, each hole is one
// finding, the zeros stored after the second batch (the rest of its
// block) are a zero-tail, as verify reports them, and the hole to the end
// is passed without being read: what is
// read stays within the reader's window (some MiB, the first hole's zeros
// with it), where reading 64 GiB of zeros would take minutes.
func TestSparseSegment(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	batch := func(base int64) []byte {
		b := segtest.Batch{Magic: 2, BaseOffset: base, FirstTimestamp: 1700000000000, AutoDeltas: true}
		for i := range 5 {
			b.Records = append(b.Records, segtest.Record{Value: []byte{byte('a' + i)}})
		}
		return b.Encode()
	}
	path := filepath.Join(dir, "00000000000000000000.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	first, second := batch(0), batch(5)
	if _, err := f.Write(first); err != nil {
		t.Fatal(err)
	}
	const gap = 4 << 20
	if _, err := f.WriteAt(second, gap); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		t.Fatal(err)
	}
	ranges := source.FileDataRanges(f, 64<<30)
	f.Close()
	if len(ranges) != 2 {
		if runtime.GOOS != "linux" {
			t.Skipf("the file system keeps no holes here (data ranges %v)", ranges)
		}
		t.Fatalf("data ranges %v: want the two batches' blocks (the test needs a file system with holes)", ranges)
	}
	o := New()
	o.Topic = nil
	lines, kinds, st := find(t, filepath.Dir(dir), o)
	if want := "[sparse-hole zero-tail sparse-hole]"; len(lines) != 10 || fmt.Sprint(kinds) != want || st.BytesRead >= 16<<20 {
		t.Errorf("%d records (want 10), findings %v (want %s), %d bytes read (want under 16 MiB)", len(lines), kinds, want, st.BytesRead)
	}
}
