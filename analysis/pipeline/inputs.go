package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Overlapping refuses inputs that name the same files twice: the same
// path, or a path inside a dir input. Their records would be counted
// twice, and compared with themselves as two brokers' copies.
func Overlapping(inputs []*source.Input) error {
	inside := func(a, b *source.Input) bool {
		return b.Kind == source.Dir && strings.HasPrefix(a.Abs, b.Abs+string(filepath.Separator))
	}
	for i, a := range inputs {
		for _, b := range inputs[i+1:] {
			switch {
			case a.Abs == "-" || b.Abs == "-":
			case a.Abs == b.Abs:
				return fmt.Errorf("%s and %s are the same input: give each once", a.Path, b.Path)
			case inside(b, a):
				return fmt.Errorf("%s is inside the input %s: its files would be read twice", b.Path, a.Path)
			case inside(a, b):
				return fmt.Errorf("%s is inside the input %s: its files would be read twice", a.Path, b.Path)
			}
		}
	}
	return nil
}

// ProgressTotal is the bytes a progress count of the run goes to: unknown
// (-1) for archives, whose entries are only known as they are read; 0
// asks the caller to add up the directory inputs (InputSize) when it
// shows the count at all, since that walks every input.
func ProgressTotal(inputs []*source.Input) int64 {
	for _, in := range inputs {
		if in.Kind == source.Archive {
			return -1
		}
	}
	return 0
}

// InputSize is the bytes of the regular files of the inputs: a file's
// own size for a file or an archive.
func InputSize(inputs []*source.Input) int64 {
	var n int64
	for _, in := range inputs {
		n += treeSize(in.Abs)
	}
	return n
}

// treeSize adds up the regular files under root (root itself when it is
// one); what cannot be listed counts nothing.
func treeSize(root string) int64 {
	var n int64
	_ = filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// OpenDetector opens the duplicate detector of o for inputs, after
// refusing a spill dir inside a directory input (a
// *source.IntoInputError), with room reserved for the records the inputs
// probably hold.
func OpenDetector(o dups.Options, inputs []*source.Input) (*dups.Detector, error) {
	if err := source.CheckOutput(o.TmpDir, source.SpillDir, inputs); err != nil {
		return nil, err
	}
	det, err := dups.New(o)
	if err != nil {
		return nil, err
	}
	// Reserve the detector's entries from the input size: a record rarely
	// takes less than 256 bytes of segment on disk.
	det.Reserve(int(min(InputSize(inputs)/256, 1<<30)))
	return det, nil
}

// Pattern compiles a filter's regular expression (a topic's, a consumer
// group's); an empty one keeps everything: nil.
func Pattern(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	return regexp.Compile(expr)
}
