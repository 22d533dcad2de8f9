package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyCutTarGz: verify of a .tar.gz whose tar stream ends inside a
// segment, after its first batch. The partition's verdict names the
// offsets read from the cut entry and calls the rest unread; the archive
// finding says its position counts the decompressed tar stream, and how
// much of the compressed file was read.
func TestVerifyCutTarGz(t *testing.T) {
	t.Parallel()
	const seg = "codecs-0/00000000000000000000.log"
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	cut := -1
	filepath.Walk(sampleDir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || cut >= 0 {
			return err
		}
		rel, _ := filepath.Rel(sampleDir, p)
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
	arc := filepath.Join(t.TempDir(), "cut.tar.gz")
	os.WriteFile(arc, zb.Bytes(), 0o644)
	out, errOut, code := runCLI(t, "verify", arc)
	if code != exitFindings {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		fmt.Sprintf("archive-damaged at byte %d: tar stream ends inside an entry; entries after it not read (at byte %d of the decompressed tar stream; the gzip decoder had read all %d bytes of the compressed file)", cut, cut, zb.Len()),
		"broker/codecs-0: UNREAD offsets (how many is unknown): ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "broker/codecs-0:") && (!strings.Contains(line, "on disk: offsets 0..") || strings.Contains(line, "retention")) {
			t.Errorf("verdict: %s", line)
		}
	}
}
