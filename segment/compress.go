package segment

import (
	"bytes"
	"encoding/binary"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// The write side of the codecs, for rewriting a batch with its original
// codec and framing (Redactor). Each framing is the one Kafka's own
// producers write and the decompressors of codec.go read
// (docs/formats/compression.md).

// xerialHeader starts a snappy-java stream: "\x82SNAPPY\x00", then
// version 1 and minimum compatible version 1 (big-endian int32s).
var xerialHeader = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}

const (
	xerialBlock = 32 << 10 // snappy-java's SnappyOutputStream block
	lz4Block    = 64 << 10 // Kafka's lz4 block size (BD 0x40)
	lz4Stored   = 0x80000000
)

// compressor holds the encoders one Redactor reuses.
type compressor struct {
	zenc *zstd.Encoder
	lz   lz4.Compressor
	buf  bytes.Buffer
}

// compress frames src with codec as a batch of the given magic stores it.
// xerial chooses snappy-java framing over a raw snappy block.
func (c *compressor) compress(codec Codec, magic int8, xerial bool, src []byte) ([]byte, error) {
	switch codec {
	case CodecGzip:
		c.buf.Reset()
		w := gzip.NewWriter(&c.buf)
		if _, err := w.Write(src); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		return append([]byte(nil), c.buf.Bytes()...), nil
	case CodecSnappy:
		if !xerial {
			return s2.EncodeSnappy(nil, src), nil
		}
		out := append([]byte(nil), xerialHeader...)
		for len(src) > 0 {
			n := min(len(src), xerialBlock)
			blk := s2.EncodeSnappy(nil, src[:n])
			out = binary.BigEndian.AppendUint32(out, uint32(len(blk)))
			out = append(out, blk...)
			src = src[n:]
		}
		return out, nil
	case CodecLZ4:
		return c.lz4Frame(magic, src), nil
	case CodecZstd:
		if c.zenc == nil {
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
			if err != nil {
				return nil, err
			}
			c.zenc = enc
		}
		return c.zenc.EncodeAll(src, nil), nil
	}
	return append([]byte(nil), src...), nil
}

// lz4Frame writes an LZ4 frame as Kafka does: independent 64 KiB blocks,
// no checksums, and the descriptor checksum over FLG and BD, or, for
// magic 0, over the frame magic too (KAFKA-3160), as Kafka 0.8 wrote it.
func (c *compressor) lz4Frame(magic int8, src []byte) []byte {
	out := []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40}
	hc := byte(xxh32(out[4:6], 0) >> 8)
	if magic == 0 {
		hc = byte(xxh32(out[0:6], 0) >> 8)
	}
	out = append(out, hc)
	dst := make([]byte, lz4.CompressBlockBound(lz4Block))
	for len(src) > 0 {
		chunk := src[:min(len(src), lz4Block)]
		src = src[len(chunk):]
		n, err := c.lz.CompressBlock(chunk, dst)
		if err != nil || n == 0 || n >= len(chunk) {
			out = binary.LittleEndian.AppendUint32(out, uint32(len(chunk))|lz4Stored)
			out = append(out, chunk...)
			continue
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(n))
		out = append(out, dst[:n]...)
	}
	return binary.LittleEndian.AppendUint32(out, 0)
}

// close releases the zstd encoder.
func (c *compressor) close() {
	if c.zenc != nil {
		_ = c.zenc.Close()
		c.zenc = nil
	}
}
