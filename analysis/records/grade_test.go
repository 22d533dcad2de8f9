package records

import (
	"archive/tar"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// batches encodes n batches of five records from offset base on.
func batches(base int64, n int) (data []byte, pos []int64) {
	for i := range n {
		b := segtest.Batch{Magic: 2, BaseOffset: base + int64(5*i), FirstTimestamp: 1700000000000, AutoDeltas: true}
		for j := range 5 {
			b.Records = append(b.Records, segtest.Record{Value: []byte{byte('a' + j)}})
		}
		pos = append(pos, int64(len(data)))
		data = append(data, b.Encode()...)
	}
	return data, pos
}

// findings runs a selection over path and returns its findings.
func findings(t *testing.T, path string, o Options) ([]analysis.AnomalyRow, Stats) {
	t.Helper()
	ins, err := source.Classify([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var fs []analysis.AnomalyRow
	st, err := Run(context.Background(), ins, []string{"s"}, o, Sink{
		Record:  func(*Record) error { return nil },
		Finding: func(a analysis.AnomalyRow) { fs = append(fs, a) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return fs, st
}

// TestTornGraded: a partition dir whose rolled segment and active segment
// both end in a torn batch. Truth, as verify grades them: the rolled
// one's is an error (written data lost), the active one's a warning (a
// torn tail), read from the dir and from a tar archive of it alike.
func TestTornGraded(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "logs")
	dir := filepath.Join(root, "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rolled, _ := batches(0, 3)
	active, _ := batches(15, 2)
	files := map[string][]byte{
		"00000000000000000000.log": rolled[:len(rolled)-10],
		"00000000000000000015.log": active[:len(active)-10],
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tarPath := filepath.Join(t.TempDir(), "logs.tar")
	tf, err := os.Create(tarPath)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(tf)
	// The active segment first: the archive's order is not the offsets'.
	for _, name := range []string{"00000000000000000015.log", "00000000000000000000.log"} {
		if err := tw.WriteHeader(&tar.Header{Name: "t-0/" + name, Mode: 0o644, Size: int64(len(files[name]))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[name])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	tf.Close()
	for _, in := range []string{root, tarPath} {
		fs, _ := findings(t, in, New())
		got := map[string]string{}
		for _, f := range fs {
			got[filepath.Base(f.File)] = string(f.Kind) + " " + string(f.Severity)
		}
		want := map[string]string{
			"00000000000000000000.log": "truncated-batch error",
			"00000000000000000015.log": "truncated-batch warning",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(fs) != 2 {
			t.Errorf("%s: findings %v, want %v", filepath.Base(in), got, want)
		}
	}
}

// TestSeekPositions: a segment read from the byte its .index gives, with
// zeros over a batch after that byte. Truth: the finding and its message
// name byte positions of the file, as a read from the start names them.
func TestSeekPositions(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, pos := batches(0, 6)
	clear(data[pos[3] : pos[3]+20])
	idx := make([]byte, 8)
	binary.BigEndian.PutUint32(idx, 10)
	binary.BigEndian.PutUint32(idx[4:], uint32(pos[2]))
	for name, b := range map[string][]byte{"00000000000000000000.log": data, "00000000000000000000.index": idx} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := New()
	o.Offsets = Range{10, 22}
	for _, noIndex := range []bool{false, true} {
		o.NoIndex = noIndex
		fs, st := findings(t, dir, o)
		want := fmt.Sprintf("next valid batch at byte %d)", pos[4])
		if len(fs) != 1 || fs[0].Position == nil || *fs[0].Position != pos[3] || !strings.HasSuffix(fs[0].Message, want) || st.Seeked != map[bool]int{false: 1, true: 0}[noIndex] {
			t.Errorf("no-index %t: findings %+v (seeked %d), want one at byte %d ending %q", noIndex, fs, st.Seeked, pos[3], want)
		}
	}
}

// TestAbsentOffsets: offsets asked for that no batch holds (past the last
// batch, inside a torn batch's range, below the first). Truth: Stats.Absent
// names exactly those, and nothing for a range wholly on disk.
func TestAbsentOffsets(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rolled, _ := batches(100, 3) // 100..114, the last torn
	active, _ := batches(115, 2) // 115..124
	os.WriteFile(filepath.Join(dir, "00000000000000000100.log"), rolled[:len(rolled)-10], 0o644)
	os.WriteFile(filepath.Join(dir, "00000000000000000115.log"), active, 0o644)
	for _, c := range []struct {
		rg   Range
		want string
	}{
		{Range{100, 109}, "[]"},
		{Range{5, 6}, "[5..6 after 100]"},
		{Range{108, 112}, "[110..112 before 109 after 115]"},
		{Range{120, 130}, "[125..130 before 124]"},
		{Range{200, All.To}, "[200.. before 124]"},
	} {
		o := New()
		o.Offsets = c.rg
		_, st := findings(t, dir, o)
		var got []string
		for _, a := range st.Absent {
			s := a.Range().String()
			if a.Before >= 0 {
				s += fmt.Sprintf(" before %d", a.Before)
			}
			if a.After >= 0 {
				s += fmt.Sprintf(" after %d", a.After)
			}
			got = append(got, s)
		}
		if fmt.Sprintf("%v", got) != c.want && !(c.want == "[]" && got == nil) {
			t.Errorf("offsets %s: absent %q, want %s", c.rg, got, c.want)
		}
	}
}
