package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cutSampleTarGz packs the sample log dir under broker/ in walk order,
// leaving out the file skip, and cuts the tar stream inside segment seg,
// past its first batch: the entries after it never come. It returns the
// archive, the byte of the tar stream it ends at and its compressed size.
func cutSampleTarGz(t *testing.T, skip, seg string) (arc string, cut, size int) {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	cut = -1
	filepath.Walk(sampleDir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || cut >= 0 {
			return err
		}
		rel, _ := filepath.Rel(sampleDir, p)
		if filepath.ToSlash(rel) == skip {
			return nil
		}
		data, _ := os.ReadFile(p)
		tw.WriteHeader(&tar.Header{Name: "broker/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Flush()
		if filepath.ToSlash(rel) == seg {
			// Past the first batch: its 12-byte prefix holds its length.
			first := 12 + int(data[8])<<24 | int(data[9])<<16 | int(data[10])<<8 | int(data[11])
			cut = tb.Len() + first + 20
		}
		tw.Write(data)
		return nil
	})
	if cut < 0 {
		t.Fatalf("no %s in %s", seg, sampleDir)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(tb.Bytes()[:cut])
	zw.Close()
	arc = filepath.Join(t.TempDir(), "cut.tar.gz")
	os.WriteFile(arc, zb.Bytes(), 0o644)
	return arc, cut, zb.Len()
}

// TestVerifyCutTarGz: verify of a .tar.gz whose tar stream ends inside a
// segment, after its first batch. The partition's verdict names the
// offsets read from the cut entry and calls the rest unread; the archive
// finding says its position counts the decompressed tar stream, and how
// much of the compressed file was read. The summary calls the copies
// unread, not lost: codecs-0 and compacted-0, which the
// cleaner-offset-checkpoint read before the cut names and which the
// archive never reached.
func TestVerifyCutTarGz(t *testing.T) {
	t.Parallel()
	arc, cut, size := cutSampleTarGz(t, "", "codecs-0/00000000000000000000.log")
	out, errOut, code := runCLI(t, "verify", arc)
	if code != exitFindings {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	out = unwrap(out)
	for _, want := range []string{
		fmt.Sprintf("archive-damaged at byte %d: tar stream ends inside an entry; entries after it not read (at byte %d of the decompressed tar stream; the gzip decoder had read all %d bytes of the compressed file)", cut, cut, size),
		"broker/codecs-0: UNREAD offsets (how many is unknown): ",
		"; 2 partition copies unread: the archive ended before their data (INCOMPLETE",
		"broker/compacted-0: UNREAD offsets (how many is unknown): 0..? warning (unread); on disk: nothing read (the archive ended before it)",
		// The segment the batch came from counts as a segment read.
		"checked: 1 segment (1 read only in part: the input failed inside it), ",
		" files, 1 segment, 1 batch, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "broker/codecs-0:") && (!strings.Contains(line, "on disk: offsets 0..") || strings.Contains(line, "retention")) {
			t.Errorf("verdict: %s", line)
		}
		if strings.HasPrefix(line, "verified ") && strings.Contains(line, "lost offsets") {
			t.Errorf("summary counts an unread copy as lost: %s", line)
		}
	}
}

// TestCutArchiveSummaries: a cut archive with one partition copy that
// lost offsets (codecs-0, delivered whole without its second .log) and
// two only unread (codecs-1, inside whose first segment the archive
// ends, and compacted-0, which the cleaner-offset-checkpoint read before
// the cut names and the archive never reached). The summaries of verify and scan, text and JSON, and the closing
// note of replicas count them apart; the run still exits 3.
func TestCutArchiveSummaries(t *testing.T) {
	t.Parallel()
	arc, _, _ := cutSampleTarGz(t, "codecs-0/00000000000000000068.log", "codecs-1/00000000000000000000.log")
	out, errOut, code := runCLIFlat(t, "verify", arc)
	if want := "; 1 partition copy lost offsets, 2 unread: the archive ended before their data (INCOMPLETE"; code != exitFindings || !strings.Contains(out, want) {
		t.Errorf("verify: exit %d, want %d and %q:\n%s%s", code, exitFindings, want, out, errOut)
	}
	var sum map[string]any
	out, _, code = runCLIFlat(t, "verify", "--json", arc)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || code != exitFindings ||
		sum["partitions_with_loss"] != 1.0 || sum["partitions_unread"] != 2.0 {
		t.Errorf("verify --json: exit %d, summary %v (%v)", code, sum, err)
	}

	out, errOut, code = runCLIFlat(t, "scan", "--out", filepath.Join(t.TempDir(), "o"), arc)
	if want := "losses in 1 partition copy, and 2 unread: the archive ended before their data ("; code != exitFindings || !strings.Contains(out, want) {
		t.Errorf("scan: exit %d, want %d and %q:\n%s%s", code, exitFindings, want, out, errOut)
	}
	out, errOut, code = runCLIFlat(t, "replicas", arc)
	if want := ", and 1 partition copy lost offsets, 2 unread (the archive ended before their data)"; code != exitFindings ||
		!strings.Contains(unwrap(out), want) {
		t.Errorf("replicas: exit %d, want %d and %q:\n%s%s", code, exitFindings, want, out, errOut)
	}
	sum = nil
	out, _, _ = runCLIFlat(t, "scan", "--json", "--out", filepath.Join(t.TempDir(), "o"), arc)
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum["partitions_unread"] != 2.0 {
		t.Errorf("scan --json: partitions_unread %v (%v)", sum["partitions_unread"], err)
	}
	// The report page says the same, in its data and its text.
	html := filepath.Join(t.TempDir(), "r.html")
	if _, errOut, code := runCLIFlat(t, "report", "--progress", "never", "--html", html, arc); code != exitFindings {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if d := reportData(t, html); d["partitions_with_loss"] != 1.0 || d["partitions_unread"] != 2.0 {
		t.Errorf("report data: partitions_with_loss %v, partitions_unread %v", d["partitions_with_loss"], d["partitions_unread"])
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 partition copy has lost offsets.", "2 partition copies are unread: the input ended before their data, which was not verified."} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report page does not say %q", want)
		}
	}
}
