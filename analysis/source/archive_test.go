package source

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// needTool returns the path of an external program the test runs. A
// missing one fails the test under CI and skips it, loudly, elsewhere.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is needed by this test and missing on the CI machine", name)
		}
		t.Skipf("SKIPPED: %s is not installed; this test needs it", name)
	}
	return p
}

func run(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(needTool(t, name), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// tarOf builds a tar stream of (name, body) pairs.
func tarOf(files ...string) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for i := 0; i+1 < len(files); i += 2 {
		tw.WriteHeader(&tar.Header{Name: files[i], Mode: 0o644, Size: int64(len(files[i+1])), Typeflag: tar.TypeReg})
		tw.Write([]byte(files[i+1]))
	}
	tw.Close()
	return b.Bytes()
}

// streamed is what Stream gave for one entry.
type streamed struct {
	e      *Entry
	data   string // the bytes of its data ranges, holes left out
	ranges []DataRange
	err    error // reading the entry
}

// streamFile streams an archive file, reading each entry's data ranges
// and skipping its holes.
func streamFile(t *testing.T, p string) ([]streamed, error) {
	t.Helper()
	ins, err := Classify([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	var got []streamed
	err = ins[0].Stream(context.Background(), Options{}, func(e *Entry, r io.Reader) error {
		s := streamed{e: e}
		// A read error is the entry's: Stream goes on to say what it
		// means for the archive.
		defer func() { got = append(got, s) }()
		if sr, ok := r.(SparseReader); ok {
			s.ranges = sr.DataRanges()
			var b strings.Builder
			for _, dr := range s.ranges {
				if err := sr.SkipTo(dr.Start); err != nil {
					s.err = err
					return nil
				}
				if _, err := io.CopyN(&b, r, dr.End-dr.Start); err != nil {
					s.err = err
					return nil
				}
			}
			s.data = b.String()
		} else {
			data, err := io.ReadAll(r)
			s.data, s.err = string(data), err
		}
		return nil
	})
	return got, err
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStreamSparseFormats: GNU tar's sparse entries, in the old GNU form
// and PAX 0.0, 0.1 and 1.0, are read with their holes known; a 1 TiB
// entry of 8 data bytes takes no time.
func TestStreamSparseFormats(t *testing.T) {
	needTool(t, "tar")
	dir := t.TempDir()
	src := filepath.Join(dir, "t-0")
	os.Mkdir(src, 0o755)
	seg := filepath.Join(src, "00000000000000000000.log")
	f, err := os.Create(seg)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("HEAD")
	f.WriteAt([]byte("TAIL"), 1<<40)
	f.Close()
	for _, c := range []struct{ name, args string }{
		{"gnu.tar", "--format=gnu"},
		{"pax00.tar", "--format=posix --sparse-version=0.0"},
		{"pax01.tar", "--format=posix --sparse-version=0.1"},
		{"pax10.tar", "--format=posix --sparse-version=1.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-S"}, strings.Fields(c.args)...)
			run(t, dir, "tar", append(args, "-cf", c.name, "t-0")...)
			start := time.Now()
			got, err := streamFile(t, filepath.Join(dir, c.name))
			if err != nil {
				t.Fatal(err)
			}
			var e *streamed
			for i := range got {
				if strings.HasSuffix(got[i].e.Path, ".log") {
					e = &got[i]
				}
			}
			if e == nil {
				t.Fatalf("no segment entry in %+v", got)
			}
			if e.e.Skipped != "" || e.e.Path != "t-0/00000000000000000000.log" || e.e.Size != 1<<40+4 {
				t.Fatalf("entry %+v", e.e)
			}
			// tar stores whole file system blocks: zeros after HEAD.
			if strings.ReplaceAll(e.data, "\x00", "") != "HEADTAIL" || len(e.ranges) != 2 || e.ranges[0].Start != 0 || e.ranges[1].End != 1<<40+4 {
				t.Errorf("%d data bytes, ranges %v", len(e.data), e.ranges)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("a 1 TiB sparse entry took %v", d)
			}
		})
	}
}

// TestStreamSparseReadsZeros: read without skipping, a sparse entry gives
// its holes as zeros, in the right places.
func TestStreamSparseReadsZeros(t *testing.T) {
	needTool(t, "tar")
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "f"))
	f.WriteString("A")
	f.WriteAt([]byte("B"), 3<<20)
	f.Close()
	run(t, dir, "tar", "-S", "--format=gnu", "-cf", "a.tar", "f")
	ins, _ := Classify([]string{filepath.Join(dir, "a.tar")})
	err := ins[0].Stream(context.Background(), Options{}, func(e *Entry, r io.Reader) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		want := make([]byte, 3<<20+1)
		want[0], want[3<<20] = 'A', 'B'
		if !bytes.Equal(data, want) {
			t.Errorf("sparse entry read as %d bytes, not as the file", len(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStreamConcatenated: `cat a.tar b.tar` is read as tar --ignore-zeros
// reads it: both archives' entries.
func TestStreamConcatenated(t *testing.T) {
	dir := t.TempDir()
	a := tarOf("a-0/00000000000000000000.log", "aaa")
	b := tarOf("b-0/00000000000000000000.log", "bbb", "b-0/leader-epoch-checkpoint", "0\n0\n")
	p := writeFile(t, dir, "ab.tar", append(append([]byte{}, a...), b...))
	got, err := streamFile(t, p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.e.Path+"="+s.data)
	}
	want := "a-0/00000000000000000000.log=aaa b-0/00000000000000000000.log=bbb b-0/leader-epoch-checkpoint=0\n0\n"
	if strings.Join(names, " ") != want {
		t.Errorf("entries %q, want %q", names, want)
	}
}

// TestStreamTrailingData: bytes after the last end marker that are no tar
// archive are a warning, after every entry was read.
func TestStreamTrailingData(t *testing.T) {
	dir := t.TempDir()
	a := tarOf("a-0/00000000000000000000.log", "aaa")
	p := writeFile(t, dir, "a.tar", append(append([]byte{}, a...), []byte("some garbage after the archive")...))
	got, err := streamFile(t, p)
	var ae *ArchiveError
	if !errors.As(err, &ae) || ae.Kind() != "archive-trailing-data" || ae.Severity() != "warning" || ae.Offset != int64(len(a)) {
		t.Fatalf("err %v", err)
	}
	if len(got) != 1 || got[0].data != "aaa" {
		t.Errorf("entries %+v", got)
	}
	// Garbage between two archives is skipped to the next header, with a
	// warning on the entry after it.
	b := tarOf("b-0/00000000000000000000.log", "bbb")
	junk := bytes.Repeat([]byte{0xee}, 1024)
	p = writeFile(t, dir, "ajb.tar", append(append(append([]byte{}, a...), junk...), b...))
	got, err = streamFile(t, p)
	if err != nil || len(got) != 2 || got[1].data != "bbb" || len(got[1].e.Warnings) != 1 || got[1].e.Warnings[0].Kind != "archive-trailing-data" {
		t.Fatalf("err %v, entries %+v", err, got)
	}
}

// TestStreamZstdFrames: a skippable frame first (as pzstd writes), many
// frames, and pzstd's own output are read.
func TestStreamZstdFrames(t *testing.T) {
	dir := t.TempDir()
	raw := tarOf("t-0/00000000000000000000.log", strings.Repeat("x", 5000), "t-0/00000000000000000000.index", "")
	frame := func(b []byte) []byte {
		var out bytes.Buffer
		zw, _ := zstd.NewWriter(&out)
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	skippable := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	skippable = binary.LittleEndian.AppendUint32(skippable, 4)
	skippable = append(skippable, 1, 2, 3, 4)
	multi := append(append(append([]byte{}, skippable...), frame(raw[:700])...), frame(raw[700:])...)
	check := func(p string) {
		t.Helper()
		got, err := streamFile(t, p)
		if err != nil || len(got) != 2 || len(got[0].data) != 5000 {
			t.Fatalf("%s: err %v, %d entries", filepath.Base(p), err, len(got))
		}
	}
	check(writeFile(t, dir, "multi.tar.zst", multi))
	needTool(t, "pzstd")
	writeFile(t, dir, "p.tar", raw)
	run(t, dir, "pzstd", "-q", "-p", "2", "p.tar", "-o", "p.tar.zst")
	if b, _ := os.ReadFile(filepath.Join(dir, "p.tar.zst")); len(b) < 4 || b[0] != 0x50 {
		t.Fatalf("pzstd wrote no skippable frame first: % x", b[:min(len(b), 4)])
	}
	check(filepath.Join(dir, "p.tar.zst"))
}

// TestStreamNestedArchive: an archive inside the archive is listed as
// skipped, not passed over; links are never followed.
func TestStreamNestedArchive(t *testing.T) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	inner := tarOf("t-0/00000000000000000000.log", "x")
	tw.WriteHeader(&tar.Header{Name: "backup/logs.tar.zst", Mode: 0o644, Size: int64(len(inner)), Typeflag: tar.TypeReg})
	tw.Write(inner)
	tw.WriteHeader(&tar.Header{Name: "t-0/00000000000000000000.log", Mode: 0o644, Typeflag: tar.TypeReg})
	tw.WriteHeader(&tar.Header{Name: "t-0/in", Typeflag: tar.TypeLink, Linkname: "t-0/00000000000000000000.log"})
	tw.WriteHeader(&tar.Header{Name: "t-0/out", Typeflag: tar.TypeLink, Linkname: "../../etc/passwd"})
	tw.WriteHeader(&tar.Header{Name: "t-0/sin", Typeflag: tar.TypeSymlink, Linkname: "00000000000000000000.log"})
	tw.WriteHeader(&tar.Header{Name: "t-0/sout", Typeflag: tar.TypeSymlink, Linkname: "../../x"})
	tw.WriteHeader(&tar.Header{Name: "t-0/fifo", Typeflag: tar.TypeFifo})
	tw.Close()
	p := writeFile(t, t.TempDir(), "a.tar", b.Bytes())
	got, err := streamFile(t, p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{SkipNestedArchive, "", SkipLinkInside, SkipLinkOutside, SkipLinkInside, SkipLinkOutside, SkipSpecial}
	if len(got) != len(want) {
		t.Fatalf("%d entries", len(got))
	}
	for i, w := range want {
		if got[i].e.SkipKind != w || (w != "") != (got[i].e.Skipped != "") || got[i].data != "" {
			t.Errorf("%s: kind %q (%s), want %q", got[i].e.Path, got[i].e.SkipKind, got[i].e.Skipped, w)
		}
	}
	if s := Skips([]*Entry{got[0].e}); len(s) != 1 || s[0].Path != "backup/logs.tar.zst" || s[0].Kind != SkipNestedArchive {
		t.Errorf("Skips %+v", s)
	}
}

// TestStreamNotTar: a text file named .tar.gz is "not a tar archive", not
// "unexpected EOF"; so is a gzip stream of text.
func TestStreamNotTar(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"notes.tar.gz": []byte("these are my notes\n"),
		"long.tar":     bytes.Repeat([]byte("not a tar header at all\n"), 100),
		"empty.tgz":    nil,
		"xz.tar":       {0xfd, '7', 'z', 'X', 'Z', 0, 0, 4},
		"zip.tgz":      []byte("PK\x03\x04 and more"),
	} {
		_, err := streamFile(t, writeFile(t, dir, name, data))
		var ae *ArchiveError
		if !errors.As(err, &ae) || ae.Kind() != "archive-not-tar" || !strings.Contains(err.Error(), "not a tar archive") ||
			strings.Contains(err.Error(), "EOF") {
			t.Errorf("%s: %v", name, err)
		}
	}
	needTool(t, "gzip")
	writeFile(t, dir, "text", []byte("hello\n"))
	run(t, dir, "gzip", "text")
	os.Rename(filepath.Join(dir, "text.gz"), filepath.Join(dir, "text.tar.gz"))
	_, err := streamFile(t, filepath.Join(dir, "text.tar.gz"))
	if err == nil || !strings.Contains(err.Error(), "the gzip stream holds something else") {
		t.Errorf("gzip of text: %v", err)
	}
}

// TestStreamCancelInsideEntry: cancelling stops the stream within a
// second while a caller reads a long hole as zeros, and while Stream
// itself skips a long stored entry.
func TestStreamCancelInsideEntry(t *testing.T) {
	needTool(t, "tar")
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "f"))
	f.WriteString("A")
	f.WriteAt([]byte("B"), 1<<40)
	f.Close()
	run(t, dir, "tar", "-S", "--format=gnu", "-cf", "a.tar", "f")
	ins, _ := Classify([]string{filepath.Join(dir, "a.tar")})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	err := ins[0].Stream(ctx, Options{}, func(e *Entry, r io.Reader) error {
		_, err := io.Copy(io.Discard, r) // a terabyte of zeros
		return err
	})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 1200*time.Millisecond {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

// TestArchiveErrorKinds: damage inside an archive stays archive-damaged.
func TestArchiveErrorKinds(t *testing.T) {
	a := tarOf("a-0/00000000000000000000.log", strings.Repeat("a", 2000), "a-0/x", "y")
	p := writeFile(t, t.TempDir(), "cut.tar", a[:1500])
	got, err := streamFile(t, p)
	var ae *ArchiveError
	if !errors.As(err, &ae) || ae.Kind() != "archive-damaged" || ae.Severity() != "error" || len(got) != 1 || got[0].err == nil {
		t.Fatalf("cut inside an entry: %v, %d entries", err, len(got))
	}
	p = writeFile(t, t.TempDir(), "noend.tar", a[:len(a)-1024])
	if _, err := streamFile(t, p); !errors.Is(err, ErrNoEndMarker) {
		t.Errorf("no end marker: %v", err)
	}
	if !strings.Contains(fmt.Sprint(err), "tar byte") {
		t.Errorf("message: %v", err)
	}
}
