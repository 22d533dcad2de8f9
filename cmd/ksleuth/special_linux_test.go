package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFilesNamedLikeSegments: a FIFO and a link to /dev/zero named
// like segments are never read and never checked as segments; as files a
// broker would read, whose data the copy does not hold, they are
// io-errors and the run is INCOMPLETE (exit 3), not skipped files.
func TestSpecialFilesNamedLikeSegments(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, sampleDir)
	if err := syscall.Mkfifo(filepath.Join(dir, "codecs-0", "00000000000000001000.log"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "codecs-0", "00000000000000002000.log")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLIFlat(t, "verify", dir)
	if code != exitFindings || !strings.Contains(out, "INCOMPLETE") {
		t.Errorf("exit %d, want 3 and INCOMPLETE:\n%s%s", code, out, errOut)
	}
	for _, w := range []string{"00000000000000001000.log: a FIFO, not a regular file: not opened", "00000000000000002000.log: symlink to /dev/zero, out of the input root: not followed"} {
		if !strings.Contains(out, "error io-error: codecs-0/"+w) {
			t.Errorf("no io-error %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "segment-overlap") || !strings.Contains(out, "skipped 1 file that") {
		t.Errorf("special files checked as segments, or listed as skipped:\n%s", out)
	}
}

// TestDumpSpecialFiles: dump opens only regular files. Truth: a FIFO named
// like a segment would block the open until a writer came, and a link to
// /dev/zero would feed the reader zeros forever; each is refused at once,
// naming what it is, and a link to a regular segment is followed (the
// user named it).
func TestDumpSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "00000000000000000000.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "00000000000000000005.log")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, "00000000000000000009.log")
	target, err := filepath.Abs(filepath.Join(sampleDir, "codecs-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, seg); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a FIFO, not a regular file: not opened", zero: "a device, not a regular file: not opened"} {
		done := make(chan struct{})
		var errOut string
		var code int
		go func() {
			defer close(done)
			_, errOut, code = runCLI(t, "dump", path)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("dump %s still running after 30 s", path)
		}
		if code == exitOK || !strings.Contains(errOut, want) {
			t.Errorf("dump %s: exit %d, stderr %q, want %q", path, code, errOut, want)
		}
	}
	if out, errOut, code := runCLI(t, "dump", seg); code != exitOK || !strings.Contains(out, "baseOffset: 0") {
		t.Errorf("dump of a link to a segment: exit %d\n%s%s", code, out, errOut)
	}
}
