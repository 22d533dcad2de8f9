package pipeline_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// verdictText is the loss ledger's answer for the copy in dir, as verify
// prints it after the dir's name ("" when the run has no such copy).
func verdictText(sum *pipeline.Summary, dir string) string {
	for _, v := range sum.Verdicts {
		if v.Dir == dir {
			return v.Text
		}
	}
	return ""
}

// TestCutAfterDirHeader: an archive cut just after the header of the next
// partition dir (before any file of it) had left the dir before, which
// came whole. Truth: the sample packed with dir headers, codecs-0 without
// its second segment, cut right after codecs-1/'s header, as a .tar and a
// .tar.gz: codecs-0 lost its offsets from 68 on by a missing segment, as
// in the uncut copy (no checkpoint came before the cut to say how many);
// only codecs-1 and what comes after it are unread.
func TestCutAfterDirHeader(t *testing.T) {
	t.Parallel()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	cut := -1
	filepath.Walk(sampleDir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || cut >= 0 {
			return err
		}
		rel, _ := filepath.Rel(sampleDir, p)
		rel = filepath.ToSlash(rel)
		if rel == "codecs-0/00000000000000000068.log" {
			return nil
		}
		if fi.IsDir() {
			tw.WriteHeader(&tar.Header{Name: "broker/" + rel + "/", Mode: 0o755, Typeflag: tar.TypeDir})
			tw.Flush()
			if rel == "codecs-1" {
				cut = tb.Len()
			}
			return nil
		}
		data, _ := os.ReadFile(p)
		tw.WriteHeader(&tar.Header{Name: "broker/" + rel, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
		return nil
	})
	if cut < 0 {
		t.Fatal("no codecs-1 in the sample")
	}
	plain := filepath.Join(t.TempDir(), "cut.tar")
	os.WriteFile(plain, tb.Bytes()[:cut], 0o644)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(tb.Bytes()[:cut])
	zw.Close()
	gz := filepath.Join(t.TempDir(), "cut.tar.gz")
	os.WriteFile(gz, zb.Bytes(), 0o644)
	for _, arc := range []string{plain, gz} {
		res, sum := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, arc)
		got := verdictText(sum, "broker/codecs-0")
		if want := "LOST offsets (how many is unknown): 68..? warning (missing-segment)"; !res.Failed() || !strings.HasPrefix(got, want) {
			t.Errorf("%s: failed %v, want a failed run and broker/codecs-0: %q…, got %q", filepath.Base(arc), res.Failed(), want, got)
		}
	}
}

// TestReplicasCutCopyUnread: a copy read from a cut archive ends where the
// archive did, not where its broker stopped. Truth: the sample beside an
// archive of it cut inside codecs-1's first segment: that copy is unread
// past its last batch read, not lagging, and no lagging finding is made.
func TestReplicasCutCopyUnread(t *testing.T) {
	t.Parallel()
	// meta.properties first, as tar of a log dir often has it: the copy
	// names its cluster and broker, and is compared with the sample's.
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	cut := 0
	for _, rel := range []string{"meta.properties", "codecs-0/partition.metadata", "codecs-0/leader-epoch-checkpoint",
		"codecs-0/00000000000000000000.log", "codecs-0/00000000000000000068.log",
		"codecs-1/partition.metadata", "codecs-1/leader-epoch-checkpoint", "codecs-1/00000000000000000000.log"} {
		data, _ := os.ReadFile(filepath.Join(sampleDir, rel))
		tw.WriteHeader(&tar.Header{Name: "broker/" + rel, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Flush()
		// Past the first batch of the last segment: its 12-byte prefix
		// holds its length.
		cut = tb.Len() + 12 + int(binary.BigEndian.Uint32(data[8:12])) + 20
		tw.Write(data)
	}
	arc := filepath.Join(t.TempDir(), "cut.tar")
	os.WriteFile(arc, tb.Bytes()[:cut], 0o644)
	res, _ := runPlan(t, pipeline.Plan{Command: pipeline.Replicas}, sampleDir, arc)
	var unread, lagging int
	for _, r := range res.Replicas.Rows {
		switch {
		case r.Verdict == string(analysis.CopyReference):
		case r.Verdict == "unread" && r.Dir == "broker/codecs-1":
			unread++
		case r.Verdict == "lagging":
			lagging++
		}
	}
	for _, a := range res.Scan.Anomalies {
		if a.Kind == finding.KindReplicaLagging {
			lagging++
		}
	}
	if unread != 1 || lagging != 0 {
		t.Errorf("%d unread codecs-1 copies (want 1), %d lagging rows or findings (want 0):\n%+v", unread, lagging, res.Replicas.Rows)
	}
}

// TestCutInsideMetadataDir: an archive that ends inside a KRaft metadata
// partition dir after its snapshot, before its .log. Truth: the offsets
// below the snapshot's end were gone by design, so the unread range
// starts there, at 100, not at 0.
func TestCutInsideMetadataDir(t *testing.T) {
	t.Parallel()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	meta, _ := os.ReadFile(filepath.Join(sampleDir, "meta.properties"))
	for _, f := range []struct {
		name string
		data []byte
	}{{"broker/meta.properties", meta}, {"broker/__cluster_metadata-0/00000000000000000100-0000000001.checkpoint", nil}} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg})
		tw.Write(f.data)
	}
	tw.Flush() // no end-of-archive marker: the archive is cut here
	arc := filepath.Join(t.TempDir(), "cut.tar")
	os.WriteFile(arc, tb.Bytes(), 0o644)
	_, sum := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, arc)
	want, got := "UNREAD offsets (how many is unknown): 100..? warning (unread)", verdictText(sum, "broker/__cluster_metadata-0")
	if !strings.HasPrefix(got, want) {
		t.Errorf("broker/__cluster_metadata-0: want %q…, got %q\n%+v", want, got, sum.Verdicts)
	}
}
