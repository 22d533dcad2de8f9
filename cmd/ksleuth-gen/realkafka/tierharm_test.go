package realkafka

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"testing"
)

// batchHeader is the first 27 bytes of a record batch: base offset,
// length (of what follows it), leader epoch, magic, crc, attributes and
// the last offset delta; the rest of the batch is zeros here.
func batchHeader(base int64, size int, delta int32) []byte {
	b := make([]byte, size)
	binary.BigEndian.PutUint64(b, uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(size-12))
	b[16] = 2
	binary.BigEndian.PutUint32(b[23:], uint32(delta))
	return b
}

// batchSpans gives where each batch starts and the offsets it holds, and
// stops at a batch cut short: the truth of remote-segment-deleted rests
// on it.
func TestBatchSpans(t *testing.T) {
	raw := slices.Concat(batchHeader(40, 100, 4), batchHeader(45, 70, 0), batchHeader(46, 90, 9))
	got := batchSpans(raw)
	want := []batchSpan{{0, 100, 40, 44}, {100, 70, 45, 45}, {170, 90, 46, 55}}
	if !slices.Equal(got, want) {
		t.Errorf("spans %v, want %v", got, want)
	}
	if got := batchSpans(raw[:200]); !slices.Equal(got, want[:2]) {
		t.Errorf("cut inside the third batch: spans %v, want %v", got, want[:2])
	}
}

// The tiered truth's fields keep their names: the tests of other
// packages and other tools read them.
func TestTruthRemoteKeys(t *testing.T) {
	tr := Truth{
		RemoteRoots:    []string{"remote/kafka-tiered-storage"},
		RemoteSegments: []TruthRemoteSegment{{Topic: "t", SegmentID: "id", StartOffset: 23, File: "t-0-x/1.log", Harm: RemoteDeleted}},
		DeletedTopics:  []string{"gone"},
	}
	data, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var segs []map[string]any
	if err := json.Unmarshal(m["remote_segments"], &segs); err != nil || len(segs) != 1 {
		t.Fatalf("remote_segments %s: %v", m["remote_segments"], err)
	}
	for _, k := range []string{"topic", "partition", "segment_id", "start_offset", "file", "harm"} {
		if _, ok := segs[0][k]; !ok {
			t.Errorf("remote_segments has no %q: %v", k, segs[0])
		}
	}
	if string(m["deleted_topics"]) != `["gone"]` || string(m["remote_roots"]) != `["remote/kafka-tiered-storage"]` {
		t.Errorf("deleted_topics %s, remote_roots %s", m["deleted_topics"], m["remote_roots"])
	}
}
