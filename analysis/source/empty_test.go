package source

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestListEmptyPartitionDirs: List names the partition dirs of a log dir
// that hold no file, and no other empty dir: not one outside a log dir,
// which may be a log dir of its own, nor one the topic filter leaves out.
func TestListEmptyPartitionDirs(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "broker-1", "meta.properties"), "version=1\nnode.id=1\n")
	write(t, filepath.Join(root, "broker-1", "a-0", "00000000000000000000.log"), "")
	write(t, filepath.Join(root, "broker-1", "notes-1", "README"), "kept by hand")
	for _, d := range []string{"broker-1/a-1", "broker-1/b-0", "broker-1/tmp", "broker-2"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in := &Input{Kind: Dir, Path: root, Abs: root}
	paths := func(o Options) []string {
		files, empty, err := in.List(o)
		if err != nil {
			t.Fatal(err)
		}
		if o.Topic == nil && len(files) != 3 {
			t.Errorf("files %v", byPath(files))
		}
		var out []string
		for _, e := range empty {
			if e.Partition == nil || e.LogDir != "broker-1" {
				t.Errorf("entry %+v", e)
			}
			out = append(out, e.Path)
		}
		return out
	}
	if got := paths(Options{}); !slices.Equal(got, []string{"broker-1/a-1/", "broker-1/b-0/"}) {
		t.Errorf("empty dirs %q", got)
	}
	if got := paths(Options{Topic: regexp.MustCompile("^a$")}); !slices.Equal(got, []string{"broker-1/a-1/"}) {
		t.Errorf("empty dirs of topic a %q", got)
	}
}
