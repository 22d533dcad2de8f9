package source

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func gzipOf(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// archiveErr streams an archive of the given bytes and returns its
// *ArchiveError.
func archiveErr(t *testing.T, name string, data []byte) *ArchiveError {
	t.Helper()
	_, err := streamFile(t, writeFile(t, t.TempDir(), name, data))
	var ae *ArchiveError
	if !errors.As(err, &ae) {
		t.Fatalf("%s: %v, want an *ArchiveError", name, err)
	}
	return ae
}

// TestArchiveErrorStreamPosition: the position of a fault in a compressed
// archive counts the decompressed tar stream, and its message says so,
// with how much of the compressed file the decoder had read; a plain
// tar's positions are the file's own.
func TestArchiveErrorStreamPosition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	body := make([]byte, 200_000) // random: the compressed file is not tiny
	for i := range body {
		body[i] = byte(rng.Uint32())
	}
	a := tarOf("a-0/00000000000000000000.log", string(body), "a-0/x", "y")

	// A complete gzip stream of a tar cut inside its first entry.
	gz := gzipOf(t, a[:1500])
	ae := archiveErr(t, "cut.tar.gz", gz)
	want := fmt.Sprintf("(at byte 1500 of the decompressed tar stream; the gzip decoder had read all %d bytes of the compressed file)", len(gz))
	if ae.Offset != 1500 || ae.Layer != "gzip" || !ae.ReadAll || ae.Read != int64(len(gz)) || !strings.HasSuffix(ae.Detail(), want) {
		t.Errorf("cut tar in gzip: offset %d layer %q read %d/%v: %s", ae.Offset, ae.Layer, ae.Read, ae.ReadAll, ae.Detail())
	}
	if !strings.Contains(ae.Error(), "at byte 1500 of the decompressed tar stream") {
		t.Errorf("error text: %v", ae)
	}

	// The compressed file itself cut short: the tar position is far past
	// the file's length, and the message tells the two apart.
	gz = gzipOf(t, a)
	cut := gz[:len(gz)/2]
	ae = archiveErr(t, "half.tar.gz", cut)
	if ae.Offset <= int64(len(cut)) || !ae.ReadAll || ae.Read != int64(len(cut)) ||
		!strings.Contains(ae.Detail(), fmt.Sprintf("at byte %d of the decompressed tar stream; the gzip decoder had read all %d bytes", ae.Offset, len(cut))) {
		t.Errorf("cut gzip: offset %d read %d/%v: %s", ae.Offset, ae.Read, ae.ReadAll, ae.Detail())
	}

	// zstd: the same words.
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb)
	zw.Write(a[:1500])
	zw.Close()
	ae = archiveErr(t, "cut.tar.zst", zb.Bytes())
	if ae.Layer != "zstd" || !strings.Contains(ae.Detail(), "at byte 1500 of the decompressed tar stream; the zstd decoder had read all") {
		t.Errorf("cut tar in zstd: %s", ae.Detail())
	}

	// Trailing data: its position is not where the decoder stands, so
	// only the stream it counts is named.
	ae = archiveErr(t, "trail.tar.gz", gzipOf(t, append(append([]byte{}, a...), "garbage"...)))
	if ae.Kind() != "archive-trailing-data" || !strings.HasSuffix(ae.Detail(), fmt.Sprintf("(at byte %d of the decompressed tar stream)", len(a))) {
		t.Errorf("trailing data in gzip: %s", ae.Detail())
	}

	// A plain tar: positions are the file's; nothing more is said.
	ae = archiveErr(t, "cut.tar", a[:1500])
	if ae.Layer != "" || strings.Contains(ae.Detail(), "decompressed") || !strings.Contains(ae.Error(), "tar byte 1500") {
		t.Errorf("plain tar: %s / %v", ae.Detail(), ae)
	}
}
