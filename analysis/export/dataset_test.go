package export

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type row struct {
	Topic string `parquet:"topic"`
	N     int64  `parquet:"n"`
}

func TestPartitionValue(t *testing.T) {
	for in, want := range map[string]string{"orders.v1_x-2": "orders.v1_x-2", "a/b": "a%2Fb", "a=b c": "a%3Db%20c",
		"": "__HIVE_DEFAULT_PARTITION__", ".": "%2E", "..": "%2E%2E"} {
		if got := PartitionValue(in); got != want {
			t.Errorf("PartitionValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDatasetParts: parts rotate at maxRows and when too many are open,
// nothing is visible before Close, and Close publishes every row.
func TestDatasetParts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "records")
	d, err := NewDataset[row](dir, "test", nil, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	write := func(p string, n ...int64) {
		var rows []row
		for _, x := range n {
			rows = append(rows, row{p, x})
		}
		if err := d.Write("topic="+p+"/partition=0", rows); err != nil {
			t.Fatal(err)
		}
	}
	write("a", 1, 2, 3, 4) // a: part 0 full, part 1 open
	write("b", 5)          // closes a/part-1 (one open part at most)
	write("a", 6)          // a/part-2
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("dataset visible before Close")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{"topic=a/partition=0/part-00000.parquet": {1, 2, 3}, "topic=a/partition=0/part-00001.parquet": {4},
		"topic=a/partition=0/part-00002.parquet": {6}, "topic=b/partition=0/part-00000.parquet": {5}}
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
	if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
		t.Errorf("left beside the dataset: %v", ents)
	}
}

// TestDatasetAbort leaves nothing behind.
func TestDatasetAbort(t *testing.T) {
	parent := t.TempDir()
	d, err := NewDataset[row](filepath.Join(parent, "records"), "test", nil, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write("topic=a/partition=0", []row{{"a", 1}, {"a", 2}, {"a", 3}}); err != nil {
		t.Fatal(err)
	}
	d.Abort()
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left after Abort: %v", ents)
	}
}
