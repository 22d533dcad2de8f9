package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

var perfSize = flag.Int("segsize", 16<<20, "uncompressed bytes of the benchmark segment")

// BenchmarkScan measures `ksleuth scan` end to end on one realistic
// segment per codec (the same generator as segment's BenchmarkReader):
// framing, CRC, decompression, record decoding, fingerprints, producer
// sessions, duplicate detection and the Parquet tables (without
// --records). Compare with BenchmarkReader and BenchmarkCeiling in
// ./segment. jobs=1 gives per-core figures.
func BenchmarkScan(b *testing.B) {
	for _, c := range []segtest.Codec{segtest.CodecNone, segtest.CodecGzip, segtest.CodecSnappy, segtest.CodecLZ4, segtest.CodecZstd} {
		dir := b.TempDir()
		part := filepath.Join(dir, fmt.Sprintf("perf-%s-0", c))
		if err := os.MkdirAll(part, 0o755); err != nil {
			b.Fatal(err)
		}
		seg := segtest.RealisticSegment(c, *perfSize, 42)
		if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
			b.Fatal(err)
		}
		for _, jobs := range []string{"1", "2"} {
			b.Run(fmt.Sprintf("%s/jobs=%s", c, jobs), func(b *testing.B) {
				out := filepath.Join(b.TempDir(), "out")
				b.SetBytes(int64(len(seg)))
				b.ReportAllocs()
				for b.Loop() {
					if code := run([]string{"scan", dir, "--out", out, "--force", "--jobs", jobs, "--progress", "never"}, io.Discard, io.Discard); code != 0 {
						b.Fatalf("scan exit %d", code)
					}
				}
			})
		}
	}
}
