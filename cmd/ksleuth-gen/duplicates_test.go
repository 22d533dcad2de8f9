package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDuplicatesFlag: -duplicates writes the scenarios' log dir the docs
// show dups on, a partition dir per scenario topic, and refuses to run
// without -out.
func TestDuplicatesFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dups")
	var stderr bytes.Buffer
	if err := run([]string{"-duplicates", "-out", dir}, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "duplicate scenarios") {
		t.Errorf("stderr %q", stderr.String())
	}
	for _, p := range []string{"rp-out-0", "zb-out-0"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("the consumer-side scenarios are missing: %v", err)
		}
	}
	if err := run([]string{"-duplicates"}, &stderr); err == nil {
		t.Error("-duplicates without -out: no error")
	}
}
