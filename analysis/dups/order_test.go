package dups

import (
	"context"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// TestOffsetOrderWithoutTimestamp: of two copies in one partition, the
// later one (offset 18022) without a timestamp is still the later copy:
// the group lists offset 5 first and says 18022 repeats 5. A copy in
// another partition keeps its place by time.
func TestOffsetOrderWithoutTimestamp(t *testing.T) {
	d, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p, q := d.Partition(0, "in", "t", 0, "t-0"), d.Partition(0, "in", "t", 1, "t-1")
	var fp [16]byte
	fp[5] = 7
	for _, r := range []Record{
		{Part: p, Offset: 18022, Timestamp: -1, ProducerID: 2, Fingerprint: fp},
		{Part: p, Offset: 5, Timestamp: 1_000, ProducerID: 1, Fingerprint: fp},
		{Part: q, Offset: 9, Timestamp: 500, ProducerID: 3, Fingerprint: fp},
	} {
		if err := d.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	var rows []analysis.DuplicateRow
	if _, err := d.Finish(context.Background(), func(g []analysis.DuplicateRow) error {
		rows = append(rows, g...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range rows {
		got = append(got, r.Offset)
	}
	// t-0's two copies take the places t-0 held (first and third by
	// time), in offset order; t-1's stays second.
	if len(got) != 3 || got[0] != 5 || got[1] != 9 || got[2] != 18022 {
		t.Fatalf("member offsets %v, want [5 9 18022]", got)
	}
	last := rows[2]
	if last.RefOffset == nil || *last.RefOffset == 18022 {
		t.Errorf("offset 18022's earlier copy: %v", last.RefOffset)
	}
}
