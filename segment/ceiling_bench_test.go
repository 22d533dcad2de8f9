package segment

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// batchPayloads splits a segment into its batches' records areas.
func batchPayloads(seg []byte) [][]byte {
	var out [][]byte
	for len(seg) >= BatchHeaderSize {
		n := LogOverhead + int(binary.BigEndian.Uint32(seg[8:]))
		out = append(out, seg[BatchHeaderSize:n])
		seg = seg[n:]
	}
	return out
}

// BenchmarkCeiling is the decompression-only ceiling: the same libraries
// our reader uses, one-shot into a reused buffer, no record parsing and no
// CRC. Run it beside BenchmarkReader (-bench 'Reader|Ceiling|Kmsg') to read
// the ratio per codec; throughput is per byte of segment.
func BenchmarkCeiling(b *testing.B) {
	for _, c := range benchCodecs {
		seg := benchSegments()[c]
		payloads := batchPayloads(seg)
		b.Run(c.String(), func(b *testing.B) {
			b.SetBytes(int64(len(seg)))
			b.ReportAllocs()
			out := make([]byte, 0, 1<<20)
			var gz *gzip.Reader
			zd, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
			defer zd.Close()
			var br bytes.Reader
			for b.Loop() {
				for _, p := range payloads {
					switch c {
					case segtest.CodecNone:
						out = append(out[:0], p...)
					case segtest.CodecGzip:
						br.Reset(p)
						if gz == nil {
							gz, _ = gzip.NewReader(&br)
						} else {
							gz.Reset(&br)
						}
						out = out[:0]
						for {
							if len(out) == cap(out) {
								out = append(out, 0)[:len(out)]
							}
							n, err := gz.Read(out[len(out):cap(out)])
							out = out[:len(out)+n]
							if err == io.EOF {
								break
							}
						}
					case segtest.CodecSnappy:
						q := p[16:]
						out = out[:0]
						for len(q) >= 4 {
							n := int(binary.BigEndian.Uint32(q))
							dl, _ := s2.DecodedLen(q[4 : 4+n])
							dst, _ := s2.Decode(out[len(out):cap(out)][:0:dl], q[4:4+n])
							out = out[:len(out)+len(dst)]
							q = q[4+n:]
						}
					case segtest.CodecLZ4:
						q := p[7:]
						out = out[:0]
						for len(q) >= 4 {
							n := binary.LittleEndian.Uint32(q)
							if n == 0 {
								break
							}
							blk := q[4 : 4+n&0x7fffffff]
							if n&0x80000000 != 0 {
								out = append(out, blk...)
							} else {
								k, _ := lz4.UncompressBlock(blk, out[len(out):cap(out)])
								out = out[:len(out)+k]
							}
							q = q[4+n&0x7fffffff:]
						}
					case segtest.CodecZstd:
						out, _ = zd.DecodeAll(p, out[:0])
					}
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
				in := seg
				for len(in) >= BatchHeaderSize {
					n := LogOverhead + int(binary.BigEndian.Uint32(in[8:]))
					var kb kmsg.RecordBatch
					if err := kb.ReadFrom(in[:n]); err != nil {
						b.Fatal(err)
					}
					if !checksumOK(in[:n]) {
						b.Fatal("crc")
					}
					raw, err := dec.Decompress(kb.Records, kgo.CompressionCodecType(kb.Attributes&7))
					if err != nil {
						b.Fatal(err)
					}
					for i := int32(0); i < kb.NumRecords; i++ {
						var r kmsg.Record
						length, used := binary.Uvarint(raw) // zigzag varint length
						l := int(int64(length>>1) ^ -int64(length&1))
						if err := r.ReadFrom(raw[:used+l]); err != nil {
							b.Fatal(err)
						}
						raw = raw[used+l:]
					}
					in = in[n:]
				}
			}
		})
	}
}
