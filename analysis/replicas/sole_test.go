package replicas_test

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// TestSoleCopy: the scan marks the records and batches of a partition
// that no other live partition dir of the run holds
// (scan.EntryBatch.SoleCopy, analysis.BatchRow.SoleCopy), so the replica
// comparison keeps no fingerprints nor batch headers of them. Truth, per input set:
// one broker alone, and two brokers holding different partitions, are
// sole; two brokers holding t-0 are not; nothing is sole when an input is
// an archive, whose dirs are not known before it is read.
func TestSoleCopy(t *testing.T) {
	root := t.TempDir()
	var seg []byte
	for i := range 4 {
		seg = append(seg, batchOf(int64(i*5), 5, 0, "v")...)
	}
	b1 := broker(t, root, 1, seg, [][2]int64{{0, 0}}, 20)
	b2 := broker(t, root, 2, seg, [][2]int64{{0, 0}}, 20)
	b3 := broker(t, root, 3, seg, [][2]int64{{0, 0}}, 20)
	if err := os.Rename(filepath.Join(b3, "t-0"), filepath.Join(b3, "u-0")); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(root, "broker-2.tar")
	writeTar(t, archive, b2)
	for _, c := range []struct {
		name  string
		paths []string
		sole  bool
	}{
		{"one broker", []string{b1}, true},
		{"two brokers, two partitions", []string{b1, b3}, true},
		{"two brokers, one partition", []string{b1, b2}, false},
		{"a broker and an archive", []string{b1, archive}, false},
	} {
		inputs, err := source.Classify(c.paths)
		if err != nil {
			t.Fatal(err)
		}
		batches, sole, rows, soleRows := 0, 0, 0, 0
		_, err = scan.Run(context.Background(), inputs, scan.Config{Jobs: 2, Compact: true, Records: true}, scan.Output{
			Batches: func(bs []analysis.BatchRow) error {
				for _, b := range bs {
					rows++
					if b.SoleCopy {
						soleRows++
					}
				}
				return nil
			},
			Entries: func(bs []scan.EntryBatch) error {
				for _, b := range bs {
					batches++
					if b.SoleCopy {
						sole++
					}
				}
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if c.sole {
			want = batches
		}
		if batches != 4*len(c.paths) || sole != want {
			t.Errorf("%s: %d of %d entry batches sole, want %d of %d", c.name, sole, batches, want, 4*len(c.paths))
		}
		if rows != batches || soleRows != want {
			t.Errorf("%s: %d of %d batch rows sole, want %d of %d", c.name, soleRows, rows, want, batches)
		}
	}
}

// writeTar writes dir's files into a tar archive at path, under dir's name.
func writeTar(t *testing.T, path, dir string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, err := filepath.Rel(filepath.Dir(dir), p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}
