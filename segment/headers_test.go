package segment

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestHeaderCountsVary: records of one batch with more, fewer and no
// headers than the one before each come back with exactly their own,
// whatever room the iterator's reused header slice had.
func TestHeaderCountsVary(t *testing.T) {
	counts := []int{3, 1, 7, 0, 2, 12, 5}
	var recs []segtest.Record
	for i, n := range counts {
		r := segtest.Record{Key: []byte(fmt.Sprint("k", i)), Value: []byte("v")}
		for h := range n {
			r.Headers = append(r.Headers, segtest.Header{Key: fmt.Sprintf("h%d.%d", i, h), Value: []byte(fmt.Sprint(h))})
		}
		recs = append(recs, r)
	}
	seg := segtest.Batch{Magic: 2, AutoDeltas: true, Records: recs}.Encode()
	r := NewReaderBytes(seg, Options{})
	defer r.Close()
	if !r.Next() || r.Batch() == nil {
		t.Fatal("no batch")
	}
	it := r.Records()
	for i, n := range counts {
		if !it.Next() {
			t.Fatalf("record %d: %v", i, it.Err())
		}
		hs := it.Record().Headers
		if len(hs) != n {
			t.Fatalf("record %d: %d headers, want %d", i, len(hs), n)
		}
		for h, x := range hs {
			if string(x.Key) != fmt.Sprintf("h%d.%d", i, h) || !bytes.Equal(x.Value, []byte(fmt.Sprint(h))) {
				t.Fatalf("record %d header %d: %q=%q", i, h, x.Key, x.Value)
			}
		}
	}
	if it.Next() || it.Err() != nil {
		t.Fatalf("after the last record: %v", it.Err())
	}
}
