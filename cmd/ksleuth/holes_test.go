package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// holeAt is where the data after the hole of middleHoleDir resumes.
const holeAt = int64(1) << 40

// middleHoleDir writes a partition dir whose one segment has 5 batches
// of producer 7, a hole of a terabyte, and 4 more batches of the same
// session (offsets 5 to 8) from byte holeAt on: 1 TiB apparent, a few KB
// on disk. It skips (fails in CI) where the file system cannot tell holes.
func middleHoleDir(t *testing.T) (dir, seg string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "logs")
	seg = filepath.Join(dir, "t-0", segtest.SegmentFileName(0))
	os.MkdirAll(filepath.Dir(seg), 0o755)
	batch := func(i int) []byte {
		return segtest.Batch{Magic: 2, BaseOffset: int64(i), FirstTimestamp: 1_700_000_000_000 + int64(i),
			Producer: &segtest.Producer{ID: 7, BaseSequence: int32(i)}, Records: []segtest.Record{{Value: []byte("v")}}}.Encode()
	}
	var head, tail []byte
	for i := range 5 {
		head = append(head, batch(i)...)
	}
	for i := 5; i < 9; i++ {
		tail = append(tail, batch(i)...)
	}
	if err := os.WriteFile(seg, head, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(seg, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.WriteAt(tail, holeAt)
	st, _ := f.Stat()
	ranges := source.FileDataRanges(f, st.Size())
	if err != nil || len(source.Holes(ranges, st.Size())) == 0 {
		msg := "the temp dir's file system holds no sparse file with SEEK_DATA/SEEK_HOLE"
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (write: %v)", msg, err)
		}
		t.Skipf("SKIPPED: %s (write: %v)", msg, err)
	}
	return dir, seg
}

// runBinaryBounded runs the binary for at most a minute: a command that
// reads the hole through instead of passing it is killed, not waited for.
func runBinaryBounded(t *testing.T, args ...string) (string, int, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ksleuthBinary(t), args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	cmd.Run()
	d := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("%v: killed after %v: the hole was read, not passed\n%s", args, d, se.String())
	}
	return so.String(), cmd.ProcessState.ExitCode(), d
}

// jsonLines decodes stdout's JSON lines of the given type.
func jsonLines(t *testing.T, out, typ string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		if m["type"] == typ {
			rows = append(rows, m)
		}
	}
	return rows
}

// holeFindingOK: one sparse-hole error starting in the first block (after
// the 5 batches, the block's zeros with it) that says where reading went
// on.
func holeFindingOK(t *testing.T, cmd string, findings []map[string]any) {
	t.Helper()
	var holes []map[string]any
	for _, f := range findings {
		if f["kind"] == "sparse-hole" {
			holes = append(holes, f)
		}
	}
	if len(holes) != 1 || holes[0]["severity"] != "error" || holes[0]["position"].(float64) >= 4096 ||
		!strings.Contains(holes[0]["message"].(string), "reading goes on at byte 1099511627776") {
		t.Errorf("%s: sparse-hole findings %v (of %v)", cmd, holes, findings)
	}
}

// TestMiddleHoleCommands: every command passes a terabyte hole in the
// middle of a segment in seconds, reports it as one sparse-hole finding,
// and reads the batches after it.
func TestMiddleHoleCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	dir, seg := middleHoleDir(t)
	outs := t.TempDir()

	out, code, d := runBinaryBounded(t, "verify", dir, "--json")
	t.Logf("verify: %v", d)
	if sum := jsonLines(t, out, "summary"); code != exitFindings || len(sum) != 1 || sum[0]["batches"] != 9.0 {
		t.Errorf("verify: exit %d, summary %v", code, sum)
	}
	holeFindingOK(t, "verify", jsonLines(t, out, "finding"))

	out, code, d = runBinaryBounded(t, "dump", seg, "--json")
	t.Logf("dump: %v", d)
	if b := jsonLines(t, out, "batch"); code != 0 || len(b) != 9 || b[8]["base_offset"] != 8.0 || b[5]["position"] != float64(holeAt) {
		t.Errorf("dump: exit %d, %d batches: %v", code, len(b), b)
	}
	holeFindingOK(t, "dump", jsonLines(t, out, "finding"))

	tables := filepath.Join(outs, "out")
	out, code, d = runBinaryBounded(t, "scan", dir, "--out", tables, "--json")
	t.Logf("scan: %v", d)
	if sum := jsonLines(t, out, "summary"); code != 0 || len(sum) != 1 || sum[0]["batches"] != 9.0 {
		t.Errorf("scan: exit %d, summary %v", code, sum)
	}
	batches := readTable[analysis.BatchRow](t, filepath.Join(tables, tableBatches))
	if len(batches) != 9 || batches[8].Position < holeAt {
		t.Errorf("scan: batches %+v", batches)
	}
	var found []map[string]any
	for _, a := range readTable[analysis.AnomalyRow](t, filepath.Join(tables, "anomalies.parquet")) {
		f := map[string]any{"kind": string(a.Kind), "severity": string(a.Severity), "message": a.Message, "position": -1.0}
		if a.Position != nil {
			f["position"] = float64(*a.Position)
		}
		found = append(found, f)
	}
	holeFindingOK(t, "scan", found)
	st, _ := os.Stat(seg)
	for _, f := range readTable[analysis.FileRow](t, filepath.Join(tables, tableFiles)) {
		if strings.HasSuffix(f.Path, ".log") && (f.Batches != 9 || f.Size != st.Size() || f.Status != "damaged" || f.SHA256 != "") {
			t.Errorf("scan: file row %+v", f)
		}
	}

	out, code, d = runBinaryBounded(t, "records", dir, "--json")
	t.Logf("records: %v", d)
	if recs := jsonLines(t, out, "record"); code != 0 || len(recs) != 9 || recs[8]["offset"] != 8.0 {
		t.Errorf("records: exit %d, %d records: %v", code, len(recs), recs)
	}
	holeFindingOK(t, "records", jsonLines(t, out, "finding"))

	out, code, d = runBinaryBounded(t, "producers", dir, "--json")
	t.Logf("producers: %v", d)
	s := jsonLines(t, out, "session")
	if code != 0 || len(s) != 1 || s[0]["batches"] != 9.0 || s[0]["last_offset"] != 8.0 || s[0]["sequence_gaps"] != 0.0 {
		t.Errorf("producers: exit %d, sessions %v", code, s)
	}

	out, code, d = runBinaryBounded(t, "dups", dir, "--json")
	t.Logf("dups: %v", d)
	if sum := jsonLines(t, out, "summary"); code != 0 || len(sum) != 1 || sum[0]["records"] != 9.0 {
		t.Errorf("dups: exit %d, summary %v", code, sum)
	}

	out, code, d = runBinaryBounded(t, "report", dir, "--html", filepath.Join(outs, "r.html"), "--json")
	t.Logf("report: %v", d)
	r := jsonLines(t, out, "report")
	if code != 0 || len(r) != 1 || r[0]["batches"] != 9.0 {
		t.Fatalf("report: exit %d, %v", code, r)
	}
	var anomalies []map[string]any
	for _, a := range r[0]["anomalies"].([]any) {
		anomalies = append(anomalies, a.(map[string]any))
	}
	holeFindingOK(t, "report", anomalies)
}
