package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// sparseBomb writes a partition dir whose one segment declares 1 TiB:
// batches at the start, four bytes at the very end, a hole between. As a
// file and as a GNU sparse tar entry (tar -S) the hole is read through
// as zeros, which keeps a command inside one entry for a long time.
func sparseBomb(t *testing.T, base string) (dir, tarPath string) {
	t.Helper()
	dir = filepath.Join(base, "logs")
	p := filepath.Join(dir, "t-0", segtest.SegmentFileName(0))
	os.MkdirAll(filepath.Dir(p), 0o755)
	var seg []byte
	for i := range 5 {
		seg = append(seg, segtest.Batch{Magic: 2, BaseOffset: int64(i), FirstTimestamp: 1_700_000_000_000,
			Records: []segtest.Record{{Value: []byte("v")}}}.Encode()...)
	}
	if err := os.WriteFile(p, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	_, err := f.WriteAt([]byte("tail"), 1<<40-4)
	f.Close()
	if err != nil {
		t.Skipf("SKIPPED: the temp dir's file system holds no 1 TiB sparse file: %v", err)
	}
	if _, err := exec.LookPath("tar"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tar is needed by this test and missing on the CI machine")
		}
		return dir, ""
	}
	tarPath = filepath.Join(base, "bomb.tar")
	cmd := exec.Command("tar", "-S", "--format=gnu", "-cf", tarPath, "t-0")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, b)
	}
	return dir, tarPath
}

// TestSignalInsideLongEntry: SIGTERM and SIGINT stop every command within
// a second while it is inside one long entry (a 1 TiB sparse file or tar
// entry whose hole is read through), with exit 130 and no table left.
func TestSignalInsideLongEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := ksleuthBinary(t)
	base := t.TempDir()
	dir, tarPath := sparseBomb(t, base)
	outs := t.TempDir() // not next to the tar
	inputs := map[string]string{"dir": dir}
	if tarPath != "" {
		inputs["tar"] = tarPath
	}
	for name, in := range inputs {
		for _, c := range []struct {
			args []string
			sig  syscall.Signal
		}{
			{[]string{"scan", in, "--out", filepath.Join(outs, "out-"+name)}, syscall.SIGTERM},
			{[]string{"scan", in, "--out", filepath.Join(outs, "out-"+name)}, syscall.SIGINT},
			{[]string{"verify", in}, syscall.SIGTERM},
			{[]string{"dups", in}, syscall.SIGTERM},
			{[]string{"producers", in}, syscall.SIGTERM},
			{[]string{"report", in, "--html", filepath.Join(outs, name+".html")}, syscall.SIGTERM},
		} {
			cmd := exec.Command(bin, c.args...)
			var se bytes.Buffer
			cmd.Stderr = &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(700 * time.Millisecond)
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			d := time.Since(sent)
			code := cmd.ProcessState.ExitCode()
			t.Logf("%s %v %v: exit %d after %v", name, c.args[0], c.sig, code, d)
			if d > time.Second || code != exitInterrupted {
				t.Errorf("%s %v, %v after 700 ms: exit %d after %v: %s", name, c.args, c.sig, code, d, se.String())
			}
		}
		if _, err := os.Stat(filepath.Join(base, "out-"+name, "manifest.json")); err == nil {
			t.Errorf("%s: an interrupted scan left a set", name)
		}
	}
}
