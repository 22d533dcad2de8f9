package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
	out, errOut, code := runCLI(t, "verify", dir)
	if code != exitFindings || !strings.Contains(out, "INCOMPLETE") {
		t.Errorf("exit %d, want 3 and INCOMPLETE:\n%s%s", code, out, errOut)
	}
	for _, w := range []string{"00000000000000001000.log: a FIFO, not a regular file: not opened", "00000000000000002000.log: symlink to /dev/zero, out of the input root: not followed"} {
		if !strings.Contains(out, "error io-error: codecs-0/"+w) {
			t.Errorf("no io-error %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "segment-overlap") || !strings.Contains(out, "skipped 1 file(s)") {
		t.Errorf("special files checked as segments, or listed as skipped:\n%s", out)
	}
}
