package bundle

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/source"
)

const sampleDir = "../../testdata/logdirs/generated"

// realDirs are the broker log dirs of the real corpus.
func realDirs(t *testing.T) []string {
	t.Helper()
	root := "../../../shared/corpus/real"
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatal("no dirs in the real corpus")
	}
	return out
}

// makeBundle bundles paths into a temp dir; secret nil: unredacted.
func makeBundle(t *testing.T, secret []byte, paths ...string) (string, *Manifest, []*source.Input) {
	t.Helper()
	inputs, err := source.Classify(paths)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b.tar.zst")
	res, err := Write(context.Background(), out, inputs, Options{Secret: secret, Version: "test", Command: "ksleuth bundle", Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	return out, res.Manifest, inputs
}

// checkSame compares a bundle with its inputs and fails on any difference.
func checkSame(t *testing.T, out string, man *Manifest, inputs []*source.Input) {
	t.Helper()
	b, err := source.Classify([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	read, err := ReadManifest(context.Background(), b[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Files) != len(man.Files) {
		t.Fatalf("manifest read back with %d files, written with %d", len(read.Files), len(man.Files))
	}
	diffs, _, err := Compare(context.Background(), inputs, b[0], read, CompareOptions{Jobs: 1, TmpDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
}

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func TestSampleBundleSameVerdicts(t *testing.T) {
	for _, secret := range [][]byte{nil, testSecret} {
		out, man, inputs := makeBundle(t, secret, sampleDir)
		if len(man.Files) == 0 {
			t.Fatal("empty bundle")
		}
		checkSame(t, out, man, inputs)
	}
}

// TestRealBundlesSameVerdicts bundles every dir of the real corpus with
// redaction and checks that the analysis finds the same in the bundle.
func TestRealBundlesSameVerdicts(t *testing.T) {
	for _, d := range realDirs(t) {
		t.Run(filepath.Base(d), func(t *testing.T) {
			out, man, inputs := makeBundle(t, testSecret, d)
			checkSame(t, out, man, inputs)
		})
	}
}

// TestTwoBrokersBundle bundles the sample and a copy of it as two
// brokers' log dirs: each gets a dir of its own in the bundle, and the
// replicas' verdicts come out the same.
func TestTwoBrokersBundle(t *testing.T) {
	second := filepath.Join(t.TempDir(), "generated")
	if err := os.CopyFS(second, os.DirFS(sampleDir)); err != nil {
		t.Fatal(err)
	}
	out, man, inputs := makeBundle(t, testSecret, sampleDir, second)
	if len(man.Inputs) != 2 || man.Inputs[0].Prefix != "1-generated" || man.Inputs[1].Prefix != "2-generated" {
		t.Fatalf("inputs %+v", man.Inputs)
	}
	f, _, err := facts(context.Background(), inputs, CompareOptions{Jobs: 1, TmpDir: t.TempDir()},
		func(i int32, d string) string { return man.Dir(int(i), d) }, man, same)
	if err != nil {
		t.Fatal(err)
	}
	replicas := 0
	for _, s := range f {
		if strings.HasPrefix(s, "replica 2-generated/") {
			replicas++
		}
	}
	if replicas < 9 {
		t.Errorf("%d replica lines of the second broker in %d facts", replicas, len(f))
	}
	checkSame(t, out, man, inputs)
}

// TestOffsetsSelection keeps only the segments that can hold offsets
// 60..70: of a partition whose segments start at 0 and 68, both; of one
// whose single segment starts at 0, that one; and every file that is no
// segment's.
func TestOffsetsSelection(t *testing.T) {
	inputs, err := source.Classify([]string{sampleDir})
	if err != nil {
		t.Fatal(err)
	}
	all, err := inputs[0].Files(source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, r := range []records.Range{{From: 60, To: 70}, {From: 0, To: 10}} {
		sel := newSelection(&r, all, nil)
		for _, e := range all {
			kept[r.String()+" "+e.Path] = sel.keeps(e)
		}
	}
	for name, want := range map[string]bool{
		"60..70 codecs-0/00000000000000000000.log":      true,
		"60..70 codecs-0/00000000000000000068.log":      true,
		"0..10 codecs-0/00000000000000000068.log":       false,
		"0..10 codecs-0/00000000000000000068.timeindex": false,
		"0..10 codecs-0/00000000000000000000.log":       true,
		"0..10 codecs-0/00000000000000000068.snapshot":  true,
		"0..10 replication-offset-checkpoint":           true,
	} {
		if got, ok := kept[name]; !ok || got != want {
			t.Errorf("%s: kept %t (listed %t), want %t", name, got, ok, want)
		}
	}
	r := records.Range{From: 0, To: 10}
	out := filepath.Join(t.TempDir(), "b.tar.zst")
	res, err := Write(context.Background(), out, inputs, Options{Offsets: &r, Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Manifest.Lookup(0, "codecs-0/00000000000000000068.log") != nil || res.Manifest.Lookup(0, "codecs-0/00000000000000000000.log") == nil {
		t.Error("the bundle of offsets 0..10 does not hold the segments that can hold them, and only those")
	}
}

// TestEmptyPartitionDir: a partition dir without a file is evidence (a
// broker always keeps an active segment), and the bundle keeps it, from a
// dir input and from an archive input alike.
func TestEmptyPartitionDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "generated")
	if err := os.CopyFS(dir, os.DirFS(sampleDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, man, inputs := makeBundle(t, nil, dir)
	checkSame(t, out, man, inputs)
	again, man2, inputs2 := makeBundle(t, testSecret, out) // a bundle of the bundle
	checkSame(t, again, man2, inputs2)
	f, _, err := facts(context.Background(), inputs2, CompareOptions{Jobs: 1, TmpDir: t.TempDir()},
		func(i int32, d string) string { return man2.Dir(int(i), d) }, man2, same)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(f, func(s string) bool { return strings.HasPrefix(s, "verdict b/generated/empty-0 ") }) {
		t.Errorf("no verdict of the empty dir in %q", f)
	}
}

// same renames nothing.
func same(p string) string { return p }
