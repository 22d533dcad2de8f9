package main

import (
	"path/filepath"
	"testing"
)

// TestAllShortV: -v is --all wherever --all exists, and prints the same.
func TestAllShortV(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "logdirs", "generated")
	for _, c := range []string{"verify", "replicas", "producers", "consumers", "dups"} {
		long, _, code := runCLI(t, c, "--all", "--progress", "never", dir)
		short, errOut, code2 := runCLI(t, c, "-v", "--progress", "never", dir)
		if code != code2 || long != short || long == "" {
			t.Errorf("%s -v (exit %d, %s) differs from --all (exit %d):\n%s\n---\n%s", c, code2, errOut, code, short, long)
		}
	}
}
