package replicas_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// BenchmarkReplicasVsVerify puts replicas over three byte-identical
// copies of a partition beside verify over one copy, each on one core,
// both per byte of one copy: replicas reads the first copy and compares
// the other two with it byte for byte (docs/performance.md has the
// figures and why; go test -bench ReplicasVsVerify -benchtime 5x -count 5
// ./analysis/replicas/). A copy is 256 MiB, beyond the CPU's last-level
// cache: a copy that fits there is read from it again at each op, which
// flatters verify's single copy and not the three of replicas. cpu-ns/op
// is the process's CPU time per op, which other load on the machine skews
// less than ns/op.
func BenchmarkReplicasVsVerify(b *testing.B) {
	for _, codec := range []segtest.Codec{segtest.CodecNone, segtest.CodecLZ4} {
		b.Run(codec.String(), func(b *testing.B) { benchReplicas(b, codec) })
	}
}

func benchReplicas(b *testing.B, codec segtest.Codec) {
	root := b.TempDir()
	seg := segtest.RealisticSegment(codec, 256<<20, 1)
	var dirs []string
	for id := 1; id <= 3; id++ {
		d := filepath.Join(root, fmt.Sprintf("broker-%d", id))
		if err := os.MkdirAll(filepath.Join(d, "orders-0"), 0o755); err != nil {
			b.Fatal(err)
		}
		props := fmt.Sprintf("version=1\nnode.id=%d\ncluster.id=c1\n", id)
		if err := os.WriteFile(filepath.Join(d, "meta.properties"), []byte(props), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "orders-0", "00000000000000000000.log"), seg, 0o644); err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	cases := []struct {
		name  string
		o     pipeline.Options
		paths []string
	}{
		// What ksleuth verify runs.
		{"verify-1-copy", pipeline.Options{Scan: scan.Config{Jobs: 1, Records: true, Compact: true}, Attribution: true}, dirs[:1]},
		// What ksleuth replicas runs.
		{"replicas-3-copies", pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true, HeadersOnly: true}}, dirs},
		// The same over the first copy alone: what the further two add.
		{"replicas-1-copy", pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true, HeadersOnly: true}}, dirs[:1]},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(seg)))
			b.ReportAllocs()
			cpu0 := cpuNanos()
			for b.Loop() {
				res := run(b, c.o, c.paths...)
				if len(c.paths) > 1 && (len(res.Replicas.Rows) != 3 || res.Scan.IdenticalFiles != 2) {
					b.Fatalf("%d replica rows, %d identical files", len(res.Replicas.Rows), res.Scan.IdenticalFiles)
				}
			}
			b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
