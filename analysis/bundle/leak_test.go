package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/segment"
)

// payloadsOf returns every key, value and header value of the records of
// data (a segment), control records left out.
func payloadsOf(data []byte) [][]byte {
	r := segment.NewReaderBytes(data, segment.Options{})
	defer r.Close()
	var out [][]byte
	for r.Next() {
		if r.Batch() == nil {
			continue
		}
		it := r.Records()
		for it.Next() {
			rec := it.Record()
			if rec.IsControl {
				continue
			}
			out = append(out, bytes.Clone(rec.Key), bytes.Clone(rec.Value))
			for _, h := range rec.Headers {
				out = append(out, bytes.Clone(h.Value))
			}
		}
	}
	return out
}

// eachEntry calls fn with the name and bytes of each entry of a bundle.
func eachEntry(t *testing.T, path string, fn func(name string, b []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		fn(h.Name, b)
	}
}

// bundleText is everything a bundle holds that a reader could look at:
// each entry's bytes, and the records of each segment decompressed.
func bundleText(t *testing.T, path string) []byte {
	t.Helper()
	var all bytes.Buffer
	eachEntry(t, path, func(name string, b []byte) {
		all.Write(b)
		if strings.HasSuffix(name, ".log") {
			for _, p := range payloadsOf(b) {
				all.Write(p)
				all.WriteByte(0)
			}
		}
	})
	return all.Bytes()
}

// originalPayloads returns the payloads of 8 bytes or more of the user
// topics' segments below dir, and the bytes of the rest of its files
// (internal topics, state files) and of the segments' structure (their
// payloads zeroed), where a payload found again is no leak: an 8-byte
// value that holds a timestamp is in every batch header of its time.
func originalPayloads(t *testing.T, dir string) (payloads [][]byte, kept []byte) {
	t.Helper()
	zero := segment.NewRedactor(func(p []byte) { clear(p) })
	defer zero.Close()
	var rest bytes.Buffer
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		rest.WriteString(filepath.ToSlash(rel))
		internal := false
		for name := range internalTopics {
			internal = internal || strings.Contains(p, string(filepath.Separator)+name+"-")
		}
		if !strings.HasSuffix(p, ".log") || internal {
			rest.Write(data)
			return nil
		}
		structure, _ := zero.Segment(p, data)
		rest.Write(structure)
		for _, pl := range payloadsOf(data) {
			if len(pl) >= 8 {
				payloads = append(payloads, pl)
			}
		}
		return nil
	})
	return payloads, rest.Bytes()
}

// TestRedactedBundlesLeakNoPayload searches every redacted bundle of the
// sample and the real corpus for every original payload of 8 bytes or
// more that is not also in a file the bundle keeps as it is (internal
// topics, state files, the names of dirs and files).
func TestRedactedBundlesLeakNoPayload(t *testing.T) {
	dirs := append([]string{sampleDir}, realDirs(t)...)
	searched := 0
	for _, d := range dirs {
		out, _, _ := makeBundle(t, testSecret, d)
		text := bundleText(t, out)
		payloads, kept := originalPayloads(t, d)
		inText, inKept := windows(text), windows(kept)
		for _, p := range payloads {
			if inKept[[8]byte(p)] && bytes.Contains(kept, p) {
				continue
			}
			searched++
			if inText[[8]byte(p)] && bytes.Contains(text, p) {
				t.Errorf("%s: the bundle holds the payload %.40q", d, p)
				break
			}
		}
	}
	if searched < 1000 {
		t.Errorf("only %d payloads searched", searched)
	}
	t.Logf("%d payloads searched in %d bundles", searched, len(dirs))
}

// windows is the set of every 8 bytes of b: a payload whose first 8
// bytes are not in it does not occur in b, which spares most searches.
func windows(b []byte) map[[8]byte]bool {
	m := make(map[[8]byte]bool, len(b))
	for i := 0; i+8 <= len(b); i++ {
		m[[8]byte(b[i:])] = true
	}
	return m
}
