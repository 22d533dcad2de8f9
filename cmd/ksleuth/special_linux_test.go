package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSpecialFilesNamedLikeSegments: a FIFO and a link to /dev/zero named
// like segments are listed as skipped, never read and never checked as
// segments; verify completes.
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
	if code != exitOK {
		t.Errorf("exit %d, want 0:\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "segment-overlap") || !strings.Contains(out, "skipped 3 file(s)") {
		t.Errorf("special files checked as segments, or not listed as skipped:\n%s", out)
	}
}
