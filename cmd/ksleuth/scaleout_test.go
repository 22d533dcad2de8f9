package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// dupShards is clitest.DupShards: the scenarios in three shards.
func dupShards(t *testing.T) [3][]string { t.Helper(); return clitest.DupShards(t) }

// scanShards scans each shard into its own output dir.
func scanShards(t *testing.T, shards [3][]string, extra ...string) []string {
	t.Helper()
	var outs []string
	for i, s := range shards {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("shard-%d", i))
		mustScan(t, append(append([]string{"scan", "--records", "--progress", "never", "--out", out}, extra...), s...)...)
		outs = append(outs, out)
	}
	return outs
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := scanCmd(t, args...)
	if code != exitOK {
		t.Fatalf("ksleuth %v: exit %d\n%s\n%s", args, code, out, errs)
	}
	return out
}

// groupLines are the --json group lines of a dups run (the summary's
// spill figures depend on --mem, so it is compared separately).
func groupLines(t *testing.T, out string) (groups []string, summary pipeline.DupSummary) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, `{"type":"summary"`) {
			if err := json.Unmarshal([]byte(l), &summary); err != nil {
				t.Fatal(err)
			}
			continue
		}
		groups = append(groups, l)
	}
	return groups, summary
}

// TestDupsFromTablesShards: three shards scanned apart and merged with
// dups --from-tables give exactly the groups (members, classes,
// explanations, input numbers, sources) of one run over all the inputs,
// at any memory budget.
func TestDupsFromTablesShards(t *testing.T) {
	t.Parallel()
	shards := dupShards(t)
	all := append(append(append([]string{}, shards[0]...), shards[1]...), shards[2]...)
	outs := scanShards(t, shards)

	single := runOK(t, append([]string{"dups", "--json", "--progress", "never"}, all...)...)
	want, wantSum := groupLines(t, single)
	if len(want) < 40 {
		t.Fatalf("only %d groups in the scenarios", len(want))
	}
	for _, mem := range []string{"512MiB", "4KiB"} {
		merged := runOK(t, append([]string{"dups", "--json", "--from-tables", "--mem", mem, "--tmp", t.TempDir()}, outs...)...)
		got, gotSum := groupLines(t, merged)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("--mem %s: merged groups differ from one scan of everything:\n%s", mem, firstDiff(want, got))
		}
		if mem == "4KiB" && gotSum.SpillFiles == 0 {
			t.Errorf("--mem 4KiB did not spill")
		}
		gotSum.SpillFiles, gotSum.SpillBytes = wantSum.SpillFiles, wantSum.SpillBytes
		if gotSum.Records != wantSum.Records || gotSum.Groups != wantSum.Groups || gotSum.Duplicates != wantSum.Duplicates ||
			gotSum.Findings != wantSum.Findings || fmt.Sprint(gotSum.ByClass) != fmt.Sprint(wantSum.ByClass) {
			t.Errorf("--mem %s: summary %+v, want %+v", mem, gotSum, wantSum)
		}
	}

	// The scan's own duplicates table of everything agrees too.
	out := filepath.Join(t.TempDir(), "all")
	mustScan(t, append([]string{"scan", "--progress", "never", "--out", out}, all...)...)
	var fromTable []string
	var group []analysis.DuplicateRow
	flush := func() {
		if len(group) > 0 {
			b, _ := json.Marshal(jsonl.DupGroup{Type: "group", GroupID: group[0].GroupID, Fingerprint: group[0].Fingerprint, Members: group})
			fromTable = append(fromTable, string(b))
		}
		group = nil
	}
	for _, r := range readTable[analysis.DuplicateRow](t, filepath.Join(out, tableDups)) {
		if len(group) > 0 && r.GroupID != group[0].GroupID {
			flush()
		}
		group = append(group, r)
	}
	flush()
	if strings.Join(fromTable, "\n") != strings.Join(want, "\n") {
		t.Errorf("duplicates.parquet of one scan differs from dups:\n%s", firstDiff(want, fromTable))
	}

	// Shards in another order: the same groups, only the input numbers
	// (the order of the DIRs) change.
	rev := runOK(t, "dups", "--json", "--from-tables", outs[2], outs[0], outs[1])
	got, _ := groupLines(t, rev)
	if len(got) != len(want) {
		t.Fatalf("reordered shards: %d groups, want %d", len(got), len(want))
	}
	for i := range got {
		if stripInputs(got[i]) != stripInputs(want[i]) {
			t.Fatalf("reordered shards: group %d differs:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

func stripInputs(s string) string {
	for i := range 256 {
		s = strings.ReplaceAll(s, fmt.Sprintf(`"input":%d,`, i), `"input":_,`)
	}
	return s
}

func firstDiff(want, got []string) string { return clitest.FirstDiff(want, got) }

// TestDupsFromTablesFingerprintOptions: the --match/--ignore-header of the
// scans are read from the tables; other flags, or shards scanned with
// different options, are usage errors.
func TestDupsFromTablesFingerprintOptions(t *testing.T) {
	t.Parallel()
	shards := dupShards(t)
	all := append(append(append([]string{}, shards[0]...), shards[1]...), shards[2]...)
	outs := scanShards(t, shards, "--ignore-header", "trace-id")

	single := runOK(t, append([]string{"dups", "--json", "--progress", "never", "--ignore-header", "trace-id"}, all...)...)
	want, _ := groupLines(t, single)
	plain, _ := groupLines(t, runOK(t, append([]string{"dups", "--json", "--progress", "never"}, all...)...))
	if len(want) == len(plain) {
		t.Fatalf("--ignore-header trace-id changes nothing in the scenarios (%d groups)", len(want))
	}
	for _, args := range [][]string{nil, {"--ignore-header", "trace-id"}, {"--match", "value,headers,key", "--ignore-header", "trace-id"}} {
		merged := runOK(t, append(append([]string{"dups", "--json", "--from-tables"}, args...), outs...)...)
		got, _ := groupLines(t, merged)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v: merged groups differ:\n%s", args, firstDiff(want, got))
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--match", "key"}, "differs from the scans' --match key,value,headers, --ignore-header trace-id"},
		{[]string{"--ignore-header", "other"}, "--ignore-header other differs"},
		{nil, "scan all shards with the same --match and --ignore-header"},
	} {
		dirs := outs
		if tc.args == nil {
			other := scanShards(t, shards)
			dirs = []string{outs[0], other[1]}
		}
		out, errs, code := scanCmd(t, append(append([]string{"dups", "--from-tables"}, tc.args...), dirs...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q\n%s", tc.args, code, errs, exitUsage, tc.want, out)
		}
	}

	// A scan without --records, and the same input in two shards.
	norec := filepath.Join(t.TempDir(), "norec")
	mustScan(t, "scan", "--progress", "never", "--out", norec, shards[0][0])
	for _, dirs := range [][]string{{norec}, {outs[0], outs[0]}} {
		_, errs, code := scanCmd(t, append([]string{"dups", "--from-tables"}, dirs...)...)
		if code != exitUsage || !strings.Contains(errs, "--records") && !strings.Contains(errs, "appears in both") {
			t.Errorf("%v: exit %d, stderr %q", dirs, code, errs)
		}
	}
}

func needDuckDB(t *testing.T) (node, nodeModules string) { t.Helper(); return clitest.NeedDuckDB(t) }

func runNode(t *testing.T, node, nodeModules, dir string, args ...string) []string {
	t.Helper()
	return clitest.RunNode(t, node, nodeModules, dir, args...)
}

// TestBatchesTableDuckDB reads batches.parquet (written column by column:
// delta-encoded integer columns, dictionary strings, optional timestamps)
// with DuckDB and compares every column of every row with what ksleuth
// reads back, on the generated log dir (every magic and codec, control
// batches), a realistic segment (hundreds of batches), and a file of
// edge values (extreme integers, nulls, empty and non-ASCII strings) cut
// into pages of 7 rows and row groups of 50.
func TestBatchesTableDuckDB(t *testing.T) {
	t.Parallel()
	node, nodeModules := needDuckDB(t)
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
	for name, dir := range map[string]string{"generated": generatedDir, "realistic lz4": real} {
		out := filepath.Join(t.TempDir(), "out")
		runOK(t, "scan", dir, "--out", out, "--progress", "never")
		files[name] = filepath.Join(out, tableBatches)
	}
	for name, file := range files {
		rows := readTable[analysis.BatchRow](t, file)
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
		args := append([]string{filepath.Join("testdata", "duckdb_rows.cjs"), file,
			"ORDER BY segment, position"}, cols...)
		got := runNode(t, node, nodeModules, "", args...)
		if len(want) < 100 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: DuckDB reads %d batch rows, ksleuth wrote %d, or they differ:\n%s", name, len(got), len(want), firstDiff(want, got))
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
