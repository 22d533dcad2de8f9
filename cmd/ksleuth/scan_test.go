package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/parquet-go/parquet-go"
)

const generatedDir = "../../testdata/logdirs/generated"

// scanCmd runs ksleuth with args and returns stdout, stderr and the exit
// code.
func scanCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return runCLIWith(t, defaultSettings(), args...)
}

func mustScan(t *testing.T, args ...string) string {
	t.Helper()
	return mustScanWith(t, defaultSettings(), args...)
}

func mustScanWith(t *testing.T, set *settings, args ...string) string {
	t.Helper()
	out, errs, code := runCLIWith(t, set, args...)
	if code != exitOK {
		t.Fatalf("ksleuth %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errs)
	}
	return out
}

// readTable reads a table: one Parquet file, or every part of a
// dataset dir (records/) in path order.
func readTable[T any](t *testing.T, file string) []T {
	t.Helper()
	var all []T
	for _, f := range tableParts(t, file) {
		rows, err := parquet.ReadFile[T](f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		all = append(all, rows...)
	}
	return all
}

// tableParts lists the Parquet files of a table: the file itself, or the
// parts of a dataset dir, sorted, checking the layout
// part-<topic>-NNNNN.parquet (side by side, no subdirs).
func tableParts(t *testing.T, table string) []string {
	t.Helper()
	fi, err := os.Stat(table)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() {
		return []string{table}
	}
	layout := regexp.MustCompile(`^part-[A-Za-z0-9._%~-]*-[0-9]{5}\.parquet$`)
	var parts []string
	err = filepath.WalkDir(table, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(table, p)
		if !layout.MatchString(filepath.ToSlash(rel)) {
			t.Errorf("%s: %s is not part-<topic>-NNNNN.parquet", table, rel)
		}
		parts = append(parts, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(parts)
	return parts
}

// wantSchemas lists every column docs/tables.md names, with its Parquet type
// as parquet-go prints it.
var wantSchemas = map[string][]string{
	tableFiles: {
		"optional binary topic (STRING)", "optional int32 partition (INT(32,true))",
		"required binary path (STRING)", "required binary kind (STRING)", "required int64 size (INT(64,true))",
		"required binary sha256 (STRING)", "required binary status (STRING)",
		"optional int64 first_offset (INT(64,true))", "optional int64 last_offset (INT(64,true))",
	},
	tableBatches: {
		"required binary topic (STRING)", "required int32 partition (INT(32,true))",
		"required binary segment (STRING)", "required int64 position (INT(64,true))",
		"required int64 base_offset (INT(64,true))", "required int64 last_offset (INT(64,true))",
		"required int32 record_count (INT(32,true))", "required int32 magic (INT(32,true))",
		"required binary codec (STRING)", "required int64 size_bytes (INT(64,true))",
		"required int64 crc (INT(64,true))", "required boolean crc_valid", "required boolean is_transactional",
		"required boolean is_control", "required int32 partition_leader_epoch (INT(32,true))",
		"required int64 producer_id (INT(64,true))", "required int32 producer_epoch (INT(32,true))",
		"required int32 base_sequence (INT(32,true))",
		"optional int64 first_timestamp (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS))",
		"optional int64 max_timestamp (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS))",
	},
	tableRecords: {
		"required binary topic (STRING)", "required int32 partition (INT(32,true))",
		"required int64 offset (INT(64,true))",
		"optional int64 timestamp (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS))",
		"required int64 producer_id (INT(64,true))", "required int32 producer_epoch (INT(32,true))",
		"required int32 sequence (INT(32,true))", "required int32 key_size (INT(32,true))",
		"required int32 value_size (INT(32,true))", "required int32 header_count (INT(32,true))",
		"required binary fingerprint (STRING)", "required binary txn_state (STRING)",
		"optional binary key", "optional binary value",
		"required group headers (LIST) {", "repeated group list {", "required group element {",
		"required binary key (STRING)",
	},
	tableAnomalies: {
		"optional binary topic (STRING)", "optional int32 partition (INT(32,true))",
		"required binary kind (STRING)", "required binary severity (STRING)", "required binary file (STRING)",
		"optional int64 position (INT(64,true))", "optional int64 offset (INT(64,true))",
		"optional int64 producer_id (INT(64,true))", "required binary message (STRING)",
	},
	tableSnapshots: {
		"required binary topic (STRING)", "required int32 partition (INT(32,true))",
		"required int64 producer_id (INT(64,true))", "required int32 producer_epoch (INT(32,true))",
	},
	tableProducers: {
		"required binary topic (STRING)", "required int32 partition (INT(32,true))",
		"required int64 producer_id (INT(64,true))", "required int32 producer_epoch (INT(32,true))",
		"required int64 first_offset (INT(64,true))", "required int64 last_offset (INT(64,true))",
		"optional int64 first_timestamp (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS))",
		"optional int64 last_timestamp (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS))",
		"required int32 first_sequence (INT(32,true))", "required int32 last_sequence (INT(32,true))",
		"required int64 batches (INT(64,true))", "required int64 records (INT(64,true))",
		"required boolean is_transactional", "required int64 commits (INT(64,true))", "required int64 aborts (INT(64,true))",
		"required int64 sequence_gaps (INT(64,true))",
		"optional int32 snapshot_last_sequence (INT(32,true))", "optional int64 snapshot_last_offset (INT(64,true))",
	},
	tableDups: {
		"required int64 group_id (INT(64,true))", "required binary fingerprint (STRING)",
		"required binary topic (STRING)", "required int32 partition (INT(32,true))",
		"required int64 offset (INT(64,true))", "required int64 producer_id (INT(64,true))",
		"required int32 producer_epoch (INT(32,true))", "required int32 sequence (INT(32,true))",
		"optional int64 timestamp (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS))",
		"required int32 occurrence (INT(32,true))", "required binary class (STRING)",
		"required binary explanation (STRING)",
	},
}

func openParquet(t *testing.T, file string) *parquet.File {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// TestScanGenerated scans the committed generated log dir and checks every
// table's schema and its contents against the generator's manifest.
func TestScanGenerated(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	// The summary this prints is golden (scan_records.txt, TestGolden).
	mustScan(t, "scan", generatedDir, "--out", out, "--payload")
	for name, cols := range wantSchemas {
		pf := openParquet(t, tableParts(t, filepath.Join(out, name))[0])
		schema := pf.Schema().String()
		cols = append(cols, "required binary source (STRING)")
		if name == tableRecords {
			cols = append(cols, "required binary dir (STRING)", "required boolean damaged")
		}
		for _, c := range cols {
			if !strings.Contains(schema, c) {
				t.Errorf("%s: no column %q in\n%s", name, c, schema)
			}
		}
		kv := map[string]string{}
		for _, m := range pf.Metadata().KeyValueMetadata {
			kv[m.Key] = m.Value
		}
		for _, k := range []string{"ksleuth.version", "ksleuth.command_line", "ksleuth.inputs", "ksleuth.run_start", "ksleuth.run_end", metaSources, metaFingerprint} {
			// Parts of the records dataset may be completed before the
			// run ends; the dataset dir appears only when it did.
			if kv[k] == "" && !(name == tableRecords && k == "ksleuth.run_end") {
				t.Errorf("%s: key-value metadata %s missing", name, k)
			}
		}
		if want := `["../../testdata/logdirs/generated#broker=0"]`; kv[metaSources] != want {
			t.Errorf("%s: %s = %s, want %s", name, metaSources, kv[metaSources], want)
		}
		for _, rg := range pf.Metadata().RowGroups {
			for _, c := range rg.Columns {
				if c.MetaData.Codec.String() != "ZSTD" {
					t.Fatalf("%s: column %v compressed with %v", name, c.MetaData.PathInSchema, c.MetaData.Codec)
				}
			}
		}
	}

	m, err := segtest.LoadManifest(filepath.Join(generatedDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	batches := readTable[analysis.BatchRow](t, filepath.Join(out, tableBatches))
	records := readTable[analysis.PayloadRecordRow](t, filepath.Join(out, tableRecords))
	// parquet-go reads a null optional column of an embedded struct back
	// as a pointer to zero; the file itself holds the null (DuckDB and a
	// read as RecordRow both see it), so take the metadata columns from a
	// read as RecordRow.
	for i, r := range readTable[analysis.RecordRow](t, filepath.Join(out, tableRecords)) {
		records[i].RecordRow = r
		if r.Source != "../../testdata/logdirs/generated#broker=0" || r.Dir != path.Dir(r.Segment) || r.Damaged {
			t.Fatalf("record row %d: source %q, dir %q (segment %s), damaged %v", i, r.Source, r.Dir, r.Segment, r.Damaged)
		}
	}
	bi, ri := 0, 0
	batchAt := map[string]analysis.BatchRow{}
	for _, b := range batches {
		batchAt[b.Segment+"@"+strconv.FormatInt(b.Position, 10)] = b
	}
	recByOffset := map[string]analysis.PayloadRecordRow{}
	for _, r := range records {
		recByOffset[r.Segment+"@"+strconv.FormatInt(r.Offset, 10)] = r
	}
	if len(records) != len(recByOffset) {
		t.Errorf("%d record rows, %d distinct (segment, offset)", len(records), len(recByOffset))
	}
	for _, p := range m.Partitions {
		for _, s := range p.Segments {
			for _, e := range s.Batches {
				b, ok := batchAt[s.File+"@"+strconv.FormatInt(e.Position, 10)]
				if !ok {
					t.Errorf("%s@%d: no batch row", s.File, e.Position)
					continue
				}
				bi++
				want := analysis.BatchRow{Topic: p.Topic, Partition: p.Partition, Segment: s.File, Position: e.Position,
					BaseOffset: e.BaseOffset, LastOffset: e.LastOffset, Magic: int32(e.Magic), Codec: e.Codec.String(),
					SizeBytes: int64(e.Size), CRC: int64(e.CRC), CRCValid: true, IsTransactional: e.Transactional,
					IsControl: e.Control, ProducerID: e.ProducerID, ProducerEpoch: int32(e.ProducerEpoch),
					BaseSequence: e.BaseSequence, DecodedRecords: int32(e.Count)}
				got := analysis.BatchRow{Topic: b.Topic, Partition: b.Partition, Segment: b.Segment, Position: b.Position,
					BaseOffset: b.BaseOffset, LastOffset: b.LastOffset, Magic: b.Magic, Codec: b.Codec,
					SizeBytes: b.SizeBytes, CRC: b.CRC, CRCValid: b.CRCValid, IsTransactional: b.IsTransactional,
					IsControl: b.IsControl, ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch,
					BaseSequence: b.BaseSequence, DecodedRecords: b.DecodedRecords}
				if got != want {
					t.Errorf("batch %d:\n got %+v\nwant %+v", bi-1, got, want)
				}
				if e.Magic == 2 && deref(b.FirstTimestamp) != deref(analysis.Millis(e.FirstTimestamp)) {
					t.Errorf("batch %d: first_timestamp %v, want %d", bi-1, deref(b.FirstTimestamp), e.FirstTimestamp)
				}
				for _, r := range e.Records {
					ri++
					g, ok := recByOffset[s.File+"@"+strconv.FormatInt(r.Offset, 10)]
					if !ok {
						t.Errorf("%s offset %d: no record row", s.File, r.Offset)
						continue
					}
					if g.Sequence != r.Sequence || !bytes.Equal(g.Key, r.Key) || (g.Key == nil) != (r.Key == nil) ||
						!bytes.Equal(g.Value, r.Value) || (g.Value == nil) != (r.Value == nil) ||
						int(g.HeaderCount) != len(r.Headers) || g.BatchPosition != e.Position {
						t.Errorf("%s offset %d: got %+v, want %+v", s.File, r.Offset, g, r)
					}
					wantTs := analysis.Millis(r.Timestamp)
					if (wantTs == nil) != (g.Timestamp == nil) || (wantTs != nil && *wantTs != *g.Timestamp) {
						t.Errorf("%s offset %d: timestamp %v, want %d", s.File, r.Offset, deref(g.Timestamp), r.Timestamp)
					}
					for i, h := range r.Headers {
						if i < len(g.Headers) && (g.Headers[i].Key != h.Key || !bytes.Equal(g.Headers[i].Value, h.Value) || (g.Headers[i].Value == nil) != (h.Value == nil)) {
							t.Errorf("%s offset %d header %d: got %+v, want %+v", s.File, r.Offset, i, g.Headers[i], h)
						}
					}
				}
			}
		}
	}
	if bi != len(batches) || ri != len(records) {
		t.Errorf("%d/%d batch rows and %d/%d record rows matched the manifest", bi, len(batches), ri, len(records))
	}

	// Transactions: every record of txn-0 has a resolved state, and the
	// producer restart in idempotent-0 resent identical content.
	states := map[string]int{}
	fps := map[string]map[int64]bool{}
	for _, r := range records {
		if r.Topic == "txn" && !r.IsControl {
			states[r.TxnState]++
		}
		if r.Topic == "idempotent" && r.Partition == 0 {
			if fps[r.Fingerprint] == nil {
				fps[r.Fingerprint] = map[int64]bool{}
			}
			fps[r.Fingerprint][r.ProducerID] = true
		}
		if r.Topic != "txn" && r.TxnState != "none" {
			t.Errorf("%s@%d: txn_state %q outside txn-0", r.Segment, r.Offset, r.TxnState)
		}
	}
	if states["committed"] == 0 || states["aborted"] == 0 || states["pending"] != 0 {
		t.Errorf("txn-0 record states %v", states)
	}
	resent := 0
	for _, pids := range fps {
		if pids[3000] && pids[3001] {
			resent++
		}
	}
	if resent == 0 {
		t.Error("no fingerprint shared by producers 3000 and 3001 in idempotent-0")
	}

	// files.parquet: the SHA-256 of every file, as on disk.
	files := readTable[analysis.FileRow](t, filepath.Join(out, tableFiles))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(generatedDir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		// The compacted segment has its compaction note; the manifest is
		// not a Kafka file.
		wantStatus := "ok"
		switch f.Path {
		case "compacted-0/00000000000000000000.log":
			wantStatus = "notes"
		case "manifest.json":
			wantStatus = "other"
		}
		if f.SHA256 != hex.EncodeToString(sum[:]) || f.Size != int64(len(data)) || f.Status != wantStatus {
			t.Errorf("%s: %+v", f.Path, f)
		}
		if f.BrokerID == nil || *f.BrokerID != 0 {
			t.Errorf("%s: broker_id %v, want 0 from meta.properties", f.Path, f.BrokerID)
		}
		n++
	}
	walked := 0
	filepath.WalkDir(generatedDir, func(_ string, d fs.DirEntry, _ error) error {
		if !d.IsDir() {
			walked++
		}
		return nil
	})
	if n != walked {
		t.Errorf("%d file rows for %d files", n, walked)
	}
	// A clean log dir: the only finding is the compaction note.
	if a := readTable[analysis.AnomalyRow](t, filepath.Join(out, tableAnomalies)); len(a) != 1 || a[0].Kind != "offset-gap" || a[0].Severity != "note" ||
		a[0].File != "compacted-0/00000000000000000000.log" {
		t.Errorf("anomalies in a clean log dir: %+v", a)
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// makeArchive writes dir as a tar stream (entries in lexical order, names
// relative to dir) through the given compressor.
func makeArchive(t *testing.T, dir, dst string, compress func(io.Writer) io.WriteCloser) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var zw io.WriteCloser = nopWriteCloser{f}
	if compress != nil {
		zw = compress(f)
	}
	tw := tar.NewWriter(zw)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// allTables reads every table of an out dir as generic rows.
func allTables(t *testing.T, out string) map[string][]parquet.Row {
	t.Helper()
	got := map[string][]parquet.Row{}
	for _, name := range export.Tables {
		p := filepath.Join(out, name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		var rows []parquet.Row
		for _, part := range tableParts(t, p) {
			pf := openParquet(t, part)
			// The source column names the input as given (a dir or an
			// archive path), the one thing that differs between inputs
			// holding the same bytes.
			srcCol := -1
			if leaf, ok := pf.Schema().Lookup("source"); ok {
				srcCol = leaf.ColumnIndex
			}
			for _, rg := range pf.RowGroups() {
				rr := rg.Rows()
				buf := make([]parquet.Row, 64)
				for {
					n, err := rr.ReadRows(buf)
					for _, r := range buf[:n] {
						r = slices.DeleteFunc(r.Clone(), func(v parquet.Value) bool { return v.Column() == srcCol })
						rows = append(rows, r)
					}
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				rr.Close()
			}
		}
		got[name] = rows
	}
	return got
}

func sameTables(t *testing.T, what string, a, b map[string][]parquet.Row) {
	t.Helper()
	if len(a) != len(b) || len(a) < 4 {
		t.Fatalf("%s: %d vs %d tables", what, len(a), len(b))
	}
	for name, ra := range a {
		rb := b[name]
		if len(ra) != len(rb) {
			t.Errorf("%s: %s has %d vs %d rows", what, name, len(ra), len(rb))
			continue
		}
		for i := range ra {
			if !ra[i].Equal(rb[i]) {
				t.Errorf("%s: %s row %d differs:\n%v\n%v", what, name, i, ra[i], rb[i])
				break
			}
		}
	}
}

// TestScanArchives: the same log dir as a directory, a .tar, a .tar.gz and
// a .tar.zst gives identical tables.
func TestScanArchives(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dirOut := filepath.Join(tmp, "out-dir")
	mustScan(t, "scan", generatedDir, "--out", dirOut, "--payload")
	want := allTables(t, dirOut)
	cases := map[string]func(io.Writer) io.WriteCloser{
		"gen.tar": nil,
		"gen.tar.gz": func(w io.Writer) io.WriteCloser {
			return gzip.NewWriter(w)
		},
		"gen.tar.zst": func(w io.Writer) io.WriteCloser {
			zw, _ := zstd.NewWriter(w)
			return zw
		},
		"gen.tgz": func(w io.Writer) io.WriteCloser {
			return gzip.NewWriter(w)
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			arch := filepath.Join(tmp, name)
			makeArchive(t, generatedDir, arch, c)
			out := filepath.Join(tmp, "out-"+name)
			stdout := mustScan(t, "scan", arch, "--out", out, "--payload", "--jobs", "3")
			if !strings.Contains(stdout, "losses: none; 9 partition copies intact") {
				t.Errorf("summary:\n%s", stdout)
			}
			sameTables(t, name, want, allTables(t, out))
		})
	}
}

// TestScanJobs: --jobs 1 and --jobs 4 give identical tables, on the
// generated dir and on the real corpus source with the most batches.
func TestScanJobs(t *testing.T) {
	t.Parallel()
	inputs := []string{generatedDir}
	if real := corpusPath(t, "real"); real != "" {
		inputs = append(inputs, filepath.Join(real, "rjmfernandes__flink-on-prem"), filepath.Join(real, "ArthurArutunyan04__Backend_labs"))
	}
	tmp := t.TempDir()
	var tables []map[string][]parquet.Row
	for _, jobs := range []string{"1", "4"} {
		out := filepath.Join(tmp, "jobs"+jobs)
		mustScan(t, append([]string{"scan", "--out", out, "--payload", "--jobs", jobs}, inputs...)...)
		tables = append(tables, allTables(t, out))
	}
	sameTables(t, "jobs 1 vs 4", tables[0], tables[1])
}

func corpusPath(t *testing.T, sub string) string {
	dir := filepath.Join("..", "..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus %s missing in CI", dir)
		}
		return ""
	}
	return dir
}

// TestScanCancel: cancelling after the first segment leaves no file with a
// final table name, and no temporary file either.
func TestScanCancel(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	segs := 0
	set := defaultSettings()
	set.fileDone = func(_ context.Context, p string) {
		if strings.HasSuffix(p, ".log") {
			segs++
			cancel()
		}
	}
	root := newRootCmd(set)
	root.SetArgs([]string{"scan", generatedDir, "--out", out, "--records", "--jobs", "2"})
	var so, se bytes.Buffer
	root.SetOut(&so)
	root.SetErr(&se)
	err := root.ExecuteContext(ctx)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want an interrupted scan", err)
	}
	if segs == 0 {
		t.Fatal("hook never ran")
	}
	left, _ := os.ReadDir(out)
	for _, e := range left {
		t.Errorf("left behind: %s", e.Name())
	}
	if so.Len() != 0 {
		t.Errorf("summary printed for an interrupted scan:\n%s", so.String())
	}
}

// TestScanRefusesOut: --out inside an input, or over existing tables.
func TestScanRefusesOut(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "logs")
	if err := os.CopyFS(in, os.DirFS(filepath.Join(generatedDir, "codecs-0"))); err != nil {
		t.Fatal(err)
	}
	if _, _, code := scanCmd(t, "scan", in, "--out", filepath.Join(in, "out")); code != exitUsage {
		t.Errorf("--out inside the input: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(in, "out")); err == nil {
		t.Error("created a dir inside the input")
	}
	if _, _, code := scanCmd(t, "scan", in); code != exitUsage {
		t.Errorf("no --out: exit %d", code)
	}
	out := filepath.Join(tmp, "out")
	mustScan(t, "scan", in, "--out", out, "--records")
	if _, _, code := scanCmd(t, "scan", in, "--out", out); code != exitUsage {
		t.Errorf("--out over tables: exit %d", code)
	}
	mustScan(t, "scan", in, "--out", out, "--force")
	if _, err := os.Stat(filepath.Join(out, tableRecords)); err == nil {
		t.Error("--force kept a stale records dataset")
	}
	if _, _, code := scanCmd(t, "scan", in, "--out", out, "--force", "--progress", "sometimes"); code != exitUsage {
		t.Errorf("bad --progress: exit %d", code)
	}
	if _, _, code := scanCmd(t, "scan", in, "--out", out, "--force", "--topic", "("); code != exitUsage {
		t.Errorf("bad --topic: exit %d", code)
	}
}

// manifestCounts reads MANIFEST.md's "- `path`: segments [...]; N
// batches/messages, M records" lines, keyed by source/partition-path.
func manifestCounts(t *testing.T, root string) map[string][2]int64 {
	f, err := os.Open(filepath.Join(root, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	source := regexp.MustCompile("^## ([^ ]+)/([^ ]+)$")
	part := regexp.MustCompile("^ *- `([^`]+)`: segments \\[[^]]*\\]; ([0-9]+) batches/messages, ([0-9]+) records")
	out := map[string][2]int64{}
	cur := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if m := source.FindStringSubmatch(sc.Text()); m != nil {
			cur = m[1] + "__" + m[2]
		} else if m := part.FindStringSubmatch(sc.Text()); m != nil && cur != "" {
			b, _ := strconv.ParseInt(m[2], 10, 64)
			r, _ := strconv.ParseInt(m[3], 10, 64)
			out[cur+"/"+m[1]] = [2]int64{b, r}
		}
	}
	return out
}

// TestScanRealCorpus scans every source of the real broker corpus in one
// run and checks the batch and record counts against MANIFEST.md (which
// counts .log.deleted/.log.swap files with their partition, and not KRaft
// snapshots).
func TestScanRealCorpus(t *testing.T) {
	t.Parallel()
	root := corpusPath(t, "real")
	if root == "" {
		t.Skip("corpus not present")
	}
	want := manifestCounts(t, root)
	if len(want) < 100 {
		t.Fatalf("parsed only %d lines of MANIFEST.md", len(want))
	}
	ents, _ := os.ReadDir(root)
	var sources []string
	for _, e := range ents {
		if e.IsDir() {
			sources = append(sources, e.Name())
		}
	}
	sort.Strings(sources)
	args := []string{"scan", "--out", filepath.Join(t.TempDir(), "out"), "--records"}
	for _, s := range sources {
		args = append(args, filepath.Join(root, s))
	}
	out := args[2]
	stdout := mustScan(t, args...)
	files := readTable[analysis.FileRow](t, filepath.Join(out, tableFiles))
	kinds := map[string]string{}
	transit := map[string]bool{}
	for _, f := range files {
		kinds[strconv.Itoa(int(f.Input))+"/"+f.Path] = f.Kind
		if f.Suffix != "" { // segments in transit are not the partition's records
			transit[strconv.Itoa(int(f.Input))+"/"+f.Path] = true
		}
		// Warnings are the corpus's own (TestVerifyRealCorpus names them);
		// nothing there is damaged.
		if f.Status != "ok" && f.Status != "notes" && f.Status != "warnings" && f.Status != "other" {
			t.Errorf("%s/%s: status %s", sources[f.Input], f.Path, f.Status)
		}
	}
	got := map[string][2]int64{}
	var live int64
	for _, b := range readTable[analysis.BatchRow](t, filepath.Join(out, tableBatches)) {
		if kinds[strconv.Itoa(int(b.Input))+"/"+b.Segment] != "log" {
			continue
		}
		k := sources[b.Input] + "/" + path.Dir(b.Segment)
		c := got[k]
		got[k] = [2]int64{c[0] + 1, c[1] + int64(b.DecodedRecords)}
		if !transit[strconv.Itoa(int(b.Input))+"/"+b.Segment] {
			live += int64(b.DecodedRecords)
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %d batches, %d records; MANIFEST.md says %d, %d", k, got[k][0], got[k][1], w[0], w[1])
		}
	}
	recs := readTable[analysis.RecordRow](t, filepath.Join(out, tableRecords))
	if int64(len(recs)) < live {
		t.Errorf("%d record rows, fewer than the %d records of live .log files", len(recs), live)
	}
	for _, a := range readTable[analysis.AnomalyRow](t, filepath.Join(out, tableAnomalies)) {
		if a.Severity == "error" {
			t.Errorf("anomaly in the real corpus: %+v", a)
		}
	}
	if !strings.Contains(stdout, "findings: 0 errors") {
		t.Errorf("summary:\n%s", stdout)
	}
	t.Logf("%d sources, %d partitions checked against MANIFEST.md, %d files, %d record rows", len(sources), len(want), len(files), len(recs))
}

// TestScanDamaged: a flipped byte in the middle of a segment is an
// anomaly with file and byte position, the file is "damaged", the batches
// after it are still read, and --fail-on-findings exits 3.
func TestScanDamaged(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "logs", "codecs-0")
	if err := os.CopyFS(in, os.DirFS(filepath.Join(generatedDir, "codecs-0"))); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(in, "00000000000000000000.log")
	data, _ := os.ReadFile(seg)
	data[700] ^= 0x40
	os.Chmod(seg, 0o644)
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	stdout, _, code := scanCmd(t, "scan", filepath.Join(tmp, "logs"), "--out", out, "--fail-on-findings")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\n%s", code, exitFindings, stdout)
	}
	an := readTable[analysis.AnomalyRow](t, filepath.Join(out, tableAnomalies))
	if len(an) == 0 || an[0].Severity != "error" || an[0].Position == nil || *an[0].Position > 700 || an[0].File != "codecs-0/00000000000000000000.log" {
		t.Fatalf("anomalies %+v", an)
	}
	files := readTable[analysis.FileRow](t, filepath.Join(out, tableFiles))
	for _, f := range files {
		if f.Path == "codecs-0/00000000000000000000.log" && f.Status != "damaged" {
			t.Errorf("status %s", f.Status)
		}
	}
	batches := readTable[analysis.BatchRow](t, filepath.Join(out, tableBatches))
	if len(batches) < 17 {
		t.Errorf("%d batches read around the damage, want at least 17 of 18", len(batches))
	}
	if !regexp.MustCompile(`error +crc-mismatch +1`).MatchString(stdout) {
		t.Errorf("summary:\n%s", stdout)
	}
}

// TestScanHashNone: --hash none leaves files.parquet's sha256 empty and
// changes nothing else; a bad --hash value is a usage error.
func TestScanHashNone(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	hashed, unhashed := filepath.Join(tmp, "sha256"), filepath.Join(tmp, "none")
	runOK(t, "scan", generatedDir, "--out", hashed, "--progress", "never")
	runOK(t, "scan", generatedDir, "--out", unhashed, "--progress", "never", "--hash", "none")
	a := readTable[analysis.FileRow](t, filepath.Join(hashed, tableFiles))
	b := readTable[analysis.FileRow](t, filepath.Join(unhashed, tableFiles))
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d files hashed, %d not", len(a), len(b))
	}
	for i := range b {
		if b[i].SHA256 != "" || a[i].SHA256 == "" {
			t.Errorf("%s: sha256 %q with --hash none, %q without", b[i].Path, b[i].SHA256, a[i].SHA256)
		}
		a[i].SHA256 = ""
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Errorf("%s: row differs beyond sha256:\n%+v\n%+v", a[i].Path, a[i], b[i])
		}
	}
	if x, y := readTable[analysis.BatchRow](t, filepath.Join(hashed, tableBatches)), readTable[analysis.BatchRow](t, filepath.Join(unhashed, tableBatches)); !reflect.DeepEqual(x, y) {
		t.Error("batches.parquet differs with --hash none")
	}
	if code := run([]string{"scan", generatedDir, "--out", filepath.Join(tmp, "bad"), "--hash", "md5"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("--hash md5: exit %d, want 2", code)
	}
}

// TestScanCompactEqualsRows: without --records the scan feeds the
// duplicate detector compact entries instead of record rows; the
// duplicates and producers tables must be exactly those of a scan that
// builds the rows (--records), on the sample (transactions committed and
// aborted) and on every duplicate scenario (txn-retry needs the aborted
// state, damaged batches, PID -1).
func TestScanCompactEqualsRows(t *testing.T) {
	t.Parallel()
	scenarios, _ := genDupScenarios(t)
	for _, dir := range []string{generatedDir, scenarios} {
		tmp := t.TempDir()
		compact, rows := filepath.Join(tmp, "compact"), filepath.Join(tmp, "rows")
		runOK(t, "scan", dir, "--out", compact, "--progress", "never")
		runOK(t, "scan", dir, "--out", rows, "--progress", "never", "--records")
		dc := readTable[analysis.DuplicateRow](t, filepath.Join(compact, tableDups))
		dr := readTable[analysis.DuplicateRow](t, filepath.Join(rows, tableDups))
		if len(dc) == 0 || !reflect.DeepEqual(dc, dr) {
			t.Errorf("%s: %d duplicate rows from entries, %d from rows, or they differ", dir, len(dc), len(dr))
		}
		pc := readTable[analysis.ProducerRow](t, filepath.Join(compact, tableProducers))
		pr := readTable[analysis.ProducerRow](t, filepath.Join(rows, tableProducers))
		if len(pc) == 0 || !reflect.DeepEqual(pc, pr) {
			t.Errorf("%s: %d producer rows from entries, %d from rows, or they differ", dir, len(pc), len(pr))
		}
		classes := map[string]int{}
		for _, d := range dc {
			classes[d.Class]++
		}
		t.Logf("%s: %d duplicate rows, classes %v", filepath.Base(dir), len(dc), classes)
	}
}

// TestScanHeldSpill: with a one-byte budget for the records of unfinished
// transactions, every held record goes through the temporary file, and
// the tables (records with payload, duplicates, transactions) are the
// same as with everything held in memory; --tmp gets the file and is
// left empty.
func TestScanHeldSpill(t *testing.T) {
	t.Parallel()
	in := "../../../shared/corpus/thirdparty/v2-aborted-txn-franz"
	tmp := t.TempDir()
	for _, flags := range [][]string{{"--payload"}, nil} {
		t.Run(strings.Join(append([]string{"flags"}, flags...), " "), func(t *testing.T) {
			base := filepath.Join(tmp, "base")
			mustScan(t, append([]string{"scan", in, "--out", base, "--force"}, flags...)...)
			spillDir := t.TempDir()
			set := defaultSettings()
			set.heldBudget = 1
			out := filepath.Join(tmp, "spill")
			mustScanWith(t, set, append([]string{"scan", in, "--out", out, "--force", "--tmp", spillDir}, flags...)...)
			sameTables(t, "held in a file", allTables(t, base), allTables(t, out))
			if left, _ := os.ReadDir(spillDir); len(left) != 0 {
				t.Fatalf("the scan left %d files in --tmp", len(left))
			}
		})
	}
}

// TestScanHangingTransaction: a partition written by one transactional
// producer whose transaction never ends (segtest.RealisticOpenTxn). Every
// record is held to the end of the run, through the temporary file with a
// small budget, and comes out once, in offset order, as open.
func TestScanHangingTransaction(t *testing.T) {
	t.Parallel()
	in := filepath.Join(t.TempDir(), "logs")
	part := filepath.Join(in, "orders-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := segtest.RealisticOpenTxn(segtest.CodecLZ4, 600<<10, 3)
	if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	set := defaultSettings()
	set.heldBudget = 16 << 10
	out := filepath.Join(t.TempDir(), "out")
	stdout := mustScanWith(t, set, "scan", in, "--out", out, "--records", "--tmp", t.TempDir())
	if !strings.Contains(stdout, "producer sessions: 1, 1 with a transaction still open at the end of the input") {
		t.Errorf("the summary does not point at the open transaction:\n%s", stdout)
	}
	batches := readTable[analysis.BatchRow](t, filepath.Join(out, tableBatches))
	var want int64
	for _, b := range batches {
		if !b.IsTransactional || b.ProducerID != 7000 {
			t.Fatalf("batch at %d: transactional %v, producer %d", b.Position, b.IsTransactional, b.ProducerID)
		}
		want += int64(b.RecordCount)
	}
	recs := readTable[analysis.RecordRow](t, filepath.Join(out, tableRecords))
	if int64(len(recs)) != want || want < 100 {
		t.Fatalf("%d record rows, the batches hold %d", len(recs), want)
	}
	for i, r := range recs {
		if r.TxnState != "open" || r.Offset != int64(i) {
			t.Fatalf("row %d: offset %d, txn_state %q", i, r.Offset, r.TxnState)
		}
	}
}
