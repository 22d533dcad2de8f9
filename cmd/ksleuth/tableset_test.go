package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis/export"
)

// TestConcurrentScansRefused: a second scan into the --out of a running
// one is refused, naming the first one's pid; the first completes its
// set. The same for two runs writing one --html file.
func TestConcurrentScansRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := ksleuthBinary(t)
	in := t.TempDir()
	bigSegment(t, in, 100_000)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	cmd := exec.Command(bin, "scan", in, "--out", out, "--records")
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := fmt.Sprint(cmd.Process.Pid)
	lock := filepath.Join(parent, ".out.ksleuth-lock")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if b, _ := os.ReadFile(lock); strings.TrimSpace(string(b)) == pid {
			break
		}
	}
	_, stderr, code := runCLI(t, "scan", in, "--out", out, "--force")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("first scan: %v %s", err, se.String())
	}
	if code == exitOK || !strings.Contains(stderr, "another ksleuth run (pid "+pid+")") {
		t.Errorf("second scan: exit %d, %q", code, stderr)
	}
	m, err := export.CheckSet(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tables) < 9 {
		t.Errorf("the first run's set has %d tables", len(m.Tables))
	}

	// --html: this process holds the lock, as a running report would.
	html := filepath.Join(t.TempDir(), "report.html")
	l, err := export.LockPath(html)
	if err != nil {
		t.Fatal(err)
	}
	small := t.TempDir()
	os.CopyFS(filepath.Join(small, "codecs-0"), os.DirFS(filepath.Join(generatedDir, "codecs-0")))
	_, stderr, code = runCLI(t, "report", small, "--html", html)
	if code == exitOK || !strings.Contains(stderr, fmt.Sprintf("another ksleuth run (pid %d)", os.Getpid())) {
		t.Errorf("report into a locked --html: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(html); err == nil {
		t.Errorf("the refused report wrote %s", html)
	}
	l.Release()
	if _, stderr, code := runCLI(t, "report", small, "--html", html); code != exitOK {
		t.Errorf("report after release: exit %d %s", code, stderr)
	}
}

// TestLeftoversRemoved: the staging dirs, old sets and temporary files of
// killed runs are removed by the next run, which says so; the report's
// temporary files too.
func TestLeftoversRemoved(t *testing.T) {
	in := t.TempDir()
	os.CopyFS(filepath.Join(in, "codecs-0"), os.DirFS(filepath.Join(generatedDir, "codecs-0")))
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if _, stderr, code := runCLI(t, "scan", in, "--out", out); code != exitOK {
		t.Fatalf("exit %d %s", code, stderr)
	}
	left := []string{
		filepath.Join(parent, ".out.ksleuth-stage-20260101T000000Z-0a"),
		filepath.Join(parent, ".out.ksleuth-old-20260101T000000Z-0b"),
		filepath.Join(out, ".batches.parquet.tmp-0c0d0e"),
		filepath.Join(parent, ".r.html.tmp-123"),
	}
	os.MkdirAll(filepath.Join(left[0], "records", "topic=a"), 0o755)
	os.WriteFile(filepath.Join(left[0], "files.parquet"), []byte("x"), 0o644)
	os.Mkdir(left[1], 0o755)
	os.WriteFile(left[2], []byte("x"), 0o644)
	os.WriteFile(left[3], []byte("<html"), 0o644)
	_, stderr, code := runCLI(t, "scan", in, "--out", out, "--force", "--html", filepath.Join(parent, "r.html"))
	if code != exitOK {
		t.Fatalf("exit %d %s", code, stderr)
	}
	for _, p := range left {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
		if !strings.Contains(stderr, p) {
			t.Errorf("stderr does not name %s: %s", p, stderr)
		}
	}
	if !strings.Contains(stderr, "removed what an interrupted run left") {
		t.Errorf("stderr %q", stderr)
	}
	if _, err := export.CheckSet(out); err != nil {
		t.Error(err)
	}
}

// TestScanOutForeignFiles: an --out holding a file ksleuth did not write
// is refused even with --force, and the file stays.
func TestScanOutForeignFiles(t *testing.T) {
	in := t.TempDir()
	os.CopyFS(filepath.Join(in, "codecs-0"), os.DirFS(filepath.Join(generatedDir, "codecs-0")))
	out := t.TempDir()
	notes := filepath.Join(out, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	for _, force := range []string{"--force=false", "--force"} {
		_, stderr, code := runCLI(t, "scan", in, "--out", out, force)
		if code != exitUsage || !strings.Contains(stderr, "notes.txt") {
			t.Errorf("%s: exit %d %q", force, code, stderr)
		}
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("notes.txt: %q %v", b, err)
	}
}

// TestScanHTMLInsideOut: the page of scan --html may not go into --out,
// whose set is replaced as a whole; nothing is written.
func TestScanHTMLInsideOut(t *testing.T) {
	in := t.TempDir()
	os.CopyFS(filepath.Join(in, "codecs-0"), os.DirFS(filepath.Join(generatedDir, "codecs-0")))
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runCLI(t, "scan", in, "--out", out, "--html", filepath.Join(out, "r.html"))
	if code != exitUsage || !strings.Contains(stderr, "inside --out") {
		t.Errorf("exit %d %q", code, stderr)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Errorf("the refused scan made %s", out)
	}
}
