package check_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// FuzzCheckPartition: a partition dir whose segment, index or snapshot
// bytes are arbitrary is verified without panic or error; every finding
// names a file of the dir and a position inside that file.
func FuzzCheckPartition(f *testing.F) {
	dir := f.TempDir()
	m, err := segtest.GenerateLogDir(dir, 5, segtest.GenOptions{})
	if err != nil {
		f.Fatal(err)
	}
	if err := segtest.WriteState(dir, m, segtest.StateOptions{IndexIntervalBytes: 64}); err != nil {
		f.Fatal(err)
	}
	base := fstest.MapFS{}
	fsys := os.DirFS(dir)
	part := "txn-0"
	ents, _ := fs.ReadDir(fsys, part)
	var names []string
	for _, e := range ents {
		data, _ := fs.ReadFile(fsys, path.Join(part, e.Name()))
		base[path.Join(part, e.Name())] = &fstest.MapFile{Data: data, Mode: 0o444}
		names = append(names, path.Join(part, e.Name()))
	}
	for i, n := range names {
		f.Add(uint8(i), base[n].Data)
	}
	// One dir for the whole run, the fuzzed file rewritten in it: the
	// checks, not the writing of a dozen files, are what is fuzzed.
	root := writeFS(f, base, "")
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := names[int(which)%len(names)]
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(p, base[name].Data, 0o644)
		rep := runPaths(t, root)
		for _, x := range rep.Findings {
			size := len(base[x.File].Data)
			if x.File == name {
				size = len(data)
			} else if _, ok := base[x.File]; !ok {
				t.Fatalf("finding about %q, not a file of the dir: %v", x.File, x)
			}
			if x.Position > int64(size) {
				t.Fatalf("finding past the end of %s (%d bytes): %v", x.File, size, x)
			}
		}
	})
}
