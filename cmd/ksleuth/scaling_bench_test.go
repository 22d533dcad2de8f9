package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/segment/segtest/bench"
)

// scalingLayout is what the partitions of BenchmarkScaling's log dir take in
// turn: both segment shapes and four codecs, so the work per partition differs
// the way it does on a broker (an lz4 partition scans several times faster
// per byte than a zstd one) and a second worker has to balance it.
var scalingLayout = []struct {
	shape bench.Shape
	codec segtest.Codec
}{
	{bench.ShapeJava, segtest.CodecNone}, {bench.ShapeFranz, segtest.CodecNone},
	{bench.ShapeJava, segtest.CodecLZ4}, {bench.ShapeFranz, segtest.CodecLZ4},
	{bench.ShapeJava, segtest.CodecSnappy}, {bench.ShapeFranz, segtest.CodecSnappy},
	{bench.ShapeJava, segtest.CodecZstd}, {bench.ShapeFranz, segtest.CodecZstd},
}

var scalingParts = flag.Int("scaling-partitions", 32, "partitions of BenchmarkScaling's log dir, each of -segsize uncompressed bytes")

var (
	scalingOnce  sync.Once
	scalingDir   string
	scalingBytes int64
	scalingErr   error
)

// scalingLogDir writes the log dir once per test binary: -scaling-partitions
// partitions that take scalingLayout's shapes and codecs in turn, each one
// segment of -segsize uncompressed bytes, seeded per partition.
func scalingLogDir(b *testing.B) (string, int64) {
	scalingOnce.Do(func() {
		root, err := perfDir()
		if err != nil {
			scalingErr = err
			return
		}
		scalingDir = filepath.Join(root, "scaling")
		for i := range *scalingParts {
			p := scalingLayout[i%len(scalingLayout)]
			part := filepath.Join(scalingDir, fmt.Sprintf("scale-%s-%s-%d", p.shape, p.codec, i))
			if err := os.MkdirAll(part, 0o755); err != nil {
				scalingErr = err
				return
			}
			seg := p.shape.Segment(p.codec, *perfSize, uint64(100+i))
			if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
				scalingErr = err
				return
			}
			scalingBytes += int64(len(seg))
		}
	})
	if scalingErr != nil {
		b.Fatal(scalingErr)
	}
	return scalingDir, scalingBytes
}

// scalingRun is one way of running the scan: how many cores the Go
// runtime may use and how many workers the scan starts.
type scalingRun struct {
	name  string
	procs int
	jobs  string
}

// BenchmarkScaling measures what a second core buys a scan of a log dir
// of many partitions, in wall time: one worker on one core (GOMAXPROCS 1,
// --jobs 1), one worker on two cores (the hasher and the collector beside
// the worker), and two workers on two cores, interleaved in every
// iteration so a busy minute slows all three alike. The default scan
// (SHA-256 of every file, no --records) runs each time. Metrics: MB of
// segment per wall second of each, and speed-up, the two-worker run's
// rate over the one-core run's. Run it with -cpu 2 on a machine of at
// least two otherwise idle cores: wall time measures the neighbours too.
func BenchmarkScaling(b *testing.B) {
	heapAsAlone(b)
	if runtime.NumCPU() < 2 {
		b.Skip("needs two cores")
	}
	dir, size := scalingLogDir(b)
	runs := []scalingRun{{"1core-1job", 1, "1"}, {"2cores-1job", 2, "1"}, {"2cores-2jobs", 2, "2"}}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	wall := make([]time.Duration, len(runs))
	for _, r := range runs { // warm up: page cache, decoders
		runtime.GOMAXPROCS(r.procs)
		runScanOnce(b, dir, r.jobs)
	}
	b.SetBytes(size * int64(len(runs)))
	for b.Loop() {
		for i, r := range runs {
			runtime.GOMAXPROCS(r.procs)
			runtime.GC()
			t0 := time.Now()
			runScanOnce(b, dir, r.jobs)
			wall[i] += time.Since(t0)
		}
	}
	rate := make([]float64, len(runs))
	for i, r := range runs {
		rate[i] = float64(size) * float64(b.N) / 1e6 / wall[i].Seconds()
		b.ReportMetric(rate[i], r.name+"-MB/s")
	}
	b.ReportMetric(rate[2]/rate[0], "speed-up")
	b.ReportMetric(rate[2]/rate[1], "2jobs/1job")
}
