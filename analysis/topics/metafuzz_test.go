package topics_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
)

// corpusMetadataSeeds returns one record value of each type and version
// met in the real corpus's metadata logs and snapshots (the first of
// each), or none when the corpus is absent.
func corpusMetadataSeeds(tb testing.TB) [][]byte {
	root := filepath.Join("..", "..", "..", "shared", "corpus", "real")
	if _, err := os.Stat(root); err != nil {
		tb.Logf("corpus %s absent: fuzz seeds are the built fixtures only", root)
		return nil
	}
	seen := map[string]bool{}
	var out [][]byte
	filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || topics.TopicOf(filepath.Base(filepath.Dir(p))) != topics.ClusterMetadata {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		topics.ReadSegment(p, f, topics.ClusterMetadata, func(_ *segment.Batch, r *segment.Record, d *topics.Decoded) {
			if m := d.Metadata; m != nil && !r.IsControl {
				k := fmt.Sprintf("%d/%d", m.APIKey, m.Version)
				if !seen[k] {
					seen[k] = true
					out = append(out, append([]byte{}, r.Value...))
				}
			}
		})
		return nil
	})
	return out
}

// FuzzDecodeMetadata feeds arbitrary values to the metadata decoder: it
// never panics, a record that decodes has a body and renders as valid
// JSON in both forms, and one that does not has no body.
func FuzzDecodeMetadata(f *testing.F) {
	for _, c := range metaCases() {
		f.Add(c.in.b)
	}
	for _, v := range corpusMetadataSeeds(f) {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		m, err := topics.DecodeMetadata(value)
		if err != nil {
			if m != nil && m.Data != nil {
				t.Fatalf("error %v with a body %+v", err, m.Data)
			}
			return
		}
		if m.Data == nil {
			t.Fatalf("no error and no body: %+v", m)
		}
		if k := m.KafkaJSON(); !json.Valid(k) {
			t.Fatalf("invalid Kafka JSON %s", k)
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	})
}
