package segment

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// corpusDir finds ../shared/corpus beside the checkout. CI always has it;
// a checkout without it skips the corpus tests loudly.
func corpusDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus %s missing in CI: %v", dir, err)
		}
		t.Skipf("corpus %s not present", dir)
	}
	return dir
}

// decodeExpected renders what our reader sees in the shape of the
// independent decoder's expected.jsonl.
func decodeExpected(t *testing.T, caseDir, rel string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(caseDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, Options{Path: rel})
	defer r.Close()
	var out []string
	sum := func(b []byte) string {
		if b == nil {
			return ""
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	for r.Next() {
		if fd := r.Finding(); fd != nil {
			t.Errorf("%s: unexpected finding: %v", rel, fd)
			continue
		}
		b := r.Batch()
		m := map[string]any{
			"type": "batch", "file": rel, "position": b.Position, "size": b.Size(),
			"baseOffset": b.BaseOffset, "lastOffset": b.LastOffset(), "magic": b.Magic,
			"codec": b.Codec().String(), "count": b.NumRecords, "producerId": b.ProducerID,
			"producerEpoch": b.ProducerEpoch, "baseSequence": b.BaseSequence,
			"isTransactional": b.IsTransactional(), "isControl": b.IsControl(), "crcValid": b.CRCValid,
			"timestampType": b.TimestampType().String(), "maxTimestamp": b.MaxTimestamp,
			"partitionLeaderEpoch": b.PartitionLeaderEpoch,
		}
		if b.Magic == 2 {
			m["firstTimestamp"] = b.FirstTimestamp
		}
		if b.Magic == 0 {
			m["maxTimestamp"] = int64(-1)
		}
		out = append(out, canon(t, m))
		it := r.Records()
		for it.Next() {
			rec := it.Record()
			hs := [][]string{}
			for _, h := range rec.Headers {
				hs = append(hs, []string{string(h.Key), sum(h.Value)})
			}
			m := map[string]any{
				"type": "record", "file": rel, "offset": rec.Offset, "timestamp": rec.Timestamp,
				"timestampType": rec.TimestampType.String(), "keyLength": rec.KeySize(),
				"valueLength": rec.ValueSize(), "keySha256": sum(rec.Key), "valueSha256": sum(rec.Value),
				"headers": hs,
			}
			if rec.IsControl {
				m["controlVersion"] = rec.ControlVersion
				m["controlType"] = ControlTypeName(rec.ControlType)
				m["coordinatorEpoch"] = rec.CoordinatorEpoch
			}
			out = append(out, canon(t, m))
		}
		if err := it.Err(); err != nil {
			t.Errorf("%s: records: %v", rel, err)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// canon re-encodes a JSON object with sorted keys and all numbers as
// json.Number, so both sides compare as text without float rounding.
func canon(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// TestThirdPartyCorpus decodes every segment written by franz-go,
// librdkafka and kafka-python and compares every field of every batch and
// record with expected.jsonl from an independent decoder.
func TestThirdPartyCorpus(t *testing.T) {
	root := corpusDir(t, "thirdparty")
	cases, _ := filepath.Glob(filepath.Join(root, "*", "expected.jsonl"))
	if len(cases) == 0 {
		t.Fatal("no third-party cases found")
	}
	for _, exp := range cases {
		caseDir := filepath.Dir(exp)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			want := readExpected(t, exp)
			var logs []string
			filepath.WalkDir(caseDir, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(p, ".log") {
					rel, _ := filepath.Rel(caseDir, p)
					logs = append(logs, rel)
				}
				return nil
			})
			sort.Strings(logs)
			var got []string
			for _, rel := range logs {
				got = append(got, decodeExpected(t, caseDir, rel)...)
			}
			if len(got) != len(want) {
				t.Errorf("got %d lines, want %d", len(got), len(want))
			}
			for i := 0; i < len(got) && i < len(want); i++ {
				if got[i] != want[i] {
					t.Fatalf("line %d differs:\n got %s\nwant %s", i+1, got[i], want[i])
				}
			}
		})
	}
}

func readExpected(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []string
	for sc.Scan() {
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		// Labels about the compressed framing are not decoder output.
		delete(m, "snappyFraming")
		delete(m, "lz4HeaderChecksum")
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReaderBytesCorpus: over every third-party segment (the 8 MB record
// and the 50,000-record batch included) and a realistic lz4 segment, a
// Reader over the bytes in memory yields exactly what a Reader over a
// ReaderAt yields.
func TestReaderBytesCorpus(t *testing.T) {
	var segs [][]byte
	filepath.WalkDir(corpusDir(t, "thirdparty"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".log") {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			segs = append(segs, data)
		}
		return nil
	})
	if len(segs) < 16 {
		t.Fatalf("only %d third-party segments", len(segs))
	}
	segs = append(segs, segtest.RealisticSegment(segtest.CodecLZ4, 2<<20, 7))
	for i, seg := range segs {
		a := readEvents(NewReader(bytes.NewReader(seg), Options{}))
		b := readEvents(NewReaderBytes(seg, Options{}))
		if !slices.Equal(a, b) || len(a) == 0 {
			t.Errorf("segment %d: %d events from bytes, %d from a ReaderAt, or they differ", i, len(b), len(a))
		}
	}
}
