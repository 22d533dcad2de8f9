package lint

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFileLines is how long a non-test Go file may grow: past it a file
// mixes concerns that read better split, each in a file of its own.
const maxFileLines = 800

// TestFileSize fails when a non-test Go file of the module is longer than
// maxFileLines.
func TestFileSize(t *testing.T) {
	t.Parallel()
	n := 0
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if lines := bytes.Count(data, []byte("\n")); lines > maxFileLines {
			t.Errorf("%s has %d lines, more than %d: split it by concern", strings.TrimPrefix(p, "../../"), lines, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d Go files found", n)
	}
}
