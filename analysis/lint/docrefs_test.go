package lint

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoReferencesOutsideRepo keeps the code, help texts and docs
// self-contained: a reader of the repository cannot open a design or
// format note that only lived beside some checkout, so every pointer goes
// to a page under docs/ instead (docs/formats/ for byte layouts).
func TestNoReferencesOutsideRepo(t *testing.T) {
	// Spelled in pieces so that this file does not name them itself.
	banned := []string{"kafka-formats" + ".md", "DESIGN" + ".md"}
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		switch {
		case strings.HasSuffix(name, "_test.go"):
			return nil
		case strings.HasSuffix(name, ".go"), strings.HasSuffix(name, ".md"), strings.HasSuffix(name, ".sql"):
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(data), "\n") {
			for _, b := range banned {
				if strings.Contains(line, b) {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s:%d names %s, which is not part of the repository; point to docs/ instead", filepath.ToSlash(rel), i+1, b)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk must have reached the repository's sources and docs, or the
	// test proves nothing.
	if checked < 100 {
		t.Fatalf("only %d files checked under %s", checked, root)
	}
	for _, must := range []string{"README.md", "docs/architecture.md", "docs/formats/log-segment.md", "segment/doc.go"} {
		if _, err := os.Stat(filepath.Join(root, must)); err != nil {
			t.Errorf("%s: %v", must, err)
		}
	}
}
