package dump

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/segment"
)

// TestStateFile prints a leader-epoch-checkpoint in text, as
// kafka-dump-log's neighbours print it, and as JSON lines.
func TestStateFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "leader-epoch-checkpoint")
	if err := os.WriteFile(name, []byte("0\n2\n0 0\n3 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	d := New(DefaultOptions(), &out, &errw)
	if err := d.File(name); err != nil {
		t.Fatal(err)
	}
	d.Flush()
	want := "Dumping " + name + "\nversion: 0 count: 2\nleaderEpoch: 0 startOffset: 0\nleaderEpoch: 3 startOffset: 100\n"
	if out.String() != want || errw.Len() != 0 || d.Findings() != 0 {
		t.Errorf("text: %q, stderr %q, %d findings; want %q", out.String(), errw.String(), d.Findings(), want)
	}

	out.Reset()
	o := DefaultOptions()
	o.JSON = true
	d = New(o, &out, &errw)
	if err := d.File(name); err != nil {
		t.Fatal(err)
	}
	d.Flush()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"leader_epoch":3`) || !strings.Contains(lines[1], `"start_offset":100`) {
		t.Errorf("JSON: %q", out.String())
	}
}

// TestUnknownFile: a file that is no Kafka file by its name, a directory
// and a path that does not exist are each told apart.
func TestUnknownFile(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		notes:                             "unknown kind of file",
		dir:                               "is a directory (dump reads one file; use scan or verify for a dir)",
		filepath.Join(dir, "gone.log"):    "gone.log: no such file",
		filepath.Join(dir, "gone-0", "x"): "x: no such file",
	} {
		var out, errw bytes.Buffer
		if err := New(DefaultOptions(), &out, &errw).File(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// TestKeepBatch checks the selection of batches by offsets and time.
func TestKeepBatch(t *testing.T) {
	b := &segment.Batch{BaseOffset: 10, LastOffsetDelta: 4, Magic: 2, FirstTimestamp: 1000, MaxTimestamp: 2000}
	cases := []struct {
		rng  records.Range
		win  records.Window
		keep bool
	}{
		{records.All, records.Always, true},
		{records.Range{From: 14, To: 20}, records.Always, true},
		{records.Range{From: 15, To: 20}, records.Always, false},
		{records.Range{From: 0, To: 9}, records.Always, false},
		{records.All, records.Window{Since: 2000, Until: 3000}, true},
		{records.All, records.Window{Since: 2001, Until: 3000}, false},
		{records.All, records.Window{Since: 0, Until: 1000}, false},
	}
	for _, c := range cases {
		o := DefaultOptions()
		o.Offsets, o.Window = c.rng, c.win
		if got := o.keepBatch(b); got != c.keep {
			t.Errorf("range %v window %+v: keep %t, want %t", c.rng, c.win, got, c.keep)
		}
	}
}
