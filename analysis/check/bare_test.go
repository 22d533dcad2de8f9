package check_test

import (
	"archive/tar"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// emptied removes every file of partition dir dir from mfs, writes the
// rest and leaves dir in place, empty; it returns the log dir.
func emptied(t *testing.T, mfs fstest.MapFS, dir string) string {
	t.Helper()
	for name := range mfs {
		if strings.HasPrefix(name, dir+"/") {
			delete(mfs, name)
		}
	}
	root := writeFS(t, mfs, "")
	if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestLedgerEmptyPartitionDir: a partition dir that holds no file at all
// lost its log, as one without a .log file did: a broker always keeps an
// active segment. Truth: orders-3, empty, beside the generated
// partitions; no checkpoint names it, so how much it held is unknown.
func TestLedgerEmptyPartitionDir(t *testing.T) {
	mfs, _ := multiSegment(t)
	rep := runPaths(t, emptied(t, mfs, "orders-3"))
	gs := gapsOf(rep, "orders-3")
	if len(gs) != 1 || gs[0].Cause != check.CauseMissingSegment || gs[0].Severity != finding.Warning || gs[0].FirstOffset != 0 ||
		gs[0].LastOffset != nil || gs[0].Topic != "orders" || gs[0].Partition != 3 {
		t.Fatalf("gaps %+v, want one missing-segment warning of orders-3 from 0, end unknown", gs)
	}
	v := verdictOf(t, rep, "orders-3")
	if v.Intact || !v.Unbounded || v.Text != "LOST offsets (how many is unknown): 0..? warning (missing-segment); on disk: no file (an empty dir)" {
		t.Errorf("verdict %+v", v)
	}
	want(t, rep, finding.KindMissingSegment, "orders-3", -1, 0, "the partition dir is empty")
	if !rep.Result.Failed() || rep.Result.LossCopies() != 1 {
		t.Errorf("failed %v, %d loss copies; want a failed run with one", rep.Result.Failed(), rep.Result.LossCopies())
	}
	if n := len(rep.Result.Scan.Files); n != len(mfs) {
		t.Errorf("%d file rows for %d files: the empty dir is no file", n, len(mfs))
	}
}

// TestLedgerEmptyPartitionDirCheckpoints: an empty partition dir the log
// dir's checkpoints name lost at least the offsets they say were written,
// and whatever its active segment held past them. Truth: codecs-0
// emptied, its high watermark and recovery point 50.
func TestLedgerEmptyPartitionDirCheckpoints(t *testing.T) {
	mfs, _ := multiSegment(t)
	setCheckpoint(t, mfs, "replication-offset-checkpoint", "codecs 0", "50")
	setCheckpoint(t, mfs, "recovery-point-offset-checkpoint", "codecs 0", "50")
	rep := runPaths(t, emptied(t, mfs, "codecs-0"))
	gs := gapsOf(rep, "codecs-0")
	if len(gs) != 2 || gs[0].Cause != check.CauseCheckpointAh || gs[0].FirstOffset != 0 || lastOf(gs[0]) != 49 ||
		gs[1].Cause != check.CauseMissingSegment || gs[1].FirstOffset != 50 || gs[1].LastOffset != nil {
		t.Fatalf("gaps %+v, want checkpoint-ahead 0..49 and missing-segment from 50, end unknown", gs)
	}
	if v := verdictOf(t, rep, "codecs-0"); v.Intact || !v.Unbounded || !strings.Contains(v.Text, "LOST at least 50 offset(s)") {
		t.Errorf("verdict %+v", v)
	}
	want(t, rep, finding.KindCheckpointAhead, "replication-offset-checkpoint", -1, 50, "the partition dir is empty")
	for _, f := range rep.Findings {
		if f.Kind == finding.KindCheckpointStale {
			t.Errorf("the dir is there, though empty: %v", f)
		}
	}
}

// TestLedgerPartitionDirOfOtherFiles: a partition dir whose only file is
// not a Kafka file is judged as an empty one. Truth: codecs-1 holds only
// a notes.txt.
func TestLedgerPartitionDirOfOtherFiles(t *testing.T) {
	mfs, _ := multiSegment(t)
	for name := range mfs {
		if strings.HasPrefix(name, "codecs-1/") {
			delete(mfs, name)
		}
	}
	mfs["codecs-1/notes.txt"] = &fstest.MapFile{Data: []byte("copied by hand\n")}
	setCheckpoint(t, mfs, "replication-offset-checkpoint", "codecs 1", "0")
	setCheckpoint(t, mfs, "recovery-point-offset-checkpoint", "codecs 1", "0")
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-1")
	if len(gs) != 1 || gs[0].Cause != check.CauseMissingSegment || gs[0].LastOffset != nil {
		t.Fatalf("gaps %+v, want one missing-segment, end unknown", gs)
	}
	want(t, rep, finding.KindMissingSegment, "codecs-1", -1, 0, "the partition dir holds no Kafka file")
}

// TestEmptyDirOutsideLogDir: a dir named like a partition dir beside log
// dirs, not in one, may be a log dir of its own: empty, or holding no
// Kafka file, no partition is judged missing there. Truth: the generated
// log dir, with the .lock a running broker keeps, as broker-1; an empty
// broker-2 and a broker-3 holding a notes.txt beside it.
func TestEmptyDirOutsideLogDir(t *testing.T) {
	mfs, _ := multiSegment(t)
	mfs[".lock"] = &fstest.MapFile{}
	top := t.TempDir()
	if err := os.Rename(writeFS(t, mfs, ""), filepath.Join(top, "broker-1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(top, "broker-2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(top, "broker-3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "broker-3", "notes.txt"), []byte("spare\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := runPaths(t, top)
	for _, v := range rep.Verdicts {
		if !strings.HasPrefix(v.Dir, "broker-1/") || !v.Intact {
			t.Errorf("verdict %+v", v)
		}
	}
	if fs := counting(rep); len(fs) != 0 {
		t.Errorf("findings %v", fs)
	}
}

// dirArchive packs mfs under b/ as tar packs a dir: each dir's entry
// before its files, in path order, and the partition dir empty as an
// entry with nothing under it: last with emptyLast. With noEnd the stream
// ends after the last entry, without the end-of-archive marker, as an
// archive cut short there.
func dirArchive(t *testing.T, mfs fstest.MapFS, empty string, emptyLast, noEnd bool) string {
	t.Helper()
	names := []string{"b/"}
	dirs := map[string]bool{}
	for n := range mfs {
		names = append(names, "b/"+n)
		for d := path.Dir(n); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			names = append(names, "b/"+d+"/")
		}
	}
	if !emptyLast {
		names = append(names, "b/"+empty+"/")
	}
	sort.Strings(names)
	if emptyLast {
		names = append(names, "b/"+empty+"/")
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		h := &tar.Header{Name: n, Mode: 0o755, Typeflag: tar.TypeDir}
		var d []byte
		if !strings.HasSuffix(n, "/") {
			d = mfs[strings.TrimPrefix(n, "b/")].Data
			h = &tar.Header{Name: n, Mode: 0o644, Size: int64(len(d)), Typeflag: tar.TypeReg}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(d)
	}
	if noEnd {
		tw.Flush()
	} else {
		tw.Close()
	}
	p := filepath.Join(t.TempDir(), "b.tar")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestArchiveEmptyPartitionDir: an empty partition dir inside an archive
// (a tar dir entry with no file entry under it) lost its log as the same
// dir of a dir input did, also when the archive is cut short after it
// left the dir. When the archive ends right after that dir's entry, its
// files may lie past the cut: it is not judged empty.
func TestArchiveEmptyPartitionDir(t *testing.T) {
	mfs, _ := multiSegment(t)
	for _, noEnd := range []bool{false, true} {
		rep := runPaths(t, dirArchive(t, mfs, "orders-3", false, noEnd))
		gs := gapsOf(rep, "b/orders-3")
		if len(gs) != 1 || gs[0].Cause != check.CauseMissingSegment || gs[0].Severity != finding.Warning || gs[0].FirstOffset != 0 || gs[0].LastOffset != nil {
			t.Fatalf("cut %v: gaps %+v, want one missing-segment warning of b/orders-3 from 0, end unknown", noEnd, gs)
		}
		if v := verdictOf(t, rep, "b/orders-3"); v.Text != "LOST offsets (how many is unknown): 0..? warning (missing-segment); on disk: no file (an empty dir)" {
			t.Errorf("cut %v: verdict %q", noEnd, v.Text)
		}
		want(t, rep, finding.KindMissingSegment, "b/orders-3", -1, 0, "the partition dir is empty")
		if noEnd {
			want(t, rep, "archive-damaged", "b.tar", -1, -2, "end-of-archive marker")
		}
	}

	rep := runPaths(t, dirArchive(t, mfs, "orders-3", true, true))
	want(t, rep, "archive-damaged", "b.tar", -1, -2, "end-of-archive marker")
	for _, f := range rep.Findings {
		if f.Kind == finding.KindMissingSegment {
			t.Errorf("a dir the archive ended inside is judged: %s", f)
		}
	}
	for _, g := range rep.Gaps {
		if g.Dir == "b/orders-3" && g.Cause != check.CauseUnread {
			t.Errorf("a dir the archive ended inside has a gap: %+v", g)
		}
	}
}
