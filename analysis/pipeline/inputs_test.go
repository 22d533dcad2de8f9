package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/source"
)

// TestOverlapping: the same path twice and a path inside a dir input are
// refused; stdin and disjoint inputs are not.
func TestOverlapping(t *testing.T) {
	sep := string(filepath.Separator)
	dir := &source.Input{Path: "logs", Abs: sep + "logs", Kind: source.Dir}
	inside := &source.Input{Path: "logs/t-0", Abs: sep + "logs" + sep + "t-0", Kind: source.Dir}
	other := &source.Input{Path: "logs2", Abs: sep + "logs2", Kind: source.Dir}
	stdin := &source.Input{Path: "-", Abs: "-", Kind: source.Archive}
	cases := []struct {
		inputs []*source.Input
		want   string
	}{
		{[]*source.Input{dir, other, stdin}, ""},
		{[]*source.Input{dir, dir}, "are the same input"},
		{[]*source.Input{dir, inside}, "logs/t-0 is inside the input logs"},
		{[]*source.Input{inside, dir}, "logs/t-0 is inside the input logs"},
	}
	for i, c := range cases {
		err := Overlapping(c.inputs)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d: %v, want none", i, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("case %d: %v, want %q", i, err, c.want)
		}
	}
}

// TestInputSize adds up the regular files below a dir input, and an
// archive makes the progress total unknown.
func TestInputSize(t *testing.T) {
	dir := t.TempDir()
	for name, n := range map[string]int{"a": 3, "sub/b": 5} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := []*source.Input{{Path: dir, Abs: dir, Kind: source.Dir}}
	if got := InputSize(in); got != 8 {
		t.Errorf("InputSize = %d, want 8", got)
	}
	if got := ProgressTotal(in); got != 0 {
		t.Errorf("ProgressTotal of a dir = %d, want 0", got)
	}
	in = append(in, &source.Input{Path: "x.tar", Abs: "/x.tar", Kind: source.Archive})
	if got := ProgressTotal(in); got != -1 {
		t.Errorf("ProgressTotal with an archive = %d, want -1", got)
	}
}
