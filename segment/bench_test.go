package segment

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// benchSize is the uncompressed size of each benchmark segment. The default
// keeps a run short; real measurements use e.g. -segsize=268435456.
var benchSize = flag.Int("segsize", 16<<20, "uncompressed bytes per benchmark segment")

var benchCodecs = []segtest.Codec{segtest.CodecNone, segtest.CodecGzip, segtest.CodecSnappy, segtest.CodecLZ4, segtest.CodecZstd}

var (
	benchSegOnce sync.Once
	benchSegs    map[segtest.Codec][]byte
)

func benchSegments() map[segtest.Codec][]byte {
	benchSegOnce.Do(func() {
		benchSegs = map[segtest.Codec][]byte{}
		for _, c := range benchCodecs {
			benchSegs[c] = segtest.RealisticSegment(c, *benchSize, 42)
		}
	})
	return benchSegs
}

// BenchmarkReader measures full record iteration with the CRC checked, per
// codec. Throughput is in bytes of segment (compressed) per second.
func BenchmarkReader(b *testing.B) {
	for _, c := range benchCodecs {
		seg := benchSegments()[c]
		b.Run(c.String(), func(b *testing.B) {
			b.SetBytes(int64(len(seg)))
			b.ReportAllocs()
			in := bytes.NewReader(seg)
			for b.Loop() {
				in.Reset(seg)
				r := NewReader(in, Options{})
				n := 0
				for r.Next() {
					if r.Batch() == nil {
						b.Fatal(r.Finding())
					}
					it := r.Records()
					for it.Next() {
						n += len(it.Record().Value)
					}
					if it.Err() != nil {
						b.Fatal(it.Err())
					}
				}
				r.Close()
			}
		})
	}
}

// BenchmarkFraming measures batch framing and CRC only (no records).
func BenchmarkFraming(b *testing.B) {
	for _, c := range benchCodecs {
		seg := benchSegments()[c]
		b.Run(c.String(), func(b *testing.B) {
			b.SetBytes(int64(len(seg)))
			b.ReportAllocs()
			in := bytes.NewReader(seg)
			for b.Loop() {
				in.Reset(seg)
				r := NewReader(in, Options{})
				for r.Next() {
				}
				r.Close()
			}
		})
	}
}

// TestSteadyStateAllocs pins reading an uncompressed segment, batch by
// batch with every record, at zero heap allocations once warmed up.
func TestSteadyStateAllocs(t *testing.T) {
	seg := segtest.RealisticSegment(segtest.CodecNone, 4<<20, 42)
	r := NewReader(bytes.NewReader(seg), Options{})
	defer r.Close()
	step := func() {
		if !r.Next() || r.Batch() == nil {
			t.Fatal("ran out of batches or hit a finding")
		}
		it := r.Records()
		for it.Next() {
			_ = it.Record().Headers
		}
	}
	for i := 0; i < 5; i++ {
		step()
	}
	if a := testing.AllocsPerRun(100, step); a != 0 {
		t.Fatalf("%v allocations per batch in steady state, want 0", a)
	}
}

// BenchmarkResync measures scanning 4 MiB of random bytes (a damaged
// region) for the next valid batch.
func BenchmarkResync(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	garbage := make([]byte, 4<<20)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	seg, _ := testSegment(b, 3)
	in := append(garbage, seg...)
	for name, mk := range readerInputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				r := NewReader(mk(in), Options{})
				batches := 0
				for r.Next() {
					if r.Batch() != nil {
						batches++
					}
				}
				r.Close()
				if batches != 3 {
					b.Fatalf("%d batches after the garbage", batches)
				}
			}
		})
	}
}
