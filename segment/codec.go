package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// decompressors holds one decoder per codec, built on first use and reused
// for every later batch (never rebuilt per batch). Not safe for concurrent
// use: each worker owns its own Decoder.
type decompressors struct {
	limit int64 // MaxDecompressedBytes

	gz   *gzip.Reader
	zd   *zstd.Decoder
	lz   lz4Frame
	sn   xerialSnappy
	src  bytes.Reader // reused reader over an in-memory payload
	zout []byte       // zstd one-shot output
	out  []byte       // lz4 and snappy one-shot output
}

// zstdOneShotMax is the largest frame content size decoded in one call into
// a reused buffer; bigger frames (or frames without a size) are streamed so
// that memory follows the largest record, not the batch.
const zstdOneShotMax = 4 << 20

func (d *decompressors) close() {
	if d.zd != nil {
		d.zd.Close()
		d.zd = nil
	}
}

// openBytes prepares decompression of an in-memory payload. It returns
// either the whole decompressed payload (direct) or a stream to read it from.
func (d *decompressors) openBytes(codec Codec, magic int8, payload []byte) (direct []byte, stream io.Reader, err error) {
	err = errOneShotFull
	if codec == CodecZstd {
		var h zstd.Header
		if h.Decode(payload) == nil && h.HasFCS && h.FrameContentSize <= zstdOneShotMax && int64(h.FrameContentSize) <= d.limit {
			zd, err := d.zstd()
			if err != nil {
				return nil, nil, err
			}
			out, err := zd.DecodeAll(payload, d.zout[:0])
			if err != nil {
				if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
					return nil, nil, detail(ErrTooLarge, "zstd: %v", err)
				}
				return nil, nil, detail(ErrDecompress, "zstd: %v", err)
			}
			d.zout = out
			return out, nil, nil
		}
	}
	// lz4 and snappy blocks decode straight from the payload into one
	// reused buffer; a payload that would decode to more than oneShotMax
	// is streamed instead (from the start: that is rare and keeps memory
	// following the largest record).
	switch codec {
	case CodecLZ4:
		d.out, err = lz4DecodeAll(payload, magic, d.out[:0])
	case CodecSnappy:
		d.out, err = xerialDecodeAll(payload, d.out[:0])
	}
	if err == nil {
		return d.out, nil, nil
	}
	if err != errOneShotFull {
		return nil, nil, err
	}
	d.src.Reset(payload)
	stream, err = d.open(codec, magic, &d.src)
	return nil, stream, err
}

// open returns a stream of the decompressed bytes read from src.
func (d *decompressors) open(codec Codec, magic int8, src io.Reader) (io.Reader, error) {
	switch codec {
	case CodecGzip:
		if d.gz == nil {
			gz, err := gzip.NewReader(src)
			if err != nil {
				return nil, detail(ErrDecompress, "gzip: %v", err)
			}
			d.gz = gz
		} else if err := d.gz.Reset(src); err != nil {
			return nil, detail(ErrDecompress, "gzip: %v", err)
		}
		return gzipErrors{d.gz}, nil
	case CodecSnappy:
		d.sn.reset(src, d.limit)
		return &d.sn, nil
	case CodecLZ4:
		d.lz.reset(src, magic)
		return &d.lz, nil
	case CodecZstd:
		if magic < 2 {
			return nil, detail(ErrUnknownCodec, "zstd is not valid in a magic %d message", magic)
		}
		zd, err := d.zstd()
		if err != nil {
			return nil, err
		}
		if err := zd.Reset(src); err != nil {
			return nil, detail(ErrDecompress, "zstd: %v", err)
		}
		return zstdErrors{zd}, nil
	}
	return nil, detail(ErrUnknownCodec, "codec id %d", codec)
}

func (d *decompressors) zstd() (*zstd.Decoder, error) {
	if d.zd == nil {
		// Concurrency 1: no background goroutines; each worker owns a
		// decoder. The memory cap bounds DecodeAll output and the window a
		// streamed frame may ask for.
		maxMem := uint64(d.limit)
		if maxMem < 1<<20 {
			maxMem = 1 << 20
		}
		// The window a frame declares is allocated up front; producers use
		// at most 8 MiB below level 20, so 64 MiB rejects only hostile or
		// exotic frames instead of letting a tiny payload reserve a GiB.
		maxWindow := min(maxMem, 64<<20)
		zd, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(false),
			zstd.WithDecoderMaxMemory(maxMem),
			zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			return nil, detail(ErrDecompress, "zstd: %v", err)
		}
		d.zd = zd
	}
	return d.zd, nil
}

// gzipErrors and zstdErrors tag codec failures with ErrDecompress.
type gzipErrors struct{ r *gzip.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = detail(ErrDecompress, "gzip: %v", err)
	}
	return n, err
}

type zstdErrors struct{ r *zstd.Decoder }

func (z zstdErrors) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return n, detail(ErrTooLarge, "zstd: %v", err)
		}
		err = detail(ErrDecompress, "zstd: %v", err)
	}
	return n, err
}

// readFullCodec is io.ReadFull with truncation reported as a codec error.
func readFullCodec(r io.Reader, p []byte, what string) error {
	if _, err := io.ReadFull(r, p); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return detail(ErrDecompress, "%s: payload ends early", what)
		}
		return err
	}
	return nil
}

// ---- snappy: snappy-java ("xerial") stream framing, or one raw block ----

var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// xerialSnappy decodes what snappy-java's SnappyInputStream accepts: the
// xerial header followed by length-prefixed raw blocks, or, when the
// header is absent, the whole payload as one raw block.
type xerialSnappy struct {
	src   io.Reader
	limit int64
	state int // 0 header not read, 1 chunks, 2 done
	raw   []byte
	cbuf  []byte
	out   []byte // undelivered decoded bytes
	dbuf  []byte
	err   error
	hdr   [16]byte // scratch, kept here so reading does not allocate
}

func (s *xerialSnappy) reset(src io.Reader, limit int64) {
	s.src, s.limit, s.state, s.out, s.err = src, limit, 0, nil, nil
}

func (s *xerialSnappy) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.err = s.fill()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

func (s *xerialSnappy) fill() error {
	switch s.state {
	case 0:
		hdr := s.hdr[:]
		n, err := io.ReadFull(s.src, hdr)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return err
		}
		if n == 16 && bytes.Equal(hdr[:8], xerialMagic) {
			s.state = 1
			return nil
		}
		// No xerial header: one raw snappy block (snappy-java's fallback).
		if n == 0 {
			return detail(ErrDecompress, "snappy: empty payload")
		}
		s.raw = append(s.raw[:0], hdr[:n]...)
		if n == 16 {
			rest, err := readAllInto(s.raw, s.src)
			if err != nil {
				return err
			}
			s.raw = rest
		}
		s.state = 2
		if err := s.decode(s.raw); err != nil {
			return err
		}
		return nil
	case 1:
		lb := s.hdr[:4]
		n, err := io.ReadFull(s.src, lb)
		if n < 4 {
			if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				return err
			}
			return io.EOF // fewer than 4 bytes left: end of stream
		}
		l := binary.BigEndian.Uint32(lb)
		if l == 0x82534e41 { // "\x82SNA": a concatenated stream header
			rest := s.hdr[4:16]
			if err := readFullCodec(s.src, rest, "snappy"); err != nil {
				return err
			}
			if !bytes.Equal(rest[:4], xerialMagic[4:]) {
				return detail(ErrDecompress, "snappy: bad concatenated stream header")
			}
			return nil
		}
		if int32(l) < 0 {
			return detail(ErrDecompress, "snappy: negative chunk length %d", int32(l))
		}
		if int64(l) > s.limit {
			return detail(ErrTooLarge, "snappy: chunk of %d bytes", l)
		}
		// Read the chunk growing the buffer with the bytes that arrive: a
		// damaged length must not allocate more than the payload holds.
		buf, err := readAtMost(s.cbuf[:0], s.src, int(l))
		s.cbuf = buf
		if err != nil {
			return err
		}
		if len(buf) < int(l) {
			return detail(ErrDecompress, "snappy: chunk of %d bytes, payload ends after %d", l, len(buf))
		}
		return s.decode(buf)
	}
	return io.EOF
}

func (s *xerialSnappy) decode(block []byte) error {
	n, err := s2.DecodedLen(block)
	if err != nil {
		return detail(ErrDecompress, "snappy: %v", err)
	}
	if int64(n) > s.limit {
		return detail(ErrTooLarge, "snappy: block decodes to %d bytes", n)
	}
	s.dbuf = grow(s.dbuf, n)
	out, err := s2.Decode(s.dbuf, block)
	if err != nil {
		return detail(ErrDecompress, "snappy: %v", err)
	}
	s.out = out
	return nil
}

// ---- lz4: the LZ4 frame as Kafka's Lz4BlockInputStream reads it ----

const lz4FrameMagic = 0x184D2204

// lz4Frame decodes one LZ4 frame block by block.
// Written here rather than using lz4.Reader for two reasons: magic-0 data
// carries Kafka 0.8's wrong header checksum, which Kafka skips and standard
// readers reject; and block/content checksums are redundant with the batch
// CRC already verified, so they are skipped like Kafka does for content.
type lz4Frame struct {
	src      io.Reader
	magic    int8
	started  bool
	done     bool
	flg      byte
	blockMax int
	cbuf     []byte
	dbuf     []byte
	dict     []byte // last 64 KiB of output, for dependent blocks
	out      []byte
	err      error
	scratch  [16]byte // header and block-size bytes, kept here to avoid allocating
}

func (f *lz4Frame) reset(src io.Reader, magic int8) {
	f.src, f.magic, f.started, f.done, f.out, f.err = src, magic, false, false, nil, nil
	f.dict = f.dict[:0]
}

func (f *lz4Frame) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.err = f.next()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

func (f *lz4Frame) header() error {
	h := f.scratch[:6]
	if err := readFullCodec(f.src, h, "lz4"); err != nil {
		return err
	}
	need := lz4HeaderLen(h[4])
	if err := readFullCodec(f.src, f.scratch[6:need], "lz4"); err != nil {
		return err
	}
	flg, blockMax, err := lz4ParseHeader(f.scratch[:need], f.magic)
	f.flg, f.blockMax = flg, blockMax
	return err
}

// lz4HeaderLen is the frame header length implied by FLG: magic, FLG, BD,
// an optional 8-byte content size, and the header checksum byte.
func lz4HeaderLen(flg byte) int {
	if flg&0x08 != 0 {
		return 15
	}
	return 7
}

// lz4ParseHeader checks a whole frame header and
// returns FLG and the largest block the frame may hold.
func lz4ParseHeader(h []byte, magic int8) (flg byte, blockMax int, err error) {
	if binary.LittleEndian.Uint32(h[:4]) != lz4FrameMagic {
		return 0, 0, detail(ErrDecompress, "lz4: bad frame magic %#x", binary.LittleEndian.Uint32(h[:4]))
	}
	flg, bd := h[4], h[5]
	if flg>>6 != 1 {
		return 0, 0, detail(ErrDecompress, "lz4: frame version %d", flg>>6)
	}
	if flg&0x03 != 0 || bd&0x8f != 0 {
		return 0, 0, detail(ErrDecompress, "lz4: reserved bits set in frame descriptor")
	}
	code := (bd >> 4) & 7
	if code < 4 {
		return 0, 0, detail(ErrDecompress, "lz4: block size code %d", code)
	}
	// Magic 0 data was written with the checksum taken over the magic bytes
	// too (KAFKA-3160); Kafka skips the check for it, and so do we. The
	// checksum covers the descriptor: FLG, BD and the optional content size.
	n := lz4HeaderLen(flg)
	if magic >= 1 {
		if want := byte(xxh32(h[4:n-1], 0) >> 8); h[n-1] != want {
			return 0, 0, detail(ErrDecompress, "lz4: frame descriptor checksum %#x, want %#x", h[n-1], want)
		}
	}
	return flg, 1 << (8 + 2*uint(code)), nil
}

// errOneShotFull tells openBytes that a payload decodes to more than it
// will hold in one buffer, so it is streamed instead.
var errOneShotFull = errors.New("segment: payload too large to decode at once")

// oneShotMax bounds what a payload held in memory is decoded to in one
// buffer; beyond it decoding streams, so memory follows the largest record.
const oneShotMax = 8 << 20

// lz4DecodeAll decodes a whole in-memory LZ4 frame into dst without
// copying blocks through intermediate buffers.
func lz4DecodeAll(p []byte, magic int8, dst []byte) ([]byte, error) {
	if len(p) < 7 || len(p) < lz4HeaderLen(p[4]) {
		return dst, detail(ErrDecompress, "lz4: payload ends early")
	}
	flg, blockMax, err := lz4ParseHeader(p, magic)
	if err != nil {
		return dst, err
	}
	p = p[lz4HeaderLen(flg):]
	if lz4Bound(p, blockMax, flg) > oneShotMax {
		return dst, errOneShotFull
	}
	for {
		if len(p) < 4 {
			return dst, detail(ErrDecompress, "lz4: payload ends early")
		}
		size := binary.LittleEndian.Uint32(p)
		p = p[4:]
		if size == 0 {
			return dst, nil // end mark; a content checksum may follow
		}
		stored := size&0x80000000 != 0
		size &= 0x7fffffff
		if int(size) > blockMax || int(size) > len(p) {
			return dst, detail(ErrDecompress, "lz4: block of %d bytes (frame limit %d, %d left)", size, blockMax, len(p))
		}
		blk := p[:size]
		p = p[size:]
		if flg&0x10 != 0 {
			if len(p) < 4 {
				return dst, detail(ErrDecompress, "lz4: payload ends early")
			}
			p = p[4:]
		}
		if len(dst)+blockMax > oneShotMax {
			return dst, errOneShotFull
		}
		if stored {
			dst = append(dst, blk...)
			continue
		}
		if cap(dst)-len(dst) < blockMax {
			nd := make([]byte, len(dst), max(2*cap(dst), len(dst)+blockMax))
			copy(nd, dst)
			dst = nd
		}
		var n int
		if flg&0x20 != 0 {
			n, err = lz4.UncompressBlock(blk, dst[len(dst):len(dst)+blockMax])
		} else {
			// Dependent blocks refer to the output before them, which is
			// right here in dst.
			dict := dst[max(0, len(dst)-64<<10):]
			n, err = lz4.UncompressBlockWithDict(blk, dst[len(dst):len(dst)+blockMax], dict)
		}
		if err != nil {
			return dst, detail(ErrDecompress, "lz4: %v", err)
		}
		dst = dst[:len(dst)+n]
	}
}

// lz4Bound hops over the block headers of a frame and returns the most its
// blocks can decode to, so a large frame goes straight to streaming.
func lz4Bound(p []byte, blockMax int, flg byte) int {
	total := 0
	for len(p) >= 4 && total <= oneShotMax {
		size := binary.LittleEndian.Uint32(p)
		if size == 0 {
			break
		}
		n := int(size & 0x7fffffff)
		if size&0x80000000 != 0 {
			total += n
		} else {
			total += blockMax
		}
		if n > len(p)-4 {
			break
		}
		p = p[4+n:]
		if flg&0x10 != 0 && len(p) >= 4 {
			p = p[4:]
		}
	}
	return total
}

// xerialDecodeAll decodes a whole in-memory snappy payload (xerial stream
// or one raw block) into dst.
func xerialDecodeAll(p []byte, dst []byte) ([]byte, error) {
	decode := func(block []byte) error {
		n, err := s2.DecodedLen(block)
		if err != nil {
			return detail(ErrDecompress, "snappy: %v", err)
		}
		if len(dst)+n > oneShotMax {
			return errOneShotFull
		}
		if cap(dst)-len(dst) < n {
			nd := make([]byte, len(dst), max(2*cap(dst), len(dst)+n))
			copy(nd, dst)
			dst = nd
		}
		out, err := s2.Decode(dst[len(dst):len(dst)+n], block)
		if err != nil {
			return detail(ErrDecompress, "snappy: %v", err)
		}
		dst = dst[:len(dst)+len(out)]
		return nil
	}
	if len(p) == 0 {
		return dst, detail(ErrDecompress, "snappy: empty payload")
	}
	if len(p) < 16 || !bytes.Equal(p[:8], xerialMagic) {
		return dst, decode(p)
	}
	p = p[16:]
	// Sum the chunks' decoded lengths first: a large payload streams.
	total := 0
	for q := p; len(q) >= 4 && total <= oneShotMax; {
		l := binary.BigEndian.Uint32(q)
		if l == 0x82534e41 || int32(l) < 0 || int(l) > len(q)-4 {
			break // concatenated header or damage: the decode loop decides
		}
		n, err := s2.DecodedLen(q[4 : 4+l])
		if err != nil {
			break
		}
		total += n
		q = q[4+l:]
	}
	if total > oneShotMax {
		return dst, errOneShotFull
	}
	for len(p) >= 4 {
		l := binary.BigEndian.Uint32(p)
		p = p[4:]
		if l == 0x82534e41 { // a concatenated stream header
			if len(p) < 12 || !bytes.Equal(p[:4], xerialMagic[4:]) {
				return dst, detail(ErrDecompress, "snappy: bad concatenated stream header")
			}
			p = p[12:]
			continue
		}
		if int32(l) < 0 {
			return dst, detail(ErrDecompress, "snappy: negative chunk length %d", int32(l))
		}
		if int(l) > len(p) {
			return dst, detail(ErrDecompress, "snappy: chunk of %d bytes, payload ends after %d", l, len(p))
		}
		if err := decode(p[:l]); err != nil {
			return dst, err
		}
		p = p[l:]
	}
	return dst, nil
}

func (f *lz4Frame) next() error {
	if f.done {
		return io.EOF
	}
	if !f.started {
		f.started = true
		if err := f.header(); err != nil {
			return err
		}
	}
	sb := f.scratch[:4]
	if err := readFullCodec(f.src, sb, "lz4"); err != nil {
		return err
	}
	size := binary.LittleEndian.Uint32(sb)
	if size == 0 { // end mark; a content checksum may follow and is ignored
		f.done = true
		return io.EOF
	}
	stored := size&0x80000000 != 0
	size &= 0x7fffffff
	if int(size) > f.blockMax {
		return detail(ErrDecompress, "lz4: block of %d bytes over the frame's %d", size, f.blockMax)
	}
	f.cbuf = grow(f.cbuf, int(size))
	if err := readFullCodec(f.src, f.cbuf, "lz4"); err != nil {
		return err
	}
	if f.flg&0x10 != 0 { // block checksum: covered by the batch CRC
		if err := readFullCodec(f.src, f.scratch[:4], "lz4"); err != nil {
			return err
		}
	}
	var out []byte
	if stored {
		out = f.cbuf
	} else {
		f.dbuf = grow(f.dbuf, f.blockMax)
		var n int
		var err error
		if f.flg&0x20 != 0 {
			n, err = lz4.UncompressBlock(f.cbuf, f.dbuf)
		} else {
			n, err = lz4.UncompressBlockWithDict(f.cbuf, f.dbuf, f.dict)
		}
		if err != nil {
			return detail(ErrDecompress, "lz4: %v", err)
		}
		out = f.dbuf[:n]
	}
	if f.flg&0x20 == 0 { // dependent blocks: keep a 64 KiB history
		f.dict = append(f.dict, out...)
		if len(f.dict) > 64<<10 {
			f.dict = append(f.dict[:0], f.dict[len(f.dict)-64<<10:]...)
		}
	}
	f.out = out
	return nil
}

// xxh32 is the 32-bit xxHash, needed only for the LZ4 descriptor checksum.
func xxh32(b []byte, seed uint32) uint32 {
	const (
		p1 uint32 = 2654435761
		p2 uint32 = 2246822519
		p3 uint32 = 3266489917
		p4 uint32 = 668265263
		p5 uint32 = 374761393
	)
	round := func(acc, in uint32) uint32 { return bits.RotateLeft32(acc+in*p2, 13) * p1 }
	n := len(b)
	var h uint32
	if n >= 16 {
		v1, v2, v3, v4 := seed+p1+p2, seed+p2, seed, seed-p1
		for len(b) >= 16 {
			v1 = round(v1, binary.LittleEndian.Uint32(b[0:]))
			v2 = round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = round(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + p5
	}
	h += uint32(n)
	for len(b) >= 4 {
		h += binary.LittleEndian.Uint32(b) * p3
		h = bits.RotateLeft32(h, 17) * p4
		b = b[4:]
	}
	for _, c := range b {
		h += uint32(c) * p5
		h = bits.RotateLeft32(h, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}

// grow returns b resized to n bytes, reallocating only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, n+n/4)
	}
	return b[:n]
}

// readAtMost appends up to n bytes of r to b, growing b as data arrives
// (never by more than doubling), and returns fewer only at end of input.
func readAtMost(b []byte, r io.Reader, n int) ([]byte, error) {
	for len(b) < n {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(n, max(2*cap(b), 64<<10)))
			copy(nb, b)
			b = nb
		}
		m, err := r.Read(b[len(b):min(cap(b), n)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// readAllInto appends everything left in r to b.
func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, fmt.Errorf("segment: reading payload: %w", err)
		}
	}
}
