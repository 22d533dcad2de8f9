package export

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type row struct {
	Topic string `parquet:"topic"`
	N     int64  `parquet:"n"`
}

func TestTopicStem(t *testing.T) {
	long := strings.Repeat("x", 249)
	for in, want := range map[string]string{"orders.v1_x-2": "orders.v1_x-2", "a/b": "a%2Fb", "a=b c": "a%3Db%20c",
		"": "", "__consumer_offsets": "__consumer_offsets", long: strings.Repeat("x", 143) + "~"} {
		got := TopicStem(in)
		if in == long {
			got = strings.TrimRight(got, "0123456789abcdef")
		}
		if got != want {
			t.Errorf("TopicStem(%q) = %q, want %q", in, got, want)
		}
	}
	if a, b := TopicStem(long), TopicStem(long[1:]+"y"); len(a) != maxStem || a == b {
		t.Errorf("long names: %q (%d bytes) and %q", a, len(a), b)
	}
}

// TestDatasetParts: files rotate at MaxRows and when too many are open,
// a topic's rows go to files of their own, nothing is visible before
// Close, and Close publishes every row.
func TestDatasetParts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "records")
	d, err := NewDataset[row](dir, "test", nil, DatasetLimits{MaxRows: 3, MaxOpen: 1})
	if err != nil {
		t.Fatal(err)
	}
	write := func(p string, n ...int64) {
		var rows []row
		for _, x := range n {
			rows = append(rows, row{p, x})
		}
		if err := d.Write(p, rows); err != nil {
			t.Fatal(err)
		}
	}
	write("a", 1, 2, 3, 4) // a: file 0 full, file 1 open
	write("b", 5)          // closes a's file 1 (one open file at most)
	write("a", 6)          // a's file 2
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("dataset visible before Close")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{"part-a-00000.parquet": {1, 2, 3}, "part-a-00001.parquet": {4},
		"part-a-00002.parquet": {6}, "part-b-00000.parquet": {5}}
	checkDataset(t, dir, want)
	if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
		t.Errorf("left beside the dataset: %v", ents)
	}
}

// TestDatasetBytes: a file rolls at MaxBytes and a row group is written
// out at GroupBytes, so a file's size and the memory it buffers are
// bounded whatever its rows hold.
func TestDatasetBytes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "records")
	d, err := NewDataset[blobRow](dir, "test", nil, DatasetLimits{MaxBytes: 3 << 20, GroupBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, 64<<10)
	for i := range 100 { // 6.4 MB of incompressible-enough rows
		for j := range blob {
			blob[j] = byte(i*7 + j*j)
		}
		if err := d.Write("t", []blobRow{{N: int64(i), B: blob}}); err != nil {
			t.Fatal(err)
		}
		if len(d.open) == 0 {
			continue // the file just rolled
		}
		if p := d.open[0]; p.sink.w.Size()-(p.sink.f.n+int64(p.sink.bw.Buffered())) > 1<<20+64<<10 {
			t.Fatalf("row %d: %d bytes buffered, over GroupBytes", i, p.sink.w.Size())
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(d.files) < 2 {
		t.Fatalf("%d files, want the rows rolled over several", len(d.files))
	}
	var rows int64
	for _, f := range d.files {
		rows += f.Rows
		if f.Bytes > 4<<20 {
			t.Errorf("%s: %d bytes, over MaxBytes", f.Path, f.Bytes)
		}
		pf, err := os.Open(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := pf.Stat()
		file, err := parquet.OpenFile(pf, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		if n := len(file.RowGroups()); int64(n) < f.Rows/20 {
			t.Errorf("%s: %d row groups for %d rows of 64 KiB", f.Path, n, f.Rows)
		}
		pf.Close()
	}
	if rows != 100 {
		t.Errorf("%d rows written, want 100", rows)
	}
}

type blobRow struct {
	N int64  `parquet:"n"`
	B []byte `parquet:"b"`
}

// checkDataset holds the files of dir to want: the n column of each.
func checkDataset(t *testing.T, dir string, want map[string][]int64) {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(files) != len(want) {
		t.Fatalf("files %v", files)
	}
	for _, f := range files {
		rows, err := parquet.ReadFile[row](filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range rows {
			got = append(got, r.N)
		}
		if !slices.Equal(got, want[f]) {
			t.Errorf("%s: %v, want %v", f, got, want[f])
		}
	}
}

// TestDatasetAbort leaves nothing behind.
func TestDatasetAbort(t *testing.T) {
	parent := t.TempDir()
	d, err := NewDataset[row](filepath.Join(parent, "records"), "test", nil, DatasetLimits{MaxRows: 2, MaxOpen: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write("a", []row{{"a", 1}, {"a", 2}, {"a", 3}}); err != nil {
		t.Fatal(err)
	}
	d.Abort()
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left after Abort: %v", ents)
	}
}
