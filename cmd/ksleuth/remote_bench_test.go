package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// BenchmarkRemoteScan measures `ksleuth scan --jobs 1` on each benchmark
// segment in a log dir (local) and as a remote store root holds it
// (remote: LocalTieredStorage's <start>-<segment id>.log in a
// <topic>-<partition>-<topic id> dir), in one run: the remote segment goes
// through the same scan path, so the two rates should be one
// (docs/performance.md). Each reports MB per CPU-second besides wall
// time; the ratio sub-benchmark runs the two interleaved, so a slow
// minute of the shared machine slows both alike, and reports
// remote/local in CPU-seconds.
func BenchmarkRemoteScan(b *testing.B) {
	for _, in := range perfSegments() {
		for _, where := range []string{"local", "remote"} {
			b.Run(in.name()+"/"+where, func(b *testing.B) {
				in.build(b)
				dir := in.dir
				if where == "remote" {
					dir = remoteRootOf(b, in)
				}
				b.SetBytes(int64(len(in.seg)))
				b.ReportAllocs()
				var cpu time.Duration
				for b.Loop() {
					t0 := cpuTime()
					runScanOnce(b, dir, "1")
					cpu += cpuTime() - t0
				}
				b.ReportMetric(float64(len(in.seg))*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
			})
		}
		b.Run(in.name()+"/ratio", func(b *testing.B) {
			in.build(b)
			dirs := []string{in.dir, remoteRootOf(b, in)}
			cpu := make([]time.Duration, 2)
			b.SetBytes(2 * int64(len(in.seg)))
			b.ReportAllocs()
			for b.Loop() {
				for i, d := range dirs {
					runtime.GC()
					t0 := cpuTime()
					runScanOnce(b, d, "1")
					cpu[i] += cpuTime() - t0
				}
			}
			b.ReportMetric(cpu[0].Seconds()/cpu[1].Seconds(), "remote/local")
		})
	}
}

// remoteRootOf writes the benchmark segment of in into a remote store
// root beside its log dir, once.
func remoteRootOf(b *testing.B, in *perfInput) string {
	root := in.dir + "-remote"
	dir := filepath.Join(root, "kafka-tiered-storage", fmt.Sprintf("perf-%s-0-Fy3GRnlwRH2elChibHkMug", in.codec))
	name := filepath.Join(dir, segtest.SegmentFileName(0)[:20]+"-AAAAAAAAAAAAAAAAAAAAAA.log")
	if _, err := os.Stat(name); err == nil {
		return root
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(name, in.seg, 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}
