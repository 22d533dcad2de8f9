package duckdb

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/enginecheck"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestBatchesTableDuckDB reads batches.parquet (written column by column:
// delta-encoded integer columns, dictionary strings, optional timestamps)
// with DuckDB and compares every column of every row with what ksleuth
// reads back, on the generated log dir (every magic and codec, control
// batches), a realistic segment (hundreds of batches), and a file of
// edge values (extreme integers, nulls, empty and non-ASCII strings) cut
// into pages of 7 rows and row groups of 50.
func TestBatchesTableDuckDB(t *testing.T) {
	t.Parallel()
	node, nodeModules := clitest.NeedDuckDB(t)
	real := t.TempDir()
	part := filepath.Join(real, "orders-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), segtest.RealisticSegment(segtest.CodecLZ4, 4<<20, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	cols := []string{"input", "source", "topic", "partition", "segment", "position", "base_offset", "last_offset",
		"record_count", "magic", "codec", "size_bytes", "crc", "crc_valid", "is_transactional", "is_control",
		"partition_leader_epoch", "producer_id", "producer_epoch", "base_sequence", "epoch_ms(first_timestamp)",
		"epoch_ms(max_timestamp)", "timestamp_type", "decoded_records", "control_type"}
	files := map[string]string{"edge values, small pages": filepath.Join(t.TempDir(), "edge.parquet")}
	writeEdgeBatches(t, files["edge values, small pages"])
	for name, dir := range map[string]string{"generated": enginecheck.GeneratedDir, "realistic lz4": real} {
		out := filepath.Join(t.TempDir(), "out")
		clitest.MustRun(t, "scan", dir, "--out", out, "--progress", "never")
		files[name] = filepath.Join(out, export.Batches)
	}
	for name, file := range files {
		rows := clitest.ReadTable[analysis.BatchRow](t, file)
		sort.SliceStable(rows, func(i, j int) bool {
			if rows[i].Segment != rows[j].Segment {
				return rows[i].Segment < rows[j].Segment
			}
			return rows[i].Position < rows[j].Position
		})
		ts := func(p *int64) string {
			if p == nil {
				return ""
			}
			return fmt.Sprint(*p)
		}
		var want []string
		for _, b := range rows {
			want = append(want, strings.Join([]string{fmt.Sprint(b.Input), b.Source, b.Topic, fmt.Sprint(b.Partition), b.Segment,
				fmt.Sprint(b.Position), fmt.Sprint(b.BaseOffset), fmt.Sprint(b.LastOffset), fmt.Sprint(b.RecordCount),
				fmt.Sprint(b.Magic), b.Codec, fmt.Sprint(b.SizeBytes), fmt.Sprint(b.CRC), fmt.Sprint(b.CRCValid),
				fmt.Sprint(b.IsTransactional), fmt.Sprint(b.IsControl), fmt.Sprint(b.PartitionLeaderEpoch),
				fmt.Sprint(b.ProducerID), fmt.Sprint(b.ProducerEpoch), fmt.Sprint(b.BaseSequence), ts(b.FirstTimestamp),
				ts(b.MaxTimestamp), b.TimestampType, fmt.Sprint(b.DecodedRecords), b.ControlType}, "|"))
		}
		args := append([]string{enginecheck.Script("duckdb_rows.cjs"), file,
			"ORDER BY segment, position"}, cols...)
		got := clitest.RunNode(t, node, nodeModules, "", args...)
		if len(want) < 100 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: DuckDB reads %d batch rows, ksleuth wrote %d, or they differ:\n%s", name, len(got), len(want), clitest.FirstDiff(want, got))
		}
		t.Logf("%s: %d batch rows identical in DuckDB", name, len(got))
	}
}

// writeEdgeBatches writes a batches table of 600 rows of edge values in
// pages of 7 rows and row groups of 50, positions unique so that DuckDB's
// order is the test's.
func writeEdgeBatches(t *testing.T, path string) {
	t.Helper()
	strs := []string{"", "orders", "paiements-é", "z", "a/b c", "orders-3/00000000000000000000.log"}
	ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 1 << 40, 12345}
	// Timestamps DuckDB can hold (microseconds in an int64): year 1 to 9999.
	times := []int64{0, -1, 1_700_000_000_000, -62_135_596_800_000, 253_402_300_799_999}
	rows := make([]analysis.BatchRow, 600)
	for i := range rows {
		v := ints[i%len(ints)]
		w := ints[(i*7+3)%len(ints)]
		var first, max *int64
		if i%5 != 0 {
			first = &times[i%len(times)]
		}
		if i%7 != 0 {
			max = &times[(i/3)%len(times)]
		}
		rows[i] = analysis.BatchRow{Input: int32(v), Source: strs[i/100%len(strs)], Topic: strs[i%len(strs)], Partition: int32(w),
			Segment: strs[i/40%len(strs)], Position: int64(i), BaseOffset: v, LastOffset: w, RecordCount: int32(w),
			Magic: int32(i % 3), Codec: strs[(i/3)%len(strs)], SizeBytes: w, CRC: int64(uint32(i) * 2654435761),
			CRCValid: i%11 != 0, IsTransactional: i%2 == 0, IsControl: i%13 == 0, PartitionLeaderEpoch: int32(v),
			ProducerID: w, ProducerEpoch: int32(v), BaseSequence: int32(w), FirstTimestamp: first, MaxTimestamp: max,
			TimestampType: strs[i%2], DecodedRecords: int32(v), ControlType: strs[(i*5)%len(strs)]}
	}
	s, err := export.NewColumnar[analysis.BatchRow](path, "test", nil, 7, 50)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rows); i += 64 {
		if err := s.Write(rows[i:min(i+64, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
