package segment

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// realisticSegment builds a segment shaped like production traffic: JSON-
// like values of 200-2000 bytes, string keys, 2-4 headers, batches of 1-16
// KB uncompressed, 8 idempotent producers; about size bytes before
// compression. Seeded, so every run measures the same bytes.
func realisticSegment(codec segtest.Codec, size int) []byte {
	rng := rand.New(rand.NewPCG(42, uint64(codec)))
	words := []string{"order", "payment", "status", "amount", "currency", "EUR", "USD", "customer", "created",
		"updated", "items", "sku", "quantity", "price", "shipping", "address", "city", "country", "true", "false"}
	var seg []byte
	var raw int
	off := int64(0)
	seqs := make([]int32, 8)
	for raw < size {
		p := rng.IntN(8)
		target := 1024 + rng.IntN(15*1024)
		var recs []segtest.Record
		n := 0
		for n < target {
			var v bytes.Buffer
			v.WriteString("{")
			want := 200 + rng.IntN(1800)
			for v.Len() < want {
				fmt.Fprintf(&v, "%q:%q,", words[rng.IntN(len(words))], words[rng.IntN(len(words))]+fmt.Sprint(rng.IntN(100000)))
			}
			v.WriteString("\"end\":1}")
			hs := []segtest.Header{{Key: "trace-id", Value: []byte(fmt.Sprintf("%016x", rng.Uint64()))},
				{Key: "source", Value: []byte("svc-" + words[rng.IntN(5)])}}
			for h := rng.IntN(3); h > 0; h-- {
				hs = append(hs, segtest.Header{Key: "x-" + words[rng.IntN(len(words))], Value: []byte(words[rng.IntN(len(words))])})
			}
			recs = append(recs, segtest.Record{TimestampDelta: int64(len(recs)), Key: []byte(fmt.Sprintf("customer-%d", rng.IntN(5000))),
				Value: v.Bytes(), Headers: hs})
			n += v.Len() + 60
		}
		b := segtest.Batch{Magic: 2, BaseOffset: off, PartitionLeaderEpoch: 3, Codec: codec, AutoDeltas: true,
			FirstTimestamp: 1_700_000_000_000 + off, Records: recs,
			Producer: &segtest.Producer{ID: int64(5000 + p), Epoch: 0, BaseSequence: seqs[p]}}
		seg = append(seg, b.Encode()...)
		seqs[p] += int32(len(recs))
		off += int64(len(recs))
		raw += n
	}
	return seg
}

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
			benchSegs[c] = realisticSegment(c, *benchSize)
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
	seg := realisticSegment(segtest.CodecNone, 4<<20)
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
