package source

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// A broker's log dir named like a partition dir (kafka-logs-1: topic
// "kafka-logs", partition 1 by its name) is a log dir: none of its files
// belongs to a partition, whatever the kind of file, while the partition
// dirs inside it keep theirs.
func TestLogDirNamedLikePartition(t *testing.T) {
	tmp := t.TempDir()
	logDir := filepath.Join(tmp, "kafka-logs-1")
	for _, f := range []string{".lock", "meta.properties", "recovery-point-offset-checkpoint", "notes.txt", "t-0/00000000000000000000.log"} {
		write(t, filepath.Join(logDir, f), "x")
	}
	check := func(name string, es []*Entry, prefix string, wantFiles int) {
		t.Helper()
		if len(es) != wantFiles {
			t.Errorf("%s: %d entries, want %d", name, len(es), wantFiles)
		}
		for _, e := range es {
			inPart := e.Path == prefix+"t-0/00000000000000000000.log"
			switch {
			case inPart && (e.Partition == nil || e.Partition.Topic != "t"):
				t.Errorf("%s: %s lost its partition: %+v", name, e.Path, e.Partition)
			case !inPart && e.Partition != nil:
				t.Errorf("%s: %s is put in partition %+v", name, e.Path, *e.Partition)
			}
		}
	}
	// The log dir inside the input.
	ins, err := Classify([]string{tmp})
	if err != nil {
		t.Fatal(err)
	}
	es, _ := ins[0].Files(Options{})
	check("parent input", es, "kafka-logs-1/", 5)
	if e := byPath(es)["kafka-logs-1/.lock"]; e == nil || e.LogDir != "kafka-logs-1" {
		t.Errorf("parent input: .lock in log dir %+v", e)
	}
	// A topic filter that does not match the dir's name keeps its files,
	// as it keeps every log dir's.
	es, _ = ins[0].Files(Options{Topic: regexp.MustCompile(`^t$`)})
	check("--topic t", es, "kafka-logs-1/", 5)
	es, _ = ins[0].Files(Options{Topic: regexp.MustCompile(`^none$`)})
	check("--topic none", es, "kafka-logs-1/", 4)

	// The log dir given as the input.
	ins, _ = Classify([]string{logDir})
	es, _ = ins[0].Files(Options{})
	check("log dir input", es, "", 5)
	if e := byPath(es)["notes.txt"]; e == nil || e.LogDir != "." {
		t.Errorf("log dir input: notes.txt in log dir %+v", e)
	}

	// A partition dir keeps its stray files.
	write(t, filepath.Join(tmp, "u-2", "notes.txt"), "x")
	ins, _ = Classify([]string{tmp})
	es, _ = ins[0].Files(Options{})
	if e := byPath(es)["u-2/notes.txt"]; e == nil || e.Partition == nil || e.Partition.Topic != "u" {
		t.Errorf("a partition dir's stray file: %+v", e)
	}
}

// An archive is read as a stream, file by file: the log dir's lock file
// says by its kind that its dir is a log dir.
func TestLogDirNamedLikePartitionArchive(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range []string{"kafka-logs-1/.lock", "kafka-logs-1/meta.properties", "kafka-logs-1/cleaner-offset-checkpoint"} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
		tw.Write([]byte("x"))
	}
	tw.Close()
	p := filepath.Join(t.TempDir(), "x.tar")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := Classify([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	err = ins[0].Stream(context.Background(), Options{}, func(e *Entry, r io.Reader) error {
		if e.Partition != nil || e.LogDir != "kafka-logs-1" {
			t.Errorf("%s: partition %+v, log dir %q", e.Path, e.Partition, e.LogDir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
