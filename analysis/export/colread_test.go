package export_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
)

// colRow is the part of a records row the columnar read is compared on.
type colRow struct {
	Input     int32  `parquet:"input"`
	Topic     string `parquet:"topic"`
	Offset    int64  `parquet:"offset"`
	Timestamp *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)"`
	Print     string `parquet:"fingerprint"`
	Damaged   bool   `parquet:"damaged"`
}

var colReadColumns = []export.ReadColumn{
	{Name: "input", Kind: export.KindInt32}, {Name: "topic", Kind: export.KindBytes}, {Name: "offset", Kind: export.KindInt64},
	{Name: "timestamp", Kind: export.KindInt64}, {Name: "fingerprint", Kind: export.KindBytes}, {Name: "damaged", Kind: export.KindBool},
}

// writeRecords writes n records rows in row groups of group rows and
// pages of page bytes (small ones make blocks straddle pages); every
// seventh timestamp is null.
func writeRecords(t testing.TB, n, group, page int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "part-t-00000.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[analysis.RecordRow](f, parquet.PageBufferSize(page))
	rows := make([]analysis.RecordRow, 0, 1000)
	for i := range n {
		r := analysis.RecordRow{Input: int32(i % 3), Topic: fmt.Sprintf("topic-%d", i/5000), Offset: int64(i),
			Fingerprint: fmt.Sprintf("%032x", i*7919), Damaged: i%11 == 0, TxnState: "none", Segment: "s"}
		if i%7 != 0 {
			ts := 1_700_000_000_000 + int64(i)
			r.Timestamp = &ts
		}
		rows = append(rows, r)
		if len(rows) == cap(rows) || i == n-1 {
			if _, err := w.Write(rows); err != nil {
				t.Fatal(err)
			}
			rows = rows[:0]
		}
		if (i+1)%group == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func readByColumns(t testing.TB, path string) []colRow {
	t.Helper()
	var got []colRow
	err := export.EachColumns(context.Background(), path, colReadColumns, func(b *export.ColumnBlock) error {
		for i := range b.Rows {
			r := colRow{Input: b.Int32(0, i), Topic: string(b.Bytes(1, i)), Offset: b.Int64(2, i),
				Print: string(b.Bytes(4, i)), Damaged: b.Bool(5, i)}
			if !b.Null(3, i) {
				ts := b.Int64(3, i)
				r.Timestamp = &ts
			}
			got = append(got, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestEachColumnsMatchesEachRow: the columnar read gives every row's
// values, nulls included, as the generic row reader does, across pages
// and row groups.
func TestEachColumnsMatchesEachRow(t *testing.T) {
	path := writeRecords(t, 23_456, 10_000, 2048)
	var want []colRow
	if err := export.EachRow(context.Background(), path, func(r *colRow) error { want = append(want, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	got := readByColumns(t, path)
	if len(got) != len(want) || len(want) != 23_456 {
		t.Fatalf("%d rows by columns, %d by rows, want 23456", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if (g.Timestamp == nil) != (w.Timestamp == nil) || g.Timestamp != nil && *g.Timestamp != *w.Timestamp {
			t.Fatalf("row %d: timestamp %v, want %v", i, g.Timestamp, w.Timestamp)
		}
		g.Timestamp, w.Timestamp = nil, nil
		if g != w {
			t.Fatalf("row %d: %+v, want %+v", i, g, w)
		}
	}
	if n, err := export.RowCount(path); err != nil || n != 23_456 {
		t.Errorf("RowCount = %d, %v", n, err)
	}
}

// TestEachColumnsLayout: a missing column, or one of another type, is
// ErrColumnLayout before any block, for the caller to read by rows.
func TestEachColumnsLayout(t *testing.T) {
	path := writeRecords(t, 10, 10, 2048)
	for _, c := range []export.ReadColumn{{Name: "no_such", Kind: export.KindInt32}, {Name: "offset", Kind: export.KindInt32}} {
		calls := 0
		err := export.EachColumns(context.Background(), path, []export.ReadColumn{c}, func(*export.ColumnBlock) error { calls++; return nil })
		if !errors.Is(err, export.ErrColumnLayout) || calls != 0 {
			t.Errorf("%+v: %v after %d blocks, want ErrColumnLayout before any", c, err, calls)
		}
	}
}

// The join's read of a records table, by columns and by rows: the same
// rows, read the two ways (benchstat-friendly names: go test -bench
// 'RecordsRead' -count 5 ./analysis/export).
func BenchmarkRecordsRead(b *testing.B) {
	const n = 200_000
	path := writeRecords(b, n, n, 256<<10)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("by=columns", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for b.Loop() {
			var sum int64
			err := export.EachColumns(context.Background(), path, colReadColumns, func(c *export.ColumnBlock) error {
				for i := range c.Rows {
					sum += c.Int64(2, i) + int64(len(c.Bytes(4, i)))
				}
				return nil
			})
			if err != nil || sum == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("by=rows", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for b.Loop() {
			var sum int64
			err := export.EachRow(context.Background(), path, func(r *colRow) error {
				sum += r.Offset + int64(len(r.Print))
				return nil
			})
			if err != nil || sum == 0 {
				b.Fatal(err)
			}
		}
	})
}
