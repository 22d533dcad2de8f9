package bench_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/segment/segtest/bench"
)

// TestFloor checks that the dedup floor walks every record of every
// codec and tells contents apart as ksleuth's reader sees them: the
// record count is the reader's, the distinct contents are the distinct
// (key, value, headers) the reader decodes, a resent batch adds records
// and no content, and a damaged batch stops it.
func TestFloor(t *testing.T) {
	f := bench.NewFloor()
	defer f.Close()
	for _, c := range []segtest.Codec{segtest.CodecNone, segtest.CodecGzip, segtest.CodecSnappy, segtest.CodecLZ4, segtest.CodecZstd} {
		for _, shape := range []bench.Shape{bench.ShapeJava, bench.ShapeFranz} {
			seg := shape.Segment(c, 1<<20, 7)
			// The first batch again at the end, as a resend: its records
			// repeat contents the table holds already.
			first := 12 + int(binary.BigEndian.Uint32(seg[8:]))
			seg = append(seg, seg[:first]...)
			records, distinct := readerContents(t, seg)
			gotRecords, gotDistinct, err := f.Run(seg)
			if err != nil {
				t.Fatalf("%s/%s: %v", shape, c, err)
			}
			if gotRecords != records || gotDistinct != distinct || distinct == 0 || distinct >= records {
				t.Errorf("%s/%s: floor %d records, %d distinct; reader %d, %d", shape, c, gotRecords, gotDistinct, records, distinct)
			}
			bad := append([]byte(nil), seg...)
			bad[len(bad)/2] ^= 0xff
			if _, _, err := f.Run(bad); err == nil {
				t.Errorf("%s/%s: a flipped byte went unnoticed", shape, c)
			}
		}
	}
}

// readerContents counts the records of seg and their distinct contents
// with ksleuth's reader.
func readerContents(t *testing.T, seg []byte) (records, distinct int) {
	t.Helper()
	seen := map[string]bool{}
	r := segment.NewReaderBytes(seg, segment.Options{})
	defer r.Close()
	for r.Next() {
		if r.Batch() == nil {
			t.Fatal(r.Finding())
		}
		it := r.Records()
		for it.Next() {
			rec := it.Record()
			var b strings.Builder
			fmt.Fprintf(&b, "%t %q %t %q", rec.Key == nil, rec.Key, rec.Value == nil, rec.Value)
			for _, h := range rec.Headers {
				fmt.Fprintf(&b, " %q=%t %q", h.Key, h.Value == nil, h.Value)
			}
			seen[b.String()] = true
			records++
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
	}
	return records, len(seen)
}
