package realcheck

import (
	"path/filepath"
	"strings"
	"testing"
)

// checkBundle makes a redacted bundle of what the brokers wrote and checks
// that verify, dups and replicas find the same in it (bundle --check
// exits 0 only then), byte positions mapped through its manifest.
func checkBundle(t *testing.T, logDirs []string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "bundle.tar.zst")
	args := append([]string{"bundle", "--out", out, "--redact", "--secret-file", filepath.Join(dir, "secret")}, logDirs...)
	if _, errs, code := scanCmd(t, args...); code != exitOK {
		t.Fatalf("bundle: exit %d\n%s", code, errs)
	}
	got, errs, code := scanCmd(t, append([]string{"bundle", "--check", out}, logDirs...)...)
	if code != exitOK || !strings.Contains(got, "tells the same story") {
		t.Errorf("bundle --check: exit %d\n%s%s", code, got, errs)
	}
}
