package export

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type setRow struct {
	A int64  `parquet:"a"`
	B string `parquet:"b"`
}

type partRow struct {
	Topic string `parquet:"topic"`
	Part  int32  `parquet:"partition"`
	N     int64  `parquet:"n"`
}

// writeSet writes a set of two tables and a two-partition dataset into
// dir and commits it, returning its run id.
func writeSet(t *testing.T, dir string, force bool, rows int) string {
	t.Helper()
	out, err := OpenOut(dir, force)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ts := NewSet(out, "test", &Metadata{})
	defer ts.Abort()
	files := OpenTable[setRow](ts, Files)
	batches := OpenTableWith(ts, Batches, NewParquet[setRow])
	recs := OpenDataset(ts, Records, func(r *partRow) string { return r.Topic })
	if err := ts.Err(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		if err := files.Write([]setRow{{int64(i), "f"}}); err != nil {
			t.Fatal(err)
		}
		if err := batches.Write([]setRow{{int64(i), "b"}, {int64(-i), "c"}}); err != nil {
			t.Fatal(err)
		}
		if err := recs.Write([]partRow{{fmt.Sprint("t", i%2), int32(i % 2), int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.Commit(); err != nil {
		t.Fatal(err)
	}
	return out.RunID
}

func TestSetManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	id := writeSet(t, dir, false, 5)
	m, err := CheckSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.RunID != id || len(m.Tables) != 3 {
		t.Fatalf("manifest %+v", m)
	}
	want := map[string]int64{Files: 5, Batches: 10, Records: 5}
	for _, tb := range m.Tables {
		if tb.Rows != want[tb.Name] {
			t.Errorf("%s: %d rows, want %d", tb.Name, tb.Rows, want[tb.Name])
		}
	}
	if recs := m.Tables[2]; len(recs.Files) != 2 || !strings.HasPrefix(recs.Files[0].Path, "records/part-t") {
		t.Errorf("records files %+v", recs.Files)
	}
	kv, err := ReadMetadata(filepath.Join(dir, "records", "part-t1-00000.parquet"))
	if err != nil || kv[MetaRunID] != id {
		t.Errorf("part footer run id %q, want %q (%v)", kv[MetaRunID], id, err)
	}
	// Nothing is left beside the dir but its lock file.
	ents, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range ents {
		if e.Name() != "out" && e.Name() != ".out"+lockSuffix {
			t.Errorf("left beside the set: %s", e.Name())
		}
	}

	// A changed byte, a missing file, an extra file, and a table of
	// another run are each told apart from the complete set.
	p := filepath.Join(dir, Batches)
	b, _ := os.ReadFile(p)
	corrupt := append([]byte(nil), b...)
	corrupt[len(corrupt)/2] ^= 1
	other := filepath.Join(t.TempDir(), "other")
	writeSet(t, other, false, 5)
	otherFiles, _ := os.ReadFile(filepath.Join(other, Files))
	orig, _ := os.ReadFile(filepath.Join(dir, Files))
	for _, c := range []struct {
		name    string
		damage  func()
		restore func()
	}{
		{"flipped byte", func() { os.WriteFile(p, corrupt, 0o644) }, func() { os.WriteFile(p, b, 0o644) }},
		{"missing table", func() { os.Remove(p) }, func() { os.WriteFile(p, b, 0o644) }},
		{"extra file", func() { os.WriteFile(filepath.Join(dir, "x.parquet"), nil, 0o644) }, func() { os.Remove(filepath.Join(dir, "x.parquet")) }},
		{"mixed runs", func() { os.WriteFile(filepath.Join(dir, Files), otherFiles, 0o644) }, func() { os.WriteFile(filepath.Join(dir, Files), orig, 0o644) }},
		{"no manifest", func() { os.Rename(filepath.Join(dir, Manifest), filepath.Join(dir, "m")) }, func() { os.Rename(filepath.Join(dir, "m"), filepath.Join(dir, Manifest)) }},
	} {
		c.damage()
		if _, err := CheckSet(dir); err == nil {
			t.Errorf("%s: CheckSet passed", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
		c.restore()
		if _, err := CheckSet(dir); err != nil {
			t.Fatalf("%s restored: %v", c.name, err)
		}
	}
}

func TestOutReplaceAndRefuse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	first := writeSet(t, dir, false, 3)
	var refused *RefusedError
	if _, err := OpenOut(dir, false); !errors.As(err, &refused) {
		t.Fatalf("a set without force: %v", err)
	}
	second := writeSet(t, dir, true, 7)
	m, err := CheckSet(dir)
	if err != nil || m.RunID != second || second == first || m.Tables[0].Rows != 7 {
		t.Fatalf("replaced set %+v %v", m, err)
	}
	// A file ksleuth did not write is never deleted, --force or not.
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if _, err := OpenOut(dir, true); !errors.As(err, &refused) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("foreign file: %v", err)
	}
	os.Remove(filepath.Join(dir, "notes.txt"))
	os.WriteFile(filepath.Join(dir, Records, "README"), nil, 0o644)
	if _, err := OpenOut(dir, true); !errors.As(err, &refused) {
		t.Fatalf("foreign file in records: %v", err)
	}
}

func TestOutLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	out, err := OpenOut(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	_, err = OpenOut(dir, true)
	if !errors.As(err, &busy) || busy.PID != os.Getpid() || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second open: %v", err)
	}
	out.Close()
	out, err = OpenOut(dir, false)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	out.Close()
}

// TestOutLeftovers: what killed runs leave (staging dirs, old sets, and
// temporary files in the dir) is removed by the next run and listed.
func TestOutLeftovers(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	writeSet(t, dir, false, 2)
	left := []string{
		filepath.Join(parent, ".out"+stageInfix+"20260101T000000Z-1"),
		filepath.Join(parent, ".out"+oldInfix+"20260101T000000Z-2"),
	}
	for _, p := range left {
		os.MkdirAll(filepath.Join(p, "records"), 0o755)
		os.WriteFile(filepath.Join(p, Files), []byte("x"), 0o644)
	}
	temps := []string{filepath.Join(dir, "."+Batches+".tmp-0a1b2c"), filepath.Join(dir, "."+Records+".tmp-3d4e5f")}
	os.WriteFile(temps[0], []byte("x"), 0o644)
	os.Mkdir(temps[1], 0o755)
	out, err := OpenOut(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	if len(out.Removed) != 4 {
		t.Errorf("removed %v", out.Removed)
	}
	for _, p := range append(left, temps...) {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	if _, err := CheckSet(dir); err != nil {
		t.Errorf("the set itself: %v", err)
	}
}

// TestOutTwoRenameProtocol: without an atomic exchange the set is
// replaced by two renames; a kill between them leaves no dir and the old
// set under its hidden name, which the next run puts back.
func TestOutTwoRenameProtocol(t *testing.T) {
	saved := exchangeDirs
	defer func() { exchangeDirs = saved }()
	exchangeDirs = func(a, b string) error { return errNoExchange }
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	writeSet(t, dir, false, 2)
	id := writeSet(t, dir, true, 4)
	if m, err := CheckSet(dir); err != nil || m.RunID != id {
		t.Fatalf("after the fallback: %+v %v", m, err)
	}
	// The state of a kill between the renames.
	old := filepath.Join(parent, ".out"+oldInfix+"20260101T000000Z-9")
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	out, err := OpenOut(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	if out.Restored != old {
		t.Errorf("restored %q", out.Restored)
	}
	if m, err := CheckSet(dir); err != nil || m.RunID != id {
		t.Fatalf("restored set: %+v %v", m, err)
	}
}
