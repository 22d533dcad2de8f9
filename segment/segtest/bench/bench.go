// Package bench holds the reference walks ksleuth's performance benchmarks
// measure themselves against, so the segment and scan benchmarks run the
// same code in the same process: the decompression-only ceiling (two
// forms), the dedup floor (Floor) and franz-go's kmsg record iteration.
// Only tests import it.
package bench

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/zeebo/xxh3"
)

// Payload is the records area of one v2 batch and its codec.
type Payload struct {
	Codec segtest.Codec
	Data  []byte
}

// Payloads splits a segment of v2 batches into their records areas.
func Payloads(seg []byte) []Payload {
	var out []Payload
	for len(seg) >= 61 {
		n := 12 + int(binary.BigEndian.Uint32(seg[8:]))
		if n > len(seg) {
			break
		}
		out = append(out, Payload{segtest.Codec(binary.BigEndian.Uint16(seg[21:]) & 7), seg[61:n]})
		seg = seg[n:]
	}
	return out
}

// Ceiling decompresses payloads with no CRC and no record parsing, into
// one reused buffer, with decoders reused across batches.
type Ceiling struct {
	out []byte
	br  bytes.Reader
	gz  *gzip.Reader
	zd  *zstd.Decoder
	lzr *lz4.Reader
}

// NewCeiling returns a Ceiling.
func NewCeiling() *Ceiling {
	zd, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	return &Ceiling{out: make([]byte, 0, 1<<20), zd: zd, lzr: lz4.NewReader(nil)}
}

// Close releases the zstd decoder.
func (c *Ceiling) Close() { c.zd.Close() }

// Blocks decodes every payload with the block-level APIs (lz4 blocks with
// lz4.UncompressBlock, snappy chunks with s2.Decode): the strict ceiling,
// below which no reader of these codecs with these libraries can go. It
// returns the decompressed bytes.
func (c *Ceiling) Blocks(ps []Payload) (int, error) {
	total := 0
	for _, p := range ps {
		var err error
		switch p.Codec {
		case segtest.CodecLZ4:
			err = c.lz4Blocks(p.Data)
		default:
			err = c.library(p)
		}
		if err != nil {
			return total, err
		}
		total += len(c.out)
	}
	return total, nil
}

// Bound is the least work any reader that checks every batch and
// fingerprints every record can do: the batch CRC-32C over its bytes, the
// decoding of Blocks, and one XXH3-128 over all the decoded bytes at once
// (cheaper than one hash per record, and no record is parsed). Its rate
// over the ceiling's is the most a scan can reach of the ceiling. It
// returns the decompressed bytes.
func (c *Ceiling) Bound(seg []byte) (int, error) {
	total := 0
	var sink uint64
	for len(seg) >= 61 {
		n := 12 + int(binary.BigEndian.Uint32(seg[8:]))
		if n > len(seg) {
			break
		}
		if crc32.Checksum(seg[21:n], castagnoli) != binary.BigEndian.Uint32(seg[17:]) {
			return total, errors.New("batch CRC mismatch")
		}
		p := Payload{segtest.Codec(binary.BigEndian.Uint16(seg[21:]) & 7), seg[61:n]}
		data := p.Data
		if p.Codec != segtest.CodecNone {
			if _, err := c.Blocks([]Payload{p}); err != nil {
				return total, err
			}
			data = c.out
		}
		sink ^= xxh3.Hash128(data).Lo
		total += len(data)
		seg = seg[n:]
	}
	_ = sink
	return total, nil
}

// Library decodes every payload with each library's own one-shot API,
// the ceiling as issue 6 states it: gzip and lz4 through their frame
// readers (pierrec's verifies the frame's own checksums), zstd DecodeAll,
// snappy s2.Decode per xerial chunk (no library reads that framing).
func (c *Ceiling) Library(ps []Payload) (int, error) {
	total := 0
	for _, p := range ps {
		if err := c.library(p); err != nil {
			return total, err
		}
		total += len(c.out)
	}
	return total, nil
}

func (c *Ceiling) library(p Payload) error {
	switch p.Codec {
	case segtest.CodecNone:
		c.out = append(c.out[:0], p.Data...)
		return nil
	case segtest.CodecGzip:
		c.br.Reset(p.Data)
		if c.gz == nil {
			gz, err := gzip.NewReader(&c.br)
			if err != nil {
				return err
			}
			c.gz = gz
		} else if err := c.gz.Reset(&c.br); err != nil {
			return err
		}
		return c.readAll(c.gz)
	case segtest.CodecLZ4:
		c.br.Reset(p.Data)
		c.lzr.Reset(&c.br)
		return c.readAll(c.lzr)
	case segtest.CodecSnappy:
		return c.xerial(p.Data)
	case segtest.CodecZstd:
		out, err := c.zd.DecodeAll(p.Data, c.out[:0])
		c.out = out
		return err
	}
	return fmt.Errorf("codec %d", p.Codec)
}

func (c *Ceiling) readAll(r io.Reader) error {
	c.out = c.out[:0]
	for {
		if len(c.out) == cap(c.out) {
			c.out = append(c.out, 0)[:len(c.out)]
		}
		n, err := r.Read(c.out[len(c.out):cap(c.out)])
		c.out = c.out[:len(c.out)+n]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// xerial decodes snappy-java's stream framing: a 16-byte header, then
// chunks of a 4-byte big-endian length and a raw snappy block.
func (c *Ceiling) xerial(q []byte) error {
	if len(q) < 16 {
		return errors.New("short xerial header")
	}
	q = q[16:]
	c.out = c.out[:0]
	for len(q) >= 4 {
		n := int(binary.BigEndian.Uint32(q))
		if 4+n > len(q) {
			return errors.New("short xerial chunk")
		}
		dl, err := s2.DecodedLen(q[4 : 4+n])
		if err != nil {
			return err
		}
		c.out = grow(c.out, dl)
		dst, err := s2.Decode(c.out[len(c.out):len(c.out)+dl], q[4:4+n])
		if err != nil {
			return err
		}
		c.out = c.out[:len(c.out)+len(dst)]
		q = q[4+n:]
	}
	return nil
}

// lz4Blocks decodes an LZ4 frame's blocks with UncompressBlock, skipping
// the frame's own checksums (Kafka's batch CRC covers the bytes).
func (c *Ceiling) lz4Blocks(q []byte) error {
	if len(q) < 7 {
		return errors.New("short lz4 frame")
	}
	flg := q[4]
	q = q[7:]
	if flg&0x08 != 0 { // content size present
		q = q[8:]
	}
	c.out = c.out[:0]
	for len(q) >= 4 {
		n := binary.LittleEndian.Uint32(q)
		if n == 0 {
			return nil
		}
		size := int(n & 0x7fffffff)
		if 4+size > len(q) {
			return errors.New("short lz4 block")
		}
		blk := q[4 : 4+size]
		if n&0x80000000 != 0 {
			c.out = append(c.out, blk...)
		} else {
			c.out = grow(c.out, 4<<20)
			k, err := lz4.UncompressBlock(blk, c.out[len(c.out):cap(c.out)])
			if err != nil {
				return err
			}
			c.out = c.out[:len(c.out)+k]
		}
		q = q[4+size:]
		if flg&0x10 != 0 { // block checksum
			q = q[4:]
		}
	}
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), 2*cap(b)+n)
	copy(nb, b)
	return nb
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Kmsg walks a segment the way a franz-go client would: kmsg.RecordBatch
// and kmsg.Record parsing with kgo's default decompressor, the batch CRC
// checked. each, when not nil, sees every record.
func Kmsg(seg []byte, dec kgo.Decompressor, each func(*kmsg.Record)) (records int, err error) {
	for len(seg) >= 61 {
		n := 12 + int(binary.BigEndian.Uint32(seg[8:]))
		if n > len(seg) {
			return records, errors.New("short batch")
		}
		var kb kmsg.RecordBatch
		if err := kb.ReadFrom(seg[:n]); err != nil {
			return records, err
		}
		if crc32.Checksum(seg[21:n], castagnoli) != uint32(kb.CRC) {
			return records, errors.New("crc mismatch")
		}
		raw, err := dec.Decompress(kb.Records, kgo.CompressionCodecType(kb.Attributes&7))
		if err != nil {
			return records, err
		}
		for i := int32(0); i < kb.NumRecords; i++ {
			var r kmsg.Record
			length, used := binary.Uvarint(raw)
			l := int(int64(length>>1) ^ -int64(length&1))
			if used <= 0 || l < 0 || used+l > len(raw) {
				return records, errors.New("bad record length")
			}
			if err := r.ReadFrom(raw[:used+l]); err != nil {
				return records, err
			}
			if each != nil {
				each(&r)
			}
			records++
			raw = raw[used+l:]
		}
		seg = seg[n:]
	}
	return records, nil
}
