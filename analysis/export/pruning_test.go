package export

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type fpRow struct {
	Fingerprint string `parquet:"fingerprint"`
	Offset      int64  `parquet:"offset"`
}

// TestRecordsPruning holds the records dataset to what engines prune by:
// row groups of RecordsRowGroupRows rows, each with a bloom filter on the
// fingerprint that finds every fingerprint written and rejects most
// others, and offset statistics per row group.
func TestRecordsPruning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "records")
	d, err := NewDataset[fpRow](dir, "test", nil, DatasetLimits{})
	if err != nil {
		t.Fatal(err)
	}
	const n = RecordsRowGroupRows*2 + 100
	rows := make([]fpRow, n)
	for i := range rows {
		rows[i] = fpRow{Fingerprint: fmt.Sprintf("%032x", uint64(i)*0x9e3779b97f4a7c15), Offset: int64(i)}
	}
	if err := d.Write("t", rows); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "part-t-00000.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	groups := pf.RowGroups()
	if len(groups) != 3 {
		t.Fatalf("%d row groups, want 3 of at most %d rows", len(groups), RecordsRowGroupRows)
	}
	fpCol, _ := pf.Schema().Lookup("fingerprint")
	offCol, _ := pf.Schema().Lookup("offset")
	for g, rg := range groups {
		first := int64(g) * RecordsRowGroupRows
		bf := rg.ColumnChunks()[fpCol.ColumnIndex].BloomFilter()
		if bf == nil {
			t.Fatalf("row group %d has no bloom filter on fingerprint", g)
		}
		hit := func(s string) bool {
			ok, err := bf.Check(parquet.ValueOf(s))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !hit(rows[first].Fingerprint) || !hit(rows[first+rg.NumRows()-1].Fingerprint) {
			t.Errorf("row group %d: bloom filter misses a fingerprint it holds", g)
		}
		passed := 0
		for i := 0; i < 1000; i++ {
			if hit(fmt.Sprintf("%032x", uint64(i)*0x51ed270b27a3f1c3+7)) {
				passed++
			}
		}
		if passed > 50 {
			t.Errorf("row group %d: %d of 1000 absent fingerprints pass the bloom filter", g, passed)
		}
		idx, err := rg.ColumnChunks()[offCol.ColumnIndex].ColumnIndex()
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := idx.MinValue(0).Int64(), idx.MaxValue(idx.NumPages()-1).Int64()
		if lo != first || hi != first+rg.NumRows()-1 {
			t.Errorf("row group %d: offsets %d..%d in its page index, want %d..%d", g, lo, hi, first, first+rg.NumRows()-1)
		}
	}
}
