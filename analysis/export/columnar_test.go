package export

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// randomBatchRows returns n rows with what the columnar writer must get
// right: strings in runs and alternating, empty and non-ASCII strings,
// integers at their extremes and negative, nulls among the timestamps.
func randomBatchRows(n int, seed uint64) []analysis.BatchRow {
	rng := rand.New(rand.NewPCG(seed, 7))
	strs := []string{"", "orders", "payments-ü", "a", "b", "orders-3/00000000000000000000.log", "z\x00z"}
	pick := func() string { return strs[rng.IntN(len(strs))] }
	ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 1 << 40}
	i64 := func() int64 {
		if rng.IntN(4) == 0 {
			return ints[rng.IntN(len(ints))]
		}
		return rng.Int64N(1<<20) - 1<<19
	}
	i32 := func() int32 { return int32(i64()) }
	opt := func() *int64 {
		if rng.IntN(10) == 0 {
			return nil
		}
		v := i64()
		return &v
	}
	rows := make([]analysis.BatchRow, n)
	seg, pos := pick(), int64(0)
	for i := range rows {
		if rng.IntN(50) == 0 {
			seg, pos = pick(), 0
		}
		pos += rng.Int64N(20000)
		rows[i] = analysis.BatchRow{Input: i32(), Source: pick(), Topic: pick(), Partition: i32(), Segment: seg,
			Position: pos, BaseOffset: i64(), LastOffset: i64(), RecordCount: i32(), Magic: int32(rng.IntN(3)),
			Codec: pick(), SizeBytes: i64(), CRC: int64(rng.Uint32()), CRCValid: rng.IntN(9) != 0,
			IsTransactional: rng.IntN(2) == 0, IsControl: rng.IntN(20) == 0, PartitionLeaderEpoch: i32(),
			ProducerID: i64(), ProducerEpoch: i32(), BaseSequence: i32(), FirstTimestamp: opt(), MaxTimestamp: opt(),
			TimestampType: pick(), DecodedRecords: i32(), ControlType: pick()}
	}
	return rows
}

func writeBatches(t *testing.T, path string, rows []analysis.BatchRow, pageRows, groupRows, chunk int) {
	t.Helper()
	meta := &Metadata{}
	meta.Set("ksleuth.test", "yes")
	s, err := NewColumnar[analysis.BatchRow](path, "test", meta, pageRows, groupRows)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rows); i += chunk {
		if err := s.Write(rows[i:min(i+chunk, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeGeneric writes rows with parquet-go's generic writer, the
// reference the columnar writer is compared with.
func writeGeneric(t *testing.T, path string, rows []analysis.BatchRow) string {
	t.Helper()
	g, err := NewParquet[analysis.BatchRow](path, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func openParquet(t *testing.T, path string) *parquet.File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// TestColumnarRoundTrip: rows written column by column read back through
// parquet-go exactly as written, with the schema the generic writer gives
// the same struct, across page and row-group boundaries that fall inside
// and between the slices written.
func TestColumnarRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rows := randomBatchRows(5000, 1)
	ref := writeGeneric(t, filepath.Join(dir, "generic.parquet"), rows)
	refFile := openParquet(t, ref)
	for _, tc := range []struct{ page, group, chunk, n int }{
		{0, 0, 1024, 5000}, {7, 50, 13, 5000}, {1, 1, 3, 40}, {1000, 3000, 999, 5000}, {64, 0, 5000, 5000}, {0, 0, 1, 0},
	} {
		name := fmt.Sprintf("page%d-group%d-chunk%d-n%d", tc.page, tc.group, tc.chunk, tc.n)
		p := filepath.Join(dir, name+".parquet")
		writeBatches(t, p, rows[:tc.n], tc.page, tc.group, tc.chunk)
		got, err := parquet.ReadFile[analysis.BatchRow](p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != tc.n || (tc.n > 0 && !reflect.DeepEqual(got, rows[:tc.n])) {
			for i := range min(len(got), tc.n) {
				if !reflect.DeepEqual(got[i], rows[i]) {
					t.Fatalf("%s: row %d reads back as\n%+v\nwritten\n%+v", name, i, got[i], rows[i])
				}
			}
			t.Fatalf("%s: %d rows read back, %d written", name, len(got), tc.n)
		}
		f := openParquet(t, p)
		if a, b := f.Schema().String(), refFile.Schema().String(); a != b {
			t.Fatalf("%s: schema\n%s\nwant the generic writer's\n%s", name, a, b)
		}
		if v, ok := f.Lookup("ksleuth.test"); !ok || v != "yes" {
			t.Errorf("%s: key-value metadata lost: %q %v", name, v, ok)
		}
		wantGroups := 0
		if tc.n > 0 {
			g := tc.group
			if g == 0 {
				g = MaxRowsPerRowGroup
			}
			wantGroups = (tc.n + g - 1) / g
		}
		if n := len(f.RowGroups()); n != wantGroups {
			t.Errorf("%s: %d row groups, want %d", name, n, wantGroups)
		}
	}
}

// TestColumnarStatistics: each column chunk's min, max and null count are
// those the generic writer computes for the same rows (one row group).
func TestColumnarStatistics(t *testing.T) {
	dir := t.TempDir()
	rows := randomBatchRows(3000, 2)
	ref := writeGeneric(t, filepath.Join(dir, "generic.parquet"), rows)
	p := filepath.Join(dir, "columnar.parquet")
	writeBatches(t, p, rows, 100, 0, 512)
	want := openParquet(t, ref).Metadata().RowGroups[0].Columns
	got := openParquet(t, p).Metadata().RowGroups[0].Columns
	for i := range want {
		w, g := want[i].MetaData, got[i].MetaData
		if g.NumValues != w.NumValues || !bytes.Equal(g.Statistics.MinValue, w.Statistics.MinValue) ||
			!bytes.Equal(g.Statistics.MaxValue, w.Statistics.MaxValue) || g.Statistics.NullCount != w.Statistics.NullCount {
			t.Errorf("column %s: values %d min %x max %x nulls %d; generic writer: %d %x %x %d", w.PathInSchema[0],
				g.NumValues, g.Statistics.MinValue, g.Statistics.MaxValue, g.Statistics.NullCount,
				w.NumValues, w.Statistics.MinValue, w.Statistics.MaxValue, w.Statistics.NullCount)
		}
	}
}

// TestColumnarRejectsUnsupported: a struct with a field the columnar
// writer does not store is refused before a file is created.
func TestColumnarRejectsUnsupported(t *testing.T) {
	dir := t.TempDir()
	type plainString struct {
		S string `parquet:"s"`
	}
	type bytesField struct {
		B []byte `parquet:"b"`
	}
	type untagged struct {
		N int64
	}
	type optionalInt32 struct {
		N *int32 `parquet:"n,optional"`
	}
	for _, err := range []error{
		tryColumnar[plainString](dir), tryColumnar[bytesField](dir), tryColumnar[untagged](dir), tryColumnar[optionalInt32](dir),
	} {
		if err == nil {
			t.Error("accepted")
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left behind: %v", ents)
	}
}

func tryColumnar[T any](dir string) error {
	s, err := NewColumnar[T](filepath.Join(dir, "x.parquet"), "test", nil, 0, 0)
	if err == nil {
		s.Abort()
	}
	return err
}

// FuzzColumnarRoundTrip: rows built from arbitrary bytes (any string,
// any integer, nulls anywhere), written with page and row-group sizes
// from the input, read back through parquet-go exactly as written.
func FuzzColumnarRoundTrip(f *testing.F) {
	f.Add([]byte("orders\x00\x01\x02\xff\xfe payments"), uint8(3), uint8(5))
	f.Add(make([]byte, 300), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, page, group uint8) {
		if len(data) > 4096 {
			return
		}
		var rows []analysis.BatchRow
		next := func(n int) []byte {
			if len(data) < n {
				n = len(data)
			}
			b := data[:n]
			data = data[n:]
			return b
		}
		i64 := func() int64 {
			var v int64
			for _, c := range next(8) {
				v = v<<8 | int64(c)
			}
			return v
		}
		str := func() string { return string(next(int(i64() & 7))) }
		opt := func() *int64 {
			if v := i64(); v&1 == 0 {
				return &v
			}
			return nil
		}
		for len(data) > 0 {
			rows = append(rows, analysis.BatchRow{Input: int32(i64()), Source: str(), Topic: str(), Partition: int32(i64()),
				Segment: str(), Position: i64(), BaseOffset: i64(), LastOffset: i64(), RecordCount: int32(i64()),
				Magic: int32(i64()), Codec: str(), SizeBytes: i64(), CRC: i64(), CRCValid: i64()&1 == 1,
				IsTransactional: i64()&2 == 2, IsControl: i64()&4 == 4, PartitionLeaderEpoch: int32(i64()),
				ProducerID: i64(), ProducerEpoch: int32(i64()), BaseSequence: int32(i64()), FirstTimestamp: opt(),
				MaxTimestamp: opt(), TimestampType: str(), DecodedRecords: int32(i64()), ControlType: str()})
		}
		p := filepath.Join(t.TempDir(), "f.parquet")
		writeBatches(t, p, rows, int(page%16), int(group%32), 1+int(page)%5)
		got, err := parquet.ReadFile[analysis.BatchRow](p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(rows) || len(rows) > 0 && !reflect.DeepEqual(got, rows) {
			t.Fatalf("%d rows read back differ from the %d written", len(got), len(rows))
		}
	})
}

// TestColumnarPageHeaders: every data page header's null count (written
// always, as parquet-go's format has it) is the page's, and the pages of
// a chunk add up to its values.
func TestColumnarPageHeaders(t *testing.T) {
	rows := randomBatchRows(3000, 4)
	p := filepath.Join(t.TempDir(), "c.parquet")
	writeBatches(t, p, rows, 101, 1000, 250)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f := openParquet(t, p)
	for g, rg := range f.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			md := cc.MetaData
			name := md.PathInSchema[0]
			var nulls, values int64
			pos := md.DataPageOffset
			if md.DictionaryPageOffset > 0 {
				pos = md.DictionaryPageOffset
			}
			end := pos + md.TotalCompressedSize
			page := 0
			for pos < end {
				var h format.PageHeader
				r := bytes.NewReader(data[pos:end])
				if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r)).Decode(&h); err != nil {
					t.Fatalf("group %d %s: page header at %d: %v", g, name, pos, err)
				}
				hdrLen := int64(len(data[pos:end])) - int64(r.Len())
				if dp, ok := h.DataPageHeader.Get(); ok {
					// The page's rows: pages hold 101 rows but for the last
					// of a row group.
					first := int64(g)*1000 + int64(page)*101
					n := int64(dp.NumValues)
					var want int64
					for i := first; i < first+n; i++ {
						r := &rows[i]
						if name == "first_timestamp" && r.FirstTimestamp == nil || name == "max_timestamp" && r.MaxTimestamp == nil {
							want++
						}
					}
					if dp.Statistics.NullCount != want {
						t.Errorf("group %d %s page %d: header says %d nulls, the page has %d", g, name, page, dp.Statistics.NullCount, want)
					}
					nulls += want
					values += n
					page++
				}
				pos += hdrLen + int64(h.CompressedPageSize)
			}
			if values != md.NumValues || nulls != md.Statistics.NullCount {
				t.Errorf("group %d %s: pages hold %d values, %d nulls; chunk says %d, %d", g, name, values, nulls, md.NumValues, md.Statistics.NullCount)
			}
		}
	}
}

// TestColumnarRejectsUnsignedAndClosed: a column whose statistics would
// order unsigned is refused, and writing to a closed or aborted table is
// an error, not a silent loss.
func TestColumnarRejectsUnsignedAndClosed(t *testing.T) {
	dir := t.TempDir()
	type unsigned struct {
		A int64 `parquet:"a,uint(64)"`
	}
	if err := tryColumnar[unsigned](dir); err == nil {
		t.Error("an unsigned column was accepted")
	}
	for _, end := range []string{"close", "abort"} {
		s, err := NewColumnar[analysis.BatchRow](filepath.Join(dir, end+".parquet"), "test", nil, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if end == "close" {
			err = s.Close()
		} else {
			s.Abort()
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(randomBatchRows(3, 5)); err == nil {
			t.Errorf("write after %s accepted", end)
		}
	}
}
