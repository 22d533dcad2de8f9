package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis/export"
)

// killScan starts scan --force into out and kills it with SIGKILL after
// d; it reports whether the kill came before the scan ended.
func killScan(t *testing.T, bin, in, out string, d time.Duration) (killed bool) {
	t.Helper()
	cmd := exec.Command(bin, "scan", in, "--out", out, "--records", "--force", "--jobs", "1")
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("scan: %v %s", err, se.String())
		}
		return false
	case <-time.After(d):
	}
	cmd.Process.Signal(syscall.SIGKILL)
	err := <-exited
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		if err != nil {
			t.Fatalf("scan: %v %s", err, se.String())
		}
		return false
	}
	return true
}

// timedScan runs scan --force into out to completion and returns how long
// it took.
func timedScan(t *testing.T, bin, in, out string) time.Duration {
	t.Helper()
	start := time.Now()
	if b, err := exec.Command(bin, "scan", in, "--out", out, "--records", "--force", "--jobs", "1").CombinedOutput(); err != nil {
		t.Fatalf("scan: %v %s", err, b)
	}
	return time.Since(start)
}

// TestKillLoopLeavesOneSet: scan --force killed with SIGKILL at 12
// moments spread over the last 150 ms of a run (when it closes its tables,
// writes the manifest and replaces the set) leaves exactly one complete
// set under --out every time: the previous one or the new one, whole.
func TestKillLoopLeavesOneSet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary 15 times, 10 to 30 s")
	}
	bin := ksleuthBinary(t)
	in := t.TempDir()
	bigSegment(t, in, 60_000)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	// The length of a run, measured on this machine now: the median of
	// three.
	var ds []time.Duration
	for range 3 {
		ds = append(ds, timedScan(t, bin, in, out))
	}
	slices.Sort(ds)
	run := ds[1]
	t.Logf("a run takes %v (runs %v)", run, ds)
	prev, err := export.CheckSet(out)
	if err != nil {
		t.Fatal(err)
	}
	const kills, window = 12, 150 * time.Millisecond
	var hit, replaced int
	// A run can end sooner than the runs measured (a busy machine
	// slowed those): each kill that came after the end moves the window
	// earlier, so that kills keep landing in a run's last moments.
	var shift time.Duration
	for i := range kills {
		at := max(run-window+window*time.Duration(i)/(kills-1)-shift, time.Millisecond)
		killed := killScan(t, bin, in, out, at)
		if !killed {
			shift += window / 3
		}
		m, err := export.CheckSet(out)
		if err != nil {
			ents, _ := os.ReadDir(out)
			t.Fatalf("kill %d at %v (killed %v): not one complete set: %v; %s holds %v", i, at, killed, err, out, ents)
		}
		if killed {
			hit++
		}
		if m.RunID != prev.RunID {
			replaced++
		}
		prev = m
		// Only the set, its lock file and what a kill left beside it
		// (removed by the next run) are there.
		ents, _ := os.ReadDir(parent)
		for _, e := range ents {
			n := e.Name()
			if n != "out" && n != ".out.ksleuth-lock" && !strings.HasPrefix(n, ".out.ksleuth-stage-") && !strings.HasPrefix(n, ".out.ksleuth-old-") {
				t.Errorf("kill %d: %s beside --out", i, n)
			}
		}
	}
	t.Logf("%d of %d kills came before the run ended; the set was the new one after %d", hit, kills, replaced)
	if hit == 0 {
		t.Errorf("no kill came before the end of a run (a run takes %v)", run)
	}
}

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
