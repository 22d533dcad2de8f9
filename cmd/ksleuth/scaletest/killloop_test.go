package scaletest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
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
	bin := clitest.Binary(t)
	in := t.TempDir()
	clitest.BigSegment(t, in, 60_000)
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
