package bundle

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// TestWindowSelection: the sample's codecs-0 has a segment at 0 whose
// records end at 1700047600494 and one at 68 whose records start at
// 1700047601310. A window on either side keeps the one segment, with its
// indexes, and every state file; from a dir input and from an archive
// input (a bundle of the dir) alike.
func TestWindowSelection(t *testing.T) {
	const cut = 1700047601000
	whole, _, _ := makeBundle(t, nil, sampleDir)
	for _, path := range []string{sampleDir, whole} {
		inputs, err := source.Classify([]string{path})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			w          records.Window
			kept, left string
		}{
			{records.Window{Since: cut, Until: records.Always.Until}, "68", "00"},
			{records.Window{Since: records.Always.Since, Until: cut}, "00", "68"},
		} {
			out := filepath.Join(t.TempDir(), "b.tar.zst")
			res, err := Write(context.Background(), out, inputs, Options{Window: c.w, Now: time.Unix(0, 0)})
			if err != nil {
				t.Fatal(err)
			}
			m := res.Manifest
			in := func(name string) bool {
				for _, f := range m.Files {
					if f.Path == name || f.Path == "generated/"+name {
						return true
					}
				}
				return false
			}
			seg := func(base, ext string) string { return "codecs-0/000000000000000000" + base + ext }
			for _, ext := range []string{".log", ".index", ".timeindex"} {
				if !in(seg(c.kept, ext)) || in(seg(c.left, ext)) {
					t.Errorf("%s, window %d..%d: %s kept %t, %s kept %t", path, c.w.Since, c.w.Until, seg(c.kept, ext), in(seg(c.kept, ext)),
						seg(c.left, ext), in(seg(c.left, ext)))
				}
			}
			for _, state := range []string{"replication-offset-checkpoint", "codecs-0/leader-epoch-checkpoint", "codecs-0/00000000000000000068.snapshot"} {
				if !in(state) {
					t.Errorf("%s, window %d..%d: %s left out", path, c.w.Since, c.w.Until, state)
				}
			}
		}
	}
}

// TestWindowAlways: the zero window of Options selects nothing away, as
// the always window does.
func TestWindowAlways(t *testing.T) {
	inputs, err := source.Classify([]string{sampleDir})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for name, w := range map[string]records.Window{"zero": {}, "always": records.Always} {
		res, err := Write(context.Background(), filepath.Join(t.TempDir(), "b.tar.zst"), inputs, Options{Window: w, Now: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		counts[name] = len(res.Manifest.Files)
	}
	if counts["zero"] != counts["always"] || counts["zero"] < 80 {
		t.Errorf("files bundled: %v", counts)
	}
}
