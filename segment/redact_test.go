package segment

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flipFill is a Fill that keeps length and equality: every byte is
// inverted, so a test can tell a filled payload from the original.
func flipFill(p []byte) {
	for i := range p {
		p[i] ^= 0xff
	}
}

// batchShape is what redaction must keep of a batch: all but payloads.
type batchShape struct {
	base, last            int64
	epoch                 int32
	magic                 int8
	attrs                 int16
	crcValid              bool
	records               int
	keys, values, headers int
	recErr                bool
}

// shapes reads a segment and returns its batches' shapes, its findings'
// kinds and positions, and every payload the records hold.
func shapes(t *testing.T, data []byte) (out []batchShape, findings []string, payloads [][]byte) {
	t.Helper()
	r := NewReaderBytes(data, Options{})
	defer r.Close()
	for r.Next() {
		if f := r.Finding(); f != nil {
			findings = append(findings, f.Kind())
			continue
		}
		b := r.Batch()
		s := batchShape{base: b.BaseOffset, last: b.LastOffset(), epoch: b.PartitionLeaderEpoch, magic: b.Magic,
			attrs: b.Attributes, crcValid: b.CRCValid}
		it := r.Records()
		for it.Next() {
			rec := it.Record()
			s.records++
			s.keys += rec.KeySize()
			s.values += rec.ValueSize()
			s.headers += len(rec.Headers)
			if !rec.IsControl {
				payloads = append(payloads, bytes.Clone(rec.Key), bytes.Clone(rec.Value))
				for _, h := range rec.Headers {
					payloads = append(payloads, bytes.Clone(h.Value))
				}
			}
		}
		s.recErr = it.Err() != nil
		out = append(out, s)
	}
	return out, findings, payloads
}

// segmentFiles lists the .log files below the dirs that exist.
func segmentFiles(t *testing.T, dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() && strings.HasSuffix(p, ".log") {
				out = append(out, p)
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Fatal("no segments found")
	}
	return out
}

// TestRedactKeepsStructure redacts every segment of the sample and of the
// corpora and reads both copies: the same batches, offsets, CRC outcomes,
// records and payload lengths, the same findings, and every payload
// changed (inverted) where it was not empty.
func TestRedactKeepsStructure(t *testing.T) {
	files := segmentFiles(t, "../testdata/logdirs/generated", "../../shared/corpus/real", "../../shared/corpus/thirdparty")
	x := NewRedactor(flipFill)
	defer x.Close()
	compressed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, moves := x.Segment(f, data)
		compressed += len(moves)
		wantB, wantF, wantP := shapes(t, data)
		gotB, gotF, gotP := shapes(t, out)
		if len(wantB) != len(gotB) || strings.Join(wantF, ",") != strings.Join(gotF, ",") {
			t.Errorf("%s: %d batches %v, redacted %d batches %v", f, len(wantB), wantF, len(gotB), gotF)
			continue
		}
		for i := range wantB {
			if wantB[i] != gotB[i] {
				t.Errorf("%s: batch %d: %+v, redacted %+v", f, i, wantB[i], gotB[i])
				break
			}
		}
		if len(wantP) != len(gotP) {
			t.Errorf("%s: %d payloads, redacted %d", f, len(wantP), len(gotP))
			continue
		}
		for i := range wantP {
			flip := bytes.Clone(wantP[i])
			flipFill(flip)
			if !bytes.Equal(flip, gotP[i]) {
				t.Errorf("%s: payload %d not replaced", f, i)
				break
			}
		}
		if int64(len(out)) != MapPosition(moves, int64(len(data))) {
			t.Errorf("%s: %d bytes, the moves map the end to %d", f, len(out), MapPosition(moves, int64(len(data))))
		}
	}
	if compressed == 0 {
		t.Error("no batch changed length: the compressed path went untested")
	}
}

// TestRedactKeepsDamage damages a segment of the sample in three ways (a
// flipped byte inside a batch's records, a torn tail, garbage between
// batches) and holds its redacted copy to the same batches, CRC outcomes,
// record errors and findings.
func TestRedactKeepsDamage(t *testing.T) {
	orig, err := os.ReadFile("../testdata/logdirs/generated/codecs-0/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	flip := bytes.Clone(orig)
	flip[BatchHeaderSize+40] ^= 0x55 // inside the first batch's records: its CRC fails
	garbage := append(append(bytes.Clone(orig[:422]), bytes.Repeat([]byte("payload!"), 9)...), orig[422:]...)
	cases := map[string][]byte{"flipped": flip, "torn": orig[:len(orig)-100], "garbage": garbage}
	x := NewRedactor(flipFill)
	defer x.Close()
	for name, data := range cases {
		out, _ := x.Segment(name, data)
		wantB, wantF, _ := shapes(t, data)
		gotB, gotF, _ := shapes(t, out)
		if len(wantF) == 0 {
			t.Errorf("%s: the damage went unseen", name)
		}
		if strings.Join(wantF, ",") != strings.Join(gotF, ",") || len(wantB) != len(gotB) {
			t.Errorf("%s: findings %v and %d batches, redacted %v and %d", name, wantF, len(wantB), gotF, len(gotB))
			continue
		}
		for i := range wantB {
			if wantB[i] != gotB[i] {
				t.Errorf("%s: batch %d: %+v, redacted %+v", name, i, wantB[i], gotB[i])
			}
		}
		if name == "garbage" && bytes.Contains(out, []byte("payload!")) {
			t.Error("garbage between batches kept in the redacted copy")
		}
	}
}

// headerKeysOf returns the header keys of a segment's records, in order.
func headerKeysOf(t *testing.T, data []byte) []string {
	t.Helper()
	r := NewReaderBytes(data, Options{})
	defer r.Close()
	var keys []string
	for r.Next() {
		if r.Finding() != nil {
			continue
		}
		it := r.Records()
		for it.Next() {
			for _, h := range it.Record().Headers {
				keys = append(keys, string(h.Key))
			}
		}
	}
	return keys
}

// TestRedactHeaderKeys: header keys are kept unless MapHeaderKeys is
// set, and then each is replaced in place, compressed batches included.
func TestRedactHeaderKeys(t *testing.T) {
	upper := func(p []byte) { copy(p, strings.ToUpper(string(p))) }
	n := 0
	for _, f := range segmentFiles(t, "../testdata/logdirs/generated") {
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := headerKeysOf(t, orig)
		n += len(want)
		kept := NewRedactor(flipFill)
		out, _ := kept.Segment(f, orig)
		if got := headerKeysOf(t, out); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: header keys %q became %q", f, want, got)
		}
		kept.Close()
		mapped := NewRedactor(flipFill)
		mapped.MapHeaderKeys(upper)
		out, _ = mapped.Segment(f, orig)
		if got := headerKeysOf(t, out); strings.Join(got, ",") != strings.ToUpper(strings.Join(want, ",")) {
			t.Errorf("%s: header keys %q mapped to %q", f, want, got)
		}
		mapped.Close()
	}
	if n < 10 {
		t.Errorf("only %d header keys in the sample", n)
	}
}

// TestRewriteRecords: keys replaced by longer ones (and null keys by
// "none") and values by shorter ones are read back from every batch,
// compressed ones and magic 0/1 messages included, with the offsets and
// CRC verdicts as they were; control records are kept.
func TestRewriteRecords(t *testing.T) {
	rekey := func(k []byte) []byte {
		if k == nil {
			return []byte("none")
		}
		return append(bytes.Clone(k), "-longer"...)
	}
	revalue := func(v []byte) []byte {
		if len(v) < 2 {
			return v
		}
		return v[:len(v)/2]
	}
	rewrite := func(k, v []byte, control bool) ([]byte, []byte) {
		if control {
			return k, v
		}
		return rekey(k), revalue(v)
	}
	type rec struct {
		offset     int64
		key, value string
		valid      bool
	}
	read := func(data []byte) (out []rec) {
		r := NewReaderBytes(data, Options{})
		defer r.Close()
		for r.Next() {
			if r.Finding() != nil {
				continue
			}
			b := r.Batch()
			it := r.Records()
			for it.Next() {
				x := it.Record()
				out = append(out, rec{x.Offset, string(x.Key), string(x.Value), b.CRCValid})
			}
		}
		return out
	}
	n := 0
	for _, f := range segmentFiles(t, "../testdata/logdirs/generated") {
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		x := NewRedactor(nil)
		x.RewriteRecords(rewrite)
		out, _ := x.Segment(f, orig)
		want, got := read(orig), read(out)
		if len(want) != len(got) {
			t.Fatalf("%s: %d records became %d", f, len(want), len(got))
		}
		r := NewReaderBytes(orig, Options{})
		control := map[int64]bool{}
		for r.Next() {
			if b := r.Batch(); b != nil && b.IsControl() {
				for o := b.BaseOffset; o <= b.LastOffset(); o++ {
					control[o] = true
				}
			}
		}
		r.Close()
		for i := range want {
			w := want[i]
			if !control[w.offset] {
				w.key = string(rekey([]byte(w.key)))
				if want[i].key == "" && got[i].key == "none" {
					w.key = "none"
				}
				w.value = string(revalue([]byte(w.value)))
				n++
			}
			if got[i] != w {
				t.Errorf("%s: %+v became %+v, want %+v", f, want[i], got[i], w)
				break
			}
		}
		x.Close()
	}
	if n < 100 {
		t.Errorf("only %d records rekeyed", n)
	}
}
