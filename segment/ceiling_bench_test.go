package segment

import (
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest/bench"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkCeiling is the strict decompression-only ceiling: the same
// libraries our reader uses at block level (no frame checksums), one-shot
// into a reused buffer, no record parsing and no CRC. Run it beside
// BenchmarkReader (-bench 'Reader|Ceiling|Kmsg') to read the ratio per
// codec; throughput is per byte of segment.
func BenchmarkCeiling(b *testing.B) {
	benchCeiling(b, (*bench.Ceiling).Blocks)
}

// BenchmarkCeilingLibrary is the ceiling as issue 6 states it: each
// library's own one-shot API (pierrec's LZ4 frame reader, which verifies
// the frame's checksums; gzip's reader; zstd DecodeAll; s2.Decode per
// snappy chunk).
func BenchmarkCeilingLibrary(b *testing.B) {
	benchCeiling(b, (*bench.Ceiling).Library)
}

func benchCeiling(b *testing.B, decode func(*bench.Ceiling, []bench.Payload) (int, error)) {
	for _, c := range benchCodecs {
		seg := benchSegments()[c]
		payloads := bench.Payloads(seg)
		b.Run(c.String(), func(b *testing.B) {
			b.SetBytes(int64(len(seg)))
			b.ReportAllocs()
			ce := bench.NewCeiling()
			defer ce.Close()
			for b.Loop() {
				if _, err := decode(ce, payloads); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKmsg is franz-go's path for the same segments: kmsg batch and
// record parsing with kgo's decompressor, CRC checked, every record read.
func BenchmarkKmsg(b *testing.B) {
	for _, c := range benchCodecs {
		seg := benchSegments()[c]
		b.Run(c.String(), func(b *testing.B) {
			b.SetBytes(int64(len(seg)))
			b.ReportAllocs()
			dec := kgo.DefaultDecompressor()
			for b.Loop() {
				if _, err := bench.Kmsg(seg, dec, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
