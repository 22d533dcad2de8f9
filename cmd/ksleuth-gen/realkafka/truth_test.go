package realkafka

import (
	"encoding/binary"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The consumer side of truth.json is read by other tools by these exact
// names: a renamed field breaks them silently.
func TestTruthGroupKeys(t *testing.T) {
	tr := Truth{
		Commits:       []TruthCommit{{Group: "g", Topic: "t", Partition: 1, Offset: 2, LeaderEpoch: 3, Metadata: "m", Acked: true}},
		Consumed:      []TruthConsumed{{Group: "g", Topic: "t", Partition: 1, Offset: 2}},
		OffsetDeletes: []TruthOffsetDelete{{Group: "g", Topic: "t", Partition: 1}},
	}
	data, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"commits":        {"acked", "group", "leader_epoch", "metadata", "offset", "partition", "topic"},
		"consumed":       {"gone", "group", "offset", "partition", "topic"},
		"offset_deletes": {"group", "partition", "topic"},
	}
	for key, fields := range want {
		var list []map[string]any
		if err := json.Unmarshal(m[key], &list); err != nil || len(list) != 1 {
			t.Fatalf("%s: %s (%v)", key, m[key], err)
		}
		if got := slices.Sorted(maps.Keys(list[0])); !slices.Equal(got, fields) {
			t.Errorf("%s: fields %v, want %v", key, got, fields)
		}
	}
	if c := tr.Commits[0]; string(m["commits"]) != `[{"group":"g","topic":"t","partition":1,"offset":2,"leader_epoch":3,"metadata":"m","acked":true}]` {
		t.Errorf("commits %s for %+v", m["commits"], c)
	}
}

// The bulk records follow the framing KsleuthProducer's --bulk mode
// reads (its header comment); this decodes frames by that description.
func TestBulkFrames(t *testing.T) {
	g := newBulkGen(7)
	var buf []byte
	const n = 200
	for range n {
		buf = g.frame(buf)
	}
	be := binary.BigEndian
	take := func(k int) []byte {
		if len(buf) < k {
			t.Fatalf("frame cut short: %d bytes left, %d wanted", len(buf), k)
		}
		b := buf[:k]
		buf = buf[k:]
		return b
	}
	var total int64
	keys := map[string]bool{}
	for i := range n {
		key := take(int(int32(be.Uint32(take(4)))))
		value := take(int(int32(be.Uint32(take(4)))))
		if !strings.HasPrefix(string(key), "ord-") || !json.Valid(value) {
			t.Fatalf("record %d: key %q, value valid JSON %v: %.80s", i, key, json.Valid(value), value)
		}
		if len(value) < 250 || len(value) > 1500 {
			t.Errorf("record %d: value of %d bytes, outside the documented 0.3-1.4 KB", i, len(value))
		}
		keys[string(key)] = true
		total += int64(len(key) + len(value))
		nh := int(be.Uint16(take(2)))
		var names []string
		for range nh {
			hk := take(int(be.Uint16(take(2))))
			hv := take(int(int32(be.Uint32(take(4)))))
			names = append(names, string(hk))
			total += int64(len(hk) + len(hv))
		}
		if strings.Join(names, ",") != "traceparent,content-type,source" {
			t.Fatalf("record %d: headers %v", i, names)
		}
	}
	if len(buf) != 0 {
		t.Errorf("%d bytes after the last frame", len(buf))
	}
	if total != g.bytes {
		t.Errorf("counted %d bytes of keys, values and headers; the generator says %d", total, g.bytes)
	}
	if len(keys) < n-1 {
		t.Errorf("%d distinct keys in %d records", len(keys), n)
	}
	// The same seed gives the same records.
	var again []byte
	g2 := newBulkGen(7)
	for range n {
		again = g2.frame(again)
	}
	var first []byte
	g3 := newBulkGen(7)
	for range n {
		first = g3.frame(first)
	}
	if string(again) != string(first) {
		t.Error("two generators of seed 7 differ")
	}
}
