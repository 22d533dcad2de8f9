package bench_test

import (
	"encoding/binary"
	"testing"

	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/segment/segtest/bench"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestReferenceSegment checks that the franz-go shape is what the
// benchmarks claim: every batch valid for both ksleuth's reader and
// franz-go's, lz4 frames with franz-go's block size and content checksum,
// and the producer restarts that replay batches.
func TestReferenceSegment(t *testing.T) {
	for _, c := range []segtest.Codec{segtest.CodecNone, segtest.CodecGzip, segtest.CodecSnappy, segtest.CodecLZ4, segtest.CodecZstd} {
		seg := bench.ReferenceSegment(c, 2<<20, 7)
		want, err := bench.Kmsg(seg, kgo.DefaultDecompressor(), nil)
		if err != nil {
			t.Fatalf("%s: franz-go: %v", c, err)
		}
		r := segment.NewReaderBytes(seg, segment.Options{})
		records, batches := 0, 0
		pids := map[int64]bool{}
		for r.Next() {
			b := r.Batch()
			if b == nil {
				t.Fatalf("%s: %v", c, r.Finding())
			}
			if got := segtest.Codec(b.Codec()); got != c {
				t.Fatalf("%s: batch codec %s", c, got)
			}
			pids[b.ProducerID] = true
			batches++
			it := r.Records()
			for it.Next() {
				records++
			}
			if it.Err() != nil {
				t.Fatalf("%s: %v", c, it.Err())
			}
		}
		r.Close()
		if records != want || records == 0 {
			t.Errorf("%s: %d records, franz-go read %d", c, records, want)
		}
		if len(pids) < 8 || batches < 200 {
			t.Errorf("%s: %d batches from %d producers", c, batches, len(pids))
		}
		if c == segtest.CodecLZ4 {
			p := bench.Payloads(seg)[0].Data
			if binary.LittleEndian.Uint32(p) != 0x184D2204 || p[4]&0x04 == 0 || p[5]>>4 != 7 {
				t.Errorf("lz4 frame descriptor FLG %#x BD %#x, want a content checksum and 4 MiB blocks", p[4], p[5])
			}
		}
	}
}
