package source

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckOutput: one rule for every output. Nothing goes inside a
// directory input; tables and pages do not go next to a file input,
// while spill files may.
func TestCheckOutput(t *testing.T) {
	root := t.TempDir()
	dirIn := filepath.Join(root, "logdir")
	fileIn := filepath.Join(root, "files", "0.log")
	for _, d := range []string{dirIn, filepath.Dir(fileIn)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inputs := []*Input{{Kind: Dir, Path: "logdir", Abs: dirIn}, {Kind: File, Path: "0.log", Abs: fileIn}}
	for _, c := range []struct {
		path       string
		kind       OutputKind
		next, fail bool
	}{
		{filepath.Join(dirIn, "out"), OutputDir, false, true},
		{filepath.Join(dirIn, "r.html"), OutputFile, false, true},
		{filepath.Join(dirIn, "tmp"), SpillDir, false, true},
		{filepath.Dir(fileIn), OutputDir, true, true},
		{filepath.Join(filepath.Dir(fileIn), "r.html"), OutputFile, true, true},
		{filepath.Dir(fileIn), SpillDir, false, false},
		{filepath.Join(root, "out"), OutputDir, false, false},
		{filepath.Join(root, "r.html"), OutputFile, false, false},
	} {
		err := CheckOutput(c.path, c.kind, inputs)
		var into *IntoInputError
		if got := errors.As(err, &into); got != c.fail || got && into.Next != c.next {
			t.Errorf("CheckOutput(%s, %d) = %v, want refused %v (next to a file input %v)", c.path, c.kind, err, c.fail, c.next)
		}
	}
}
