package export_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
)

// batchRows returns n rows shaped like a scan's: a handful of segments of
// one partition, so the string columns repeat in long runs, and offsets,
// positions and timestamps that grow.
func batchRows(n int) []analysis.BatchRow {
	rows := make([]analysis.BatchRow, n)
	pos, off, ts := int64(0), int64(0), int64(1_700_000_000_000)
	for i := range rows {
		if i%4096 == 0 {
			pos = 0
		}
		cnt := int32(1 + i%16)
		size := int64(61 + 900*int(cnt) + i%97)
		first, max := ts, ts+int64(cnt)
		rows[i] = analysis.BatchRow{
			Input: 0, Source: "/var/lib/kafka/data#broker=1", Topic: "orders", Partition: 3,
			Segment:  "orders-3/" + []string{"00000000000000000000.log", "00000000000000231456.log", "00000000000000462912.log", "00000000000000694368.log"}[i/4096%4],
			Position: pos, BaseOffset: off, LastOffset: off + int64(cnt) - 1, RecordCount: cnt, Magic: 2,
			Codec: "lz4", SizeBytes: size, CRC: int64(uint32(i) * 2654435761), CRCValid: true,
			PartitionLeaderEpoch: 7, ProducerID: int64(1000 + i%8), ProducerEpoch: 0, BaseSequence: int32(i / 8 * 16),
			FirstTimestamp: &first, MaxTimestamp: &max, TimestampType: "CreateTime", DecodedRecords: cnt,
		}
		pos += size
		off += int64(cnt)
		ts += 3
	}
	return rows
}

// BenchmarkBatchesTable is the cost of the batches table per row, the
// largest per-batch cost of a scan on top of reading the segment: through
// parquet-go's generic writer and through the columnar writer the scan
// uses, side by side.
//
// The small table (a scan of a few hundred batches) is where the sinks'
// fixed cost shows: the buffers a table sets up before its first row.
func BenchmarkBatchesTable(b *testing.B) {
	for _, n := range []int{256, 1 << 17} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) { benchBatchesTable(b, batchRows(n)) })
	}
}

func benchBatchesTable(b *testing.B, rows []analysis.BatchRow) {
	dir := b.TempDir()
	for _, w := range []struct {
		name string
		open func(path string) (export.Sink[analysis.BatchRow], error)
	}{
		{"generic", func(p string) (export.Sink[analysis.BatchRow], error) {
			return export.NewParquet[analysis.BatchRow](p, "bench", nil)
		}},
		{"columnar", func(p string) (export.Sink[analysis.BatchRow], error) { return export.NewBatches(p, "bench", nil) }},
	} {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(rows)) * int64(unsafe.Sizeof(rows[0])))
			for b.Loop() {
				s, err := w.open(filepath.Join(dir, "batches.parquet"))
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < len(rows); i += 1024 {
					if err := s.Write(rows[i:min(i+1024, len(rows))]); err != nil {
						b.Fatal(err)
					}
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
			if st, err := os.Stat(filepath.Join(dir, "batches.parquet")); err == nil {
				b.ReportMetric(float64(st.Size())/float64(len(rows)), "file-B/row")
			}
		})
	}
}
