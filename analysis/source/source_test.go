package source

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestParsePartitionDir(t *testing.T) {
	for _, c := range []struct {
		in   string
		want PartitionDir
		ok   bool
	}{
		{"orders-0", PartitionDir{Topic: "orders", Partition: 0}, true},
		{"my.topic-with-dashes-12", PartitionDir{Topic: "my.topic-with-dashes", Partition: 12}, true},
		{"__consumer_offsets-49", PartitionDir{Topic: "__consumer_offsets", Partition: 49}, true},
		{"__cluster_metadata-0", PartitionDir{Topic: "__cluster_metadata", Partition: 0}, true},
		{"t-1.0123456789abcdef0123456789abcdef-delete", PartitionDir{Topic: "t", Partition: 1, State: "delete"}, true},
		{"a.b-c-7.0123456789ABCDEF0123456789abcdef-future", PartitionDir{Topic: "a.b-c", Partition: 7, State: "future"}, true},
		{"x-3.ffffffffffffffffffffffffffffffff-stray", PartitionDir{Topic: "x", Partition: 3, State: "stray"}, true},
		{"t-1.0123-delete", PartitionDir{}, false}, // not a 32-hex uuid
		{"kafka-logs", PartitionDir{}, false},
		{"topic-", PartitionDir{}, false},
		{"-3", PartitionDir{}, false},
		{"t-99999999999", PartitionDir{}, false}, // over int32
		{"bad topic-0", PartitionDir{}, false},
		{"t-+1", PartitionDir{}, false},
	} {
		got, ok := ParsePartitionDir(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ParsePartitionDir(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func write(t *testing.T, p string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFilesDir(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "logs")
	write(t, filepath.Join(root, "meta.properties"), "version=0\nbroker.id=3\n")
	write(t, filepath.Join(root, "a.b-1", "00000000000000000000.log"), "x")
	write(t, filepath.Join(root, "a.b-1", "00000000000000000000.log.deleted"), "x")
	write(t, filepath.Join(root, "other-0", "00000000000000000000.log"), "x")
	write(t, filepath.Join(tmp, "secret"), "outside")
	if err := os.Symlink(filepath.Join(tmp, "secret"), filepath.Join(root, "a.b-1", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "meta.properties"), filepath.Join(root, "inside-link")); err != nil {
		t.Fatal(err)
	}
	ins, err := Classify([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	es, err := ins[0].Files(Options{Topic: regexp.MustCompile(`^a\.b$`)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Entry{}
	for _, e := range es {
		got[e.Path] = e
	}
	if len(es) != 5 || got["other-0/00000000000000000000.log"] != nil {
		t.Fatalf("entries %v", got)
	}
	if e := got["a.b-1/00000000000000000000.log.deleted"]; e.Name.Suffix != ".deleted" || e.Partition.Topic != "a.b" || e.LogDir != "." {
		t.Errorf("deleted: %+v", e)
	}
	if e := got["a.b-1/link"]; e.Skipped == "" {
		t.Errorf("symlink out of the root followed: %+v", e)
	}
	// A symlink inside the root is listed, not read: its target is read
	// once, under its own name.
	if e := got["inside-link"]; e.SkipKind != SkipLinkInside || !strings.Contains(e.Skipped, "meta.properties") {
		t.Errorf("symlink inside the root: %+v", e)
	}
	if e := got["meta.properties"]; e.Skipped != "" || e.Size == 0 {
		t.Errorf("the symlink's target: %+v", e)
	}
	// A partition dir given on its own.
	ins, _ = Classify([]string{filepath.Join(root, "a.b-1")})
	es, _ = ins[0].Files(Options{})
	if len(es) < 2 || es[0].Partition == nil || es[0].Partition.Partition != 1 || es[0].LogDir != ".." {
		t.Errorf("partition dir input: %+v", es[0])
	}
	if !Within(root, filepath.Join(root, "a.b-1", "new", "dir")) || Within(root, tmp) {
		t.Error("Within")
	}
}

func TestStreamZstd(t *testing.T) {
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range []struct{ name, body string }{
		{"./kafka/t-0/00000000000000000005.log", "segment"},
		{"kafka/meta.properties", "version=0\nbroker.id=1\n"},
	} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(f.body))
	}
	tw.WriteHeader(&tar.Header{Name: "kafka/t-0/evil", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"})
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "x.tar.zst")
	os.WriteFile(p, buf.Bytes(), 0o644)
	ins, err := Classify([]string{p})
	if err != nil || ins[0].Kind != Archive {
		t.Fatal(ins, err)
	}
	var got []string
	err = ins[0].Stream(context.Background(), Options{}, func(e *Entry, r io.Reader) error {
		data, _ := io.ReadAll(r)
		got = append(got, e.Path+"|"+e.LogDir+"|"+string(data)+"|"+e.Skipped)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"kafka/t-0/00000000000000000005.log|kafka|segment|",
		"kafka/meta.properties|kafka|version=0\nbroker.id=1\n|",
		`kafka/t-0/evil|kafka||symlink to "/etc/passwd", out of the archive root: not followed`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestClassifyStdin: "-" is a tar archive read from the stdin given, once;
// without a stdin it is a path like any other.
func TestClassifyStdin(t *testing.T) {
	stdin := strings.NewReader("")
	ins, err := ClassifyStdin([]string{"-"}, stdin)
	if err != nil || len(ins) != 1 || ins[0].Kind != Archive || ins[0].Reader != stdin || ins[0].Path != "-" {
		t.Fatalf("ClassifyStdin(-) = %+v, %v", ins, err)
	}
	if _, err := Classify([]string{"-"}); err == nil {
		t.Error("Classify takes - without a stdin")
	}
	err = ins[0].Stream(context.Background(), Options{}, func(*Entry, io.Reader) error { return nil })
	var ae *ArchiveError
	if !errors.As(err, &ae) || ae.Kind() != "archive-not-tar" {
		t.Errorf("an empty stdin: %v", err)
	}
}
