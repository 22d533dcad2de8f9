package segment

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kmsgBatch encodes records with franz-go's kmsg types and compressors —
// an encoder written independently of ours — and returns the batch bytes.
func kmsgBatch(t *testing.T, codec kgo.CompressionCodec, base int64, recs []kmsg.Record, attrsExtra int16, pid int64, seq int32) []byte {
	t.Helper()
	var raw []byte
	for i := range recs {
		r := &recs[i]
		r.Length = 0
		tmp := r.AppendTo(nil)
		r.Length = int32(len(tmp) - 1) // a zero length varint is one byte
		raw = r.AppendTo(raw)
	}
	payload, typ := raw, kgo.CompressionCodecType(0)
	if codec != kgo.NoCompression() {
		comp, err := kgo.DefaultCompressor(codec)
		if err != nil || comp == nil {
			t.Fatalf("compressor: %v", err)
		}
		var buf bytes.Buffer
		if p, ty := comp.Compress(&buf, raw); p != nil {
			payload, typ = p, ty
		}
	}
	payload = append([]byte(nil), payload...)
	var maxTS int64
	for _, r := range recs {
		maxTS = max(maxTS, r.TimestampDelta64)
	}
	b := kmsg.RecordBatch{
		FirstOffset: base, PartitionLeaderEpoch: 5, Magic: 2, Attributes: int16(typ) | attrsExtra,
		LastOffsetDelta: int32(len(recs) - 1), FirstTimestamp: 1_700_000_000_000,
		MaxTimestamp: 1_700_000_000_000 + maxTS, ProducerID: pid, ProducerEpoch: 3, FirstSequence: seq,
		NumRecords: int32(len(recs)), Records: payload,
	}
	b.Length = int32(BatchHeaderSize - LogOverhead + len(payload))
	out := b.AppendTo(nil)
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], castagnoli))
	return out
}

func randomKmsgRecords(rng *rand.Rand, n int) []kmsg.Record {
	bytesOrNil := func(max int) []byte {
		switch rng.IntN(6) {
		case 0:
			return nil
		case 1:
			return []byte{}
		}
		b := make([]byte, rng.IntN(max))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return b
	}
	recs := make([]kmsg.Record, n)
	for i := range recs {
		r := &recs[i]
		r.OffsetDelta = int32(i)
		r.TimestampDelta64 = int64(i * rng.IntN(50))
		r.Key = bytesOrNil(40)
		r.Value = bytesOrNil(3000)
		for h := rng.IntN(4); h > 0; h-- {
			r.Headers = append(r.Headers, kmsg.Header{Key: fmt.Sprintf("h%d", h), Value: bytesOrNil(20)})
		}
	}
	return recs
}

// TestKmsgDifferential: batches encoded by franz-go (kmsg + kgo's
// compressors, for every codec) decode to the same header fields and
// records.
func TestKmsgDifferential(t *testing.T) {
	codecs := map[string]kgo.CompressionCodec{
		"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
		"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
	}
	for name, codec := range codecs {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			var seg []byte
			var want [][]kmsg.Record
			base := int64(100)
			for i := 0; i < 20; i++ {
				recs := randomKmsgRecords(rng, 1+rng.IntN(60))
				seg = append(seg, kmsgBatch(t, codec, base, recs, int16(i%2)<<4, 42+int64(i/10), int32(base))...)
				want = append(want, recs)
				base += int64(len(recs))
			}
			r := NewReader(bytes.NewReader(seg), Options{Path: "kmsg.log"})
			defer r.Close()
			i := 0
			for r.Next() {
				if f := r.Finding(); f != nil {
					t.Fatalf("finding %v", f)
				}
				b := r.Batch()
				var kb kmsg.RecordBatch
				if err := kb.ReadFrom(b.Bytes()); err != nil {
					t.Fatal(err)
				}
				if b.BaseOffset != kb.FirstOffset || b.PartitionLeaderEpoch != kb.PartitionLeaderEpoch ||
					b.Attributes != kb.Attributes || b.LastOffsetDelta != kb.LastOffsetDelta ||
					b.FirstTimestamp != kb.FirstTimestamp || b.MaxTimestamp != kb.MaxTimestamp ||
					b.ProducerID != kb.ProducerID || b.ProducerEpoch != kb.ProducerEpoch ||
					b.BaseSequence != kb.FirstSequence || b.NumRecords != kb.NumRecords ||
					b.CRC != uint32(kb.CRC) || !b.CRCValid || b.IsTransactional() != (i%2 == 1) {
					t.Fatalf("batch %d header differs: %+v vs %+v", i, b, kb)
				}
				it := r.Records()
				j := 0
				for it.Next() {
					got, w := it.Record(), want[i][j]
					if got.Offset != b.BaseOffset+int64(w.OffsetDelta) ||
						got.Timestamp != kb.FirstTimestamp+w.TimestampDelta64 ||
						got.Sequence != b.BaseSequence+w.OffsetDelta ||
						!sameBytes(got.Key, w.Key) || !sameBytes(got.Value, w.Value) || len(got.Headers) != len(w.Headers) {
						t.Fatalf("batch %d record %d differs: %+v vs %+v", i, j, got, w)
					}
					for h := range w.Headers {
						if string(got.Headers[h].Key) != w.Headers[h].Key || !sameBytes(got.Headers[h].Value, w.Headers[h].Value) {
							t.Fatalf("batch %d record %d header %d differs", i, j, h)
						}
					}
					j++
				}
				if it.Err() != nil || j != len(want[i]) {
					t.Fatalf("batch %d: %d records, err %v", i, j, it.Err())
				}
				i++
			}
			if i != len(want) {
				t.Fatalf("%d batches, want %d", i, len(want))
			}
		})
	}
}

// sameBytes compares with null distinct from empty.
func sameBytes(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}
