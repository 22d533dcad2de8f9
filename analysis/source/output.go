package source

import (
	"fmt"
	"os"
	"path/filepath"
)

// OutputKind says what is written at an output path, which decides how
// near an input it may be.
type OutputKind int

const (
	// OutputDir is a directory of outputs (the tables): not inside a
	// directory input, and not the directory that holds a file input.
	OutputDir OutputKind = iota
	// OutputFile is one file (the page): not inside a directory input,
	// and not in the directory that holds a file input.
	OutputFile
	// SpillDir is where temporary files go ("" is the system's temporary
	// dir): not inside a directory input.
	SpillDir
)

// IntoInputError says that an output would be written into an input, or
// next to a file input: ksleuth never writes into or next to its inputs.
type IntoInputError struct {
	Path  string // the output as given
	Kind  OutputKind
	Input *Input
	// Next: the output is next to the file input Input, not inside the
	// directory input Input.
	Next bool
}

func (e *IntoInputError) Error() string {
	switch {
	case e.Kind == SpillDir:
		return fmt.Sprintf("the temporary dir %s is inside the input %s, and ksleuth never writes into its inputs", e.Path, e.Input.Path)
	case e.Next && e.Kind == OutputDir:
		return fmt.Sprintf("%s is the directory of the input %s; ksleuth never writes next to its inputs", e.Path, e.Input.Path)
	case e.Next:
		return fmt.Sprintf("%s is next to the input %s; ksleuth never writes next to its inputs", e.Path, e.Input.Path)
	}
	return fmt.Sprintf("%s is inside the input %s; ksleuth never writes into its inputs", e.Path, e.Input.Path)
}

// CheckOutput is the one rule for where a run may write: it returns an
// *IntoInputError when the output at path, of kind k, lies inside a
// directory input or next to a file input (see OutputKind), else nil.
func CheckOutput(path string, k OutputKind, inputs []*Input) error {
	if k == SpillDir && path == "" {
		path = os.TempDir()
	}
	dir := path
	if k == OutputFile {
		dir = filepath.Dir(path)
	}
	for _, in := range inputs {
		switch {
		case in.Kind == Dir:
			if Within(in.Abs, path) {
				return &IntoInputError{Path: path, Kind: k, Input: in}
			}
		case k != SpillDir:
			if Within(dir, in.Abs) && Within(filepath.Dir(in.Abs), dir) {
				return &IntoInputError{Path: path, Kind: k, Input: in, Next: true}
			}
		}
	}
	return nil
}
