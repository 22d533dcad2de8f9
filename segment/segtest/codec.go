package segtest

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Codec framing constants.
const (
	// snappy-java SnappyOutputStream writes 32 KiB blocks.
	xerialBlockSize = 32 << 10
	// Kafka's Lz4BlockOutputStream uses BD 0x40: 64 KiB blocks.
	lz4BlockSize = 64 << 10
	// lz4 block-size high bit: block stored uncompressed.
	lz4Uncompressed = 0x80000000
)

// XerialHeader is the 16-byte snappy-java stream header: magic
// "\x82SNAPPY\x00", version 1, minimum compatible version 1.
var XerialHeader = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}

// lz4FrameHeader is magic 0x184D2204 (LE), FLG 0x60 (version 01, block
// independence, no checksums, no content size), BD 0x40 (64 KiB).
var lz4FrameHeader = []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40}

// zstdEncoder is shared: EncodeAll is safe for concurrent use. No content
// checksum, as zstd-jni's default; level 3 (SpeedDefault), Kafka's default.
// EncodeAll records the frame content size, which zstd-jni's streaming
// writer may not; readers must not depend on either.
var zstdEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false),
		zstd.WithEncoderLevel(zstd.SpeedDefault))
})

// compress applies codec c as Kafka frames it for a batch of the given
// magic. Unknown ids (5-7) return src unchanged so the attribute bits can
// be tested on their own.
func compress(c Codec, magic int8, snappyRaw bool, hc LZ4HC, src []byte) ([]byte, error) {
	switch c & 7 {
	case CodecNone:
		return src, nil
	case CodecGzip:
		return GzipCompress(src)
	case CodecSnappy:
		if snappyRaw {
			return s2.EncodeSnappy(nil, src), nil
		}
		return XerialCompress(src), nil
	case CodecLZ4:
		broken := hc == LZ4HCBroken || (hc == LZ4HCKafka && magic <= 0)
		return LZ4Compress(src, broken), nil
	case CodecZstd:
		enc, err := zstdEncoder()
		if err != nil {
			return nil, err
		}
		return enc.EncodeAll(src, nil), nil
	}
	return src, nil
}

// GzipCompress is one gzip member at the default level, with zero mtime
// and OS 255 so the output is deterministic.
func GzipCompress(src []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// XerialCompress writes the snappy-java stream format: XerialHeader, then
// for each input block of at most 32 KiB an int32 BE length and a raw
// snappy block.
func XerialCompress(src []byte) []byte {
	out := append([]byte(nil), XerialHeader...)
	for len(src) > 0 {
		n := min(len(src), xerialBlockSize)
		block := s2.EncodeSnappy(nil, src[:n])
		out = binary.BigEndian.AppendUint32(out, uint32(len(block)))
		out = append(out, block...)
		src = src[n:]
	}
	return out
}

// LZ4HeaderChecksum returns the HC byte of Kafka's frame descriptor:
// xxh32(FLG,BD)>>8 (0x82), or with broken set the pre-KIP-57 value
// xxh32(magic,FLG,BD)>>8 (0x1a) that Kafka still writes for magic 0.
func LZ4HeaderChecksum(broken bool) byte {
	if broken {
		return byte(XXH32(lz4FrameHeader, 0) >> 8)
	}
	return byte(XXH32(lz4FrameHeader[4:], 0) >> 8)
}

// LZ4Compress writes the LZ4 frame Kafka's Lz4BlockOutputStream writes:
// 7-byte header, blocks of at most 64 KiB input each prefixed by a uint32
// LE size (high bit set when the block is stored because compression did
// not shrink it), and a zero end mark, no content checksum.
func LZ4Compress(src []byte, brokenHC bool) []byte {
	out := append([]byte(nil), lz4FrameHeader...)
	out = append(out, LZ4HeaderChecksum(brokenHC))
	dst := make([]byte, lz4.CompressBlockBound(lz4BlockSize))
	for len(src) > 0 {
		chunk := src[:min(len(src), lz4BlockSize)]
		src = src[len(chunk):]
		n, err := lz4.CompressBlock(chunk, dst, nil)
		// n == 0 means incompressible; lz4-java stores the block when the
		// compressed form is not smaller, and so do we.
		if err != nil || n == 0 || n >= len(chunk) {
			out = binary.LittleEndian.AppendUint32(out, uint32(len(chunk))|lz4Uncompressed)
			out = append(out, chunk...)
			continue
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(n))
		out = append(out, dst[:n]...)
	}
	return binary.LittleEndian.AppendUint32(out, 0)
}
