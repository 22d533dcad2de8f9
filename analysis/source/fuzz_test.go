package source

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// fuzzTar builds a small tar stream with hostile names and entry types.
func fuzzTar(names ...string) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for i, n := range names {
		h := &tar.Header{Name: n, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(n))}
		switch i % 4 {
		case 1:
			h.Typeflag, h.Size, h.Linkname = tar.TypeSymlink, 0, "../../etc/passwd"
		case 2:
			h.Typeflag, h.Size, h.Linkname = tar.TypeLink, 0, names[0]
		}
		tw.WriteHeader(h)
		if h.Size > 0 {
			tw.Write([]byte(n))
		}
	}
	tw.Close()
	return b.Bytes()
}

// FuzzArchiveStream: any bytes given as an archive (plain, gzip or zstd
// framed) are read without panic and without writing anything; every
// entry path is relative and stays inside the archive root; sizes are
// the bytes really read; damage to the archive is an *ArchiveError.
func FuzzArchiveStream(f *testing.F) {
	f.Add(fuzzTar("t-0/00000000000000000000.log", "../x-0/00000000000000000000.index", "/abs/meta.properties", "t-0/00000000000000000000.log"), uint8(0))
	f.Add(fuzzTar("a\\..\\..\\b", "C:/windows/x", "./t-0//y", "t-0/../../z"), uint8(1))
	f.Add(fuzzTar("ok-1/leader-epoch-checkpoint"), uint8(2))
	f.Add([]byte("not a tar at all"), uint8(0))
	f.Add(make([]byte, 1024), uint8(0))
	f.Add(fuzzTar("trunc-0/00000000000000000000.log")[:700], uint8(2))
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "real", "*", "*.tar*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 256<<10 {
			f.Add(b, uint8(0))
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, wrap uint8) {
		switch wrap % 3 {
		case 1:
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(data)
			zw.Close()
			data = b.Bytes()
		case 2:
			var b bytes.Buffer
			zw, _ := zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1))
			zw.Write(data)
			zw.Close()
			data = b.Bytes()
		}
		p := filepath.Join(dir, "in.tar")
		if err := os.WriteFile(p, data, 0o444); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		in := &Input{Path: p, Abs: p, Kind: Archive}
		n := 0
		err := in.Stream(context.Background(), Options{}, func(e *Entry, r io.Reader) error {
			n++
			if e.Path == "" || strings.HasPrefix(e.Path, "/") || e.Path == ".." || strings.HasPrefix(e.Path, "../") ||
				strings.Contains(e.Path, "/../") || strings.HasSuffix(e.Path, "/..") {
				t.Fatalf("entry path %q leaves the root", e.Path)
			}
			got, rerr := io.Copy(io.Discard, r)
			if e.Skipped != "" && got != 0 {
				t.Fatalf("skipped entry %q yielded %d bytes", e.Path, got)
			}
			if rerr == nil && e.Skipped == "" && got != e.Size {
				t.Fatalf("entry %q: read %d bytes, size %d", e.Path, got, e.Size)
			}
			return nil
		})
		var ae *ArchiveError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("archive error is not an *ArchiveError: %v", err)
		}
		if ae != nil && ae.Offset < 0 {
			t.Fatalf("negative offset: %v", ae)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Fatalf("files appeared beside the archive: %v", ents)
		}
	})
}
