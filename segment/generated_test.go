package segment

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestGeneratedLogDir reads the committed generated log dir and compares
// every batch and record with the generator's ground truth.
func TestGeneratedLogDir(t *testing.T) {
	dir := filepath.Join("..", "testdata", "logdirs", "generated")
	m, err := segtest.LoadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(Options{})
	defer d.Close()
	nb, nr := 0, 0
	for _, p := range m.Partitions {
		for _, s := range p.Segments {
			data, err := os.ReadFile(filepath.Join(dir, s.File))
			if err != nil {
				t.Fatal(err)
			}
			r := NewReader(bytes.NewReader(data), Options{Path: s.File})
			i := 0
			for r.Next() {
				if f := r.Finding(); f != nil {
					t.Fatalf("finding: %v", f)
				}
				b := r.Batch()
				if i >= len(s.Batches) {
					t.Fatalf("%s: more batches than the manifest", s.File)
				}
				w := s.Batches[i]
				if b.Position != w.Position || b.Size() != int64(w.Size) || b.BaseOffset != w.BaseOffset ||
					b.LastOffset() != w.LastOffset || b.Magic != w.Magic || int8(b.Codec()) != int8(w.Codec) ||
					int(b.NumRecords) != w.Count || b.CRC != w.CRC || !b.CRCValid ||
					b.ProducerID != w.ProducerID || b.ProducerEpoch != w.ProducerEpoch || b.BaseSequence != w.BaseSequence ||
					b.IsTransactional() != w.Transactional || b.IsControl() != w.Control ||
					(b.TimestampType() == LogAppendTime) != w.LogAppendTime || b.MaxTimestamp != w.MaxTimestamp ||
					(b.Magic == 2 && (b.FirstTimestamp != w.FirstTimestamp || b.PartitionLeaderEpoch != w.LeaderEpoch)) {
					t.Fatalf("%s batch %d:\n got %+v\nwant %+v", s.File, i, *b, w)
				}
				it := d.Records(b)
				j := 0
				for it.Next() {
					rec := it.Record()
					wr := w.Records[j]
					if rec.Offset != wr.Offset || rec.Timestamp != wr.Timestamp || rec.Sequence != wr.Sequence ||
						!sameBytes(rec.Key, wr.Key) || !sameBytes(rec.Value, wr.Value) || len(rec.Headers) != len(wr.Headers) {
						t.Fatalf("%s batch %d record %d:\n got %+v\nwant %+v", s.File, i, j, *rec, wr)
					}
					for h := range wr.Headers {
						if string(rec.Headers[h].Key) != wr.Headers[h].Key || !sameBytes(rec.Headers[h].Value, wr.Headers[h].Value) {
							t.Fatalf("%s batch %d record %d header %d differs", s.File, i, j, h)
						}
					}
					j++
					nr++
				}
				if it.Err() != nil || j != len(w.Records) {
					t.Fatalf("%s batch %d: %d records, want %d (err %v)", s.File, i, j, len(w.Records), it.Err())
				}
				i++
				nb++
			}
			r.Close()
			if i != len(s.Batches) {
				t.Fatalf("%s: %d batches, manifest has %d", s.File, i, len(s.Batches))
			}
		}
	}
	if nb < 100 || nr < 300 {
		t.Fatalf("only %d batches and %d records checked", nb, nr)
	}
}
