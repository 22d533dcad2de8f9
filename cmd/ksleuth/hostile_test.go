package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// Hostile archives and dirs: entries that try to leave the input, links,
// devices, duplicates, a truncated stream, files that cannot be read. Each
// is reported, nothing is followed out of the input, nothing is written
// anywhere but the tables, and the rest of the input is still scanned.

func segmentBytes(base int64, value string) []byte {
	return segtest.Batch{Magic: 2, BaseOffset: base, AutoDeltas: true, FirstTimestamp: 1700000000000,
		Records: []segtest.Record{{Key: []byte("k"), Value: []byte(value)}}}.Encode()
}

type tarEntry struct {
	h    tar.Header
	data []byte
}

func writeTar(t *testing.T, w io.Writer, entries []tarEntry) {
	t.Helper()
	tw := tar.NewWriter(w)
	for _, e := range entries {
		h := e.h
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.data))
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
		if len(e.data) > 0 {
			if _, err := tw.Write(e.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestHostileArchive(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	// The archive sits in its own dir, and the names it holds would land
	// next to it, or at /tmp, if anything extracted them.
	archDir := filepath.Join(tmp, "evidence")
	os.Mkdir(archDir, 0o755)
	seg0 := segmentBytes(0, "first")
	dupA, dupB := segmentBytes(0, "copy A"), segmentBytes(0, "copy B, a different length")
	entries := []tarEntry{
		{h: tar.Header{Typeflag: tar.TypeDir, Name: "good-0/"}},
		{h: tar.Header{Typeflag: tar.TypeReg, Name: "good-0/00000000000000000000.log"}, data: seg0},
		{h: tar.Header{Typeflag: tar.TypeReg, Name: "../escape-0/00000000000000000000.log"}, data: seg0},
		{h: tar.Header{Typeflag: tar.TypeReg, Name: "good-0/../../../escape-1/00000000000000000000.log"}, data: seg0},
		{h: tar.Header{Typeflag: tar.TypeReg, Name: "/tmp/ksleuth-absolute-0/00000000000000000000.log"}, data: seg0},
		{h: tar.Header{Typeflag: tar.TypeSymlink, Name: "good-0/00000000000000000001.log", Linkname: "/etc/passwd"}},
		{h: tar.Header{Typeflag: tar.TypeSymlink, Name: "good-0/up", Linkname: "../../.."}},
		{h: tar.Header{Typeflag: tar.TypeLink, Name: "good-0/00000000000000000002.log", Linkname: "/etc/shadow"}},
		{h: tar.Header{Typeflag: tar.TypeLink, Name: "good-0/00000000000000000003.log", Linkname: "good-0/00000000000000000000.log"}},
		{h: tar.Header{Typeflag: tar.TypeChar, Name: "good-0/00000000000000000004.log", Devmajor: 1, Devminor: 3}},
		{h: tar.Header{Typeflag: tar.TypeBlock, Name: "good-0/sda", Devmajor: 8}},
		{h: tar.Header{Typeflag: tar.TypeFifo, Name: "good-0/fifo"}},
		{h: tar.Header{Typeflag: tar.TypeReg, Name: "dup-0/00000000000000000000.log"}, data: dupA},
		{h: tar.Header{Typeflag: tar.TypeReg, Name: "dup-0/00000000000000000000.log"}, data: dupB},
		{h: tar.Header{Typeflag: tar.TypeReg, Name: "./dup-0//00000000000000000000.log"}, data: dupA},
		{h: tar.Header{Typeflag: tar.TypeReg, Name: "last-0/00000000000000000000.log"}, data: seg0},
	}
	var buf bytes.Buffer
	writeTar(t, &buf, entries)
	arch := filepath.Join(archDir, "hostile.tar")
	if err := os.WriteFile(arch, buf.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	before := evidenceState(t, tmp)
	wd, _ := os.Getwd()
	cwdBefore := evidenceState(t, wd)
	out := filepath.Join(t.TempDir(), "out")

	stdout, stderr, code := runCLI(t, "scan", arch, "--out", out, "--fail-on-findings")
	if code != exitOK && code != exitFindings {
		t.Fatalf("exit %d\n%s\n%s", code, stderr, stdout)
	}
	compareEvidence(t, "hostile archive", before, evidenceState(t, tmp))
	compareEvidence(t, "working dir", cwdBefore, evidenceState(t, wd))
	for _, p := range []string{"/tmp/ksleuth-absolute-0", filepath.Join(tmp, "escape-0"), filepath.Join(filepath.Dir(tmp), "escape-1"), "/escape-1"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	names, _ := os.ReadDir(out)
	for _, n := range names {
		if !strings.HasSuffix(n.Name(), ".parquet") && n.Name() != export.Manifest {
			t.Errorf("unexpected file in --out: %s", n.Name())
		}
	}

	files := readTable[analysis.FileRow](t, filepath.Join(out, tableFiles))
	anomalies := readTable[analysis.AnomalyRow](t, filepath.Join(out, tableAnomalies))
	batches := readTable[analysis.BatchRow](t, filepath.Join(out, tableBatches))
	status := map[string][]string{}
	for _, f := range files {
		status[f.Path] = append(status[f.Path], f.Status)
	}
	about := func(path string) []string {
		var out []string
		for _, a := range anomalies {
			if a.File == path {
				out = append(out, string(a.Kind)+": "+a.Message)
			}
		}
		return out
	}
	t.Logf("files: %v", status)
	for _, a := range anomalies {
		t.Logf("anomaly %s %s %s: %s", a.Severity, a.Kind, a.File, a.Message)
	}
	// Links and devices: listed, reported, never opened. Skipped, but for
	// those named like segments that hold no data of the archive's (a
	// link out of it, a device): those are the broker's files missing
	// from the evidence, unreadable.
	missing := map[string]bool{"good-0/00000000000000000001.log": true, "good-0/00000000000000000002.log": true, "good-0/00000000000000000004.log": true}
	for _, p := range []string{"good-0/00000000000000000001.log", "good-0/up", "good-0/00000000000000000002.log",
		"good-0/00000000000000000003.log", "good-0/00000000000000000004.log", "good-0/sda", "good-0/fifo"} {
		want := "[skipped]"
		if missing[p] {
			want = "[unreadable]"
		}
		if fmt.Sprint(status[p]) != want || len(about(p)) == 0 {
			t.Errorf("%s: status %v, anomalies %v; want %s and reported", p, status[p], about(p), want)
		}
	}
	// Names that leave the archive root are read as data (the bytes are
	// evidence too), under their cleaned name, and reported.
	for _, p := range []string{"escape-0/00000000000000000000.log", "escape-1/00000000000000000000.log", "tmp/ksleuth-absolute-0/00000000000000000000.log"} {
		found := false
		for _, a := range about(p) {
			found = found || strings.Contains(a, "unsafe-path")
		}
		if len(status[p]) != 1 || !found {
			t.Errorf("%s: status %v, anomalies %v; want read and an unsafe-path finding", p, status[p], about(p))
		}
	}
	// Duplicate names: every copy is read and the later ones reported.
	if p := "dup-0/00000000000000000000.log"; len(status[p]) != 3 || len(about(p)) < 2 {
		t.Errorf("%s: status %v, anomalies %v; want 3 copies, the later 2 reported", p, status[p], about(p))
	}
	// Everything readable was read: good-0, the 3 escapes, 3 dups, last-0.
	if len(batches) != 8 {
		t.Errorf("%d batches, want 8", len(batches))
	}
	// Name problems are warnings, links and devices notes, but for the
	// segments missing from the archive: io-errors.
	for _, a := range anomalies {
		if a.Severity == "error" && (a.Kind != "io-error" || !missing[a.File]) {
			t.Errorf("error finding: %s %s: %s", a.Kind, a.File, a.Message)
		}
	}
	if code != exitFindings {
		t.Errorf("exit %d with --fail-on-findings, want %d (warnings)", code, exitFindings)
	}
}

// TestTruncatedArchive: a .tar.zst cut short is a finding about the
// archive; the entries before the cut are scanned, and the run completes.
func TestTruncatedArchive(t *testing.T) {
	t.Parallel()
	var tb bytes.Buffer
	var entries []tarEntry
	for i := 0; i < 6; i++ {
		entries = append(entries, tarEntry{h: tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("p-%d/00000000000000000000.log", i)},
			data: segmentBytes(0, strings.Repeat(fmt.Sprint(i), 3000))})
	}
	writeTar(t, &tb, entries)
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<10))
	zw.Write(tb.Bytes())
	zw.Close()
	tmp := t.TempDir()
	for _, cut := range []int{zb.Len() / 2, zb.Len() - 3} {
		t.Run(fmt.Sprint("cut-", cut), func(t *testing.T) {
			arch := filepath.Join(tmp, fmt.Sprintf("cut%d.tar.zst", cut))
			os.WriteFile(arch, zb.Bytes()[:cut], 0o444)
			before := evidenceState(t, tmp)
			out := filepath.Join(t.TempDir(), "out")
			stdout, stderr, code := runCLI(t, "scan", arch, "--out", out, "--fail-on-findings")
			compareEvidence(t, "truncated archive", before, evidenceState(t, tmp))
			// An entry cut in the middle is an unreadable file: a finding,
			// so the completed scan exits 3.
			if code != exitFindings {
				t.Fatalf("exit %d\n%s\n%s", code, stderr, stdout)
			}
			if _, err := os.Stat(filepath.Join(out, tableFiles)); err != nil {
				t.Fatalf("no tables for a truncated archive (exit %d: %s)", code, stderr)
			}
			anomalies := readTable[analysis.AnomalyRow](t, filepath.Join(out, tableAnomalies))
			batches := readTable[analysis.BatchRow](t, filepath.Join(out, tableBatches))
			var kinds []string
			for _, a := range anomalies {
				kinds = append(kinds, a.File+" "+string(a.Kind))
			}
			damaged := false
			for _, a := range anomalies {
				damaged = damaged || a.Kind == "archive-damaged" && a.File == filepath.Base(arch) && a.Severity == "error"
			}
			if len(batches) == 0 || !damaged {
				t.Errorf("batches %d, anomalies %v; want the entries before the cut and an archive-damaged finding", len(batches), kinds)
			}
			t.Logf("cut at %d of %d: exit %d, %d batches, anomalies %v", cut, zb.Len(), code, len(batches), kinds)
		})
	}
}

// bigSegment writes a partition dir holding one segment of n copies of a
// small batch.
func bigSegment(t *testing.T, dir string, n int) { t.Helper(); clitest.BigSegment(t, dir, n) }

// TestScanOutRefusedWithoutForce: an --out that holds any table (even one
// table, even an empty file under a table name) is refused unless --force,
// and the refusal writes nothing.
func TestScanOutRefusedWithoutForce(t *testing.T) {
	t.Parallel()
	in := t.TempDir()
	os.CopyFS(filepath.Join(in, "codecs-0"), os.DirFS(filepath.Join(generatedDir, "codecs-0")))
	for _, tbl := range []string{tableFiles, tableRecords, tableAnomalies, "duplicates.parquet"} {
		out := t.TempDir()
		os.WriteFile(filepath.Join(out, tbl), nil, 0o644)
		before := evidenceState(t, out)
		if _, _, code := runCLI(t, "scan", in, "--out", out); code != exitUsage {
			t.Errorf("%s present: exit %d, want %d", tbl, code, exitUsage)
		}
		compareEvidence(t, "refused --out", before, evidenceState(t, out))
		if _, stderr, code := runCLI(t, "scan", in, "--out", out, "--force"); code != exitOK {
			t.Errorf("%s present, --force: exit %d %s", tbl, code, stderr)
		}
	}
}
