package segment

import (
	"encoding/binary"
	"io"
)

// Options tune a Reader or Decoder. The zero value gives the defaults.
type Options struct {
	// Path names the input in findings (it is not opened).
	Path string
	// MaxBatchBytes is the largest batch a length field may claim; larger
	// lengths are reported as bad-length. Default 1 GiB: Kafka's
	// message.max.bytes cannot usefully exceed the 2 GiB segment limit.
	MaxBatchBytes int64
	// StreamThreshold: batches larger than this are not held in memory but
	// decoded from the input as they are read. Default 32 MiB.
	StreamThreshold int64
	// MaxBufferedBatch: on inputs read once (pipes, archive entries) a
	// batch up to this size is held whole so its CRC is checked before it
	// is yielded. Default 256 MiB; files never need it.
	MaxBufferedBatch int64
	// MaxDecompressedBytes caps what one batch may decompress to; more is a
	// decompressed-too-large finding (a bomb), not an out-of-memory.
	// Default 1 GiB.
	MaxDecompressedBytes int64
	// MaxRecordBytes caps one record, the unit held in memory when a batch
	// is streamed. Default 64 MiB (Kafka's default limit is 1 MiB).
	MaxRecordBytes int
	// Size of the input if known (-1 or 0: unknown, or found from the
	// input itself when it is a file).
	Size int64
	// Skipped, if set, is called with the reader's position while it scans
	// a long damaged stretch for the next intact batch, every few MiB, all
	// inside one Next: a caller that releases what the reader has passed
	// (a mapped file's pages) or reports progress need not wait for the
	// end of the damage.
	Skipped func(pos int64)
	// Interrupt, if set, is called at the same points as Skipped; a
	// non-nil error ends reading there, as Err (a cancelled context: a
	// terabyte of damage or zeros is not read to its end first).
	Interrupt func() error
	// Holes lists the byte ranges of the input that hold no data (a
	// sparse file's holes, an archive entry's sparse map), in order and
	// apart. A hole the reader reaches between batches, or while it looks
	// for the next intact batch, is one ErrHole finding and is passed over
	// without being read: an io.Seeker input is seeked past it (a *os.File
	// from where it is), an input read whole (NewReaderBytes) is never
	// touched there, any other input is read through. A batch that runs
	// into a hole is read as it is: its zeros may be its data (a sparse
	// copy turns zero blocks into holes).
	Holes []Hole
	// Start is the byte of the file at which the input begins, for a read
	// that starts inside a file (at a position an index gives). Every
	// position the Reader reports (batch positions, findings and the bytes
	// their messages name) and every Holes entry counts from the file's
	// start, so a finding reads the same however the read began. Size
	// still counts from the input's first byte.
	Start int64
}

func (o Options) withDefaults() Options {
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = 1 << 30
	}
	if o.StreamThreshold <= 0 {
		o.StreamThreshold = 32 << 20
	}
	if o.MaxBufferedBatch <= 0 {
		o.MaxBufferedBatch = 256 << 20
	}
	if o.MaxDecompressedBytes <= 0 {
		o.MaxDecompressedBytes = 1 << 30
	}
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = 64 << 20
	}
	return o
}

// Decoder decodes the records of batches. It owns one decompressor per
// codec and the buffers records are views into; build one per goroutine
// and reuse it for every batch.
type Decoder struct {
	opts Options
	dc   decompressors
	it   RecordIter
	leg  []byte // decompressed legacy inner message sets
}

// NewDecoder returns a Decoder with the given limits.
func NewDecoder(opts Options) *Decoder {
	opts = opts.withDefaults()
	d := &Decoder{opts: opts}
	d.dc.limit = opts.MaxDecompressedBytes
	d.it.d = d
	d.it.src.limit = opts.MaxDecompressedBytes
	d.it.src.recMax = opts.MaxRecordBytes
	return d
}

// Close releases the decompressors.
func (d *Decoder) Close() { d.dc.close() }

// Records returns an iterator over the records of b (none when b is nil).
// The iterator and the records it yields are reused by the next call to
// Records.
func (d *Decoder) Records(b *Batch) *RecordIter {
	it := &d.it
	*it = RecordIter{d: d, b: b, src: it.src, hdrs: it.hdrs[:0], rec: Record{}}
	it.src.setBytes(nil)
	if b == nil { // Reader.Records on a finding: nothing to iterate
		it.done = true
		return it
	}
	if b.Magic < 2 {
		if b.Codec() == CodecNone {
			it.single = true
		} else {
			it.inner = b.inner
		}
		return it
	}
	it.count = b.NumRecords
	if b.NumRecords < 0 {
		it.fail(ErrBadRecordCount, "negative record count %d", b.NumRecords)
		return it
	}
	var payload io.Reader
	if b.streamed {
		payload = b.stream
		if b.Codec() == CodecNone {
			it.src.setStream(payload)
			return it
		}
		s, err := d.dc.open(b.Codec(), b.Magic, payload)
		if err != nil {
			it.fail(err, "")
			return it
		}
		it.src.setStream(s)
		return it
	}
	body := b.data[BatchHeaderSize:]
	if b.Codec() == CodecNone || (len(body) == 0 && b.NumRecords == 0) {
		it.src.setBytes(body)
		it.ahead, it.recTotal = b.ahead, len(body)
		return it
	}
	direct, s, err := d.dc.openBytes(b.Codec(), b.Magic, body)
	if err != nil {
		it.fail(err, "")
		return it
	}
	if s == nil {
		it.src.setBytes(direct)
		it.ahead, it.recTotal = b.ahead, len(direct)
	} else {
		it.src.setStream(s)
	}
	return it
}

// openLegacy parses a legacy message held whole in b.data; for a
// compressed wrapper it decompresses the inner message set and checks its
// framing, filling BaseOffset, NumRecords and LastOffsetDelta.
func (d *Decoder) openLegacy(b *Batch) {
	b.innerErr, b.inner, b.innerBase = nil, nil, 0
	m, why := parseLegacy(b.data)
	b.BaseOffset = m.offset
	b.LastOffsetDelta = 0
	b.NumRecords = 1
	b.FirstTimestamp, b.MaxTimestamp = m.timestamp, m.timestamp
	if why != "" {
		b.innerErr = b.corrupt(ErrBadRecord, "%s", why)
		b.NumRecords = 0
		return
	}
	if b.Codec() == CodecNone {
		return
	}
	b.NumRecords = 0
	if m.value == nil {
		b.innerErr = b.corrupt(ErrBadRecord, "compressed wrapper with a null value")
		return
	}
	direct, s, err := d.dc.openBytes(b.Codec(), b.Magic, m.value)
	if err != nil {
		b.innerErr = b.corrupt(err, "")
		return
	}
	inner := direct
	if s != nil {
		buf, err := readAllLimited(d.leg[:0], s, d.opts.MaxDecompressedBytes)
		d.leg = buf
		if err != nil {
			b.innerErr = b.corrupt(err, "")
			return
		}
		inner = buf
	}
	// Walk the inner entries once to validate framing and find the offsets.
	var first, last int64
	n := int32(0)
	for p := 0; p < len(inner); {
		rest := inner[p:]
		if len(rest) < LogOverhead+legacyMinV0 {
			b.innerErr = b.corrupt(ErrBadRecord, "inner message %d: truncated", n)
			return
		}
		size := int32(binary.BigEndian.Uint32(rest[8:]))
		if size < legacyMinV0 || int(size) > len(rest)-LogOverhead {
			b.innerErr = b.corrupt(ErrBadRecord, "inner message %d: size %d", n, size)
			return
		}
		if rest[17]&attrCodecMask != 0 {
			b.innerErr = b.corrupt(ErrBadRecord, "inner message %d is itself compressed", n)
			return
		}
		off := int64(binary.BigEndian.Uint64(rest))
		if n == 0 {
			first = off
		}
		last = off
		n++
		p += LogOverhead + int(size)
	}
	if n == 0 {
		b.innerErr = b.corrupt(ErrBadRecordCount, "compressed wrapper holds no messages")
		return
	}
	if b.Magic == 1 && m.offset != 0 {
		// Inner offsets are relative; the wrapper carries the absolute
		// offset of the last one.
		if m.offset < last {
			b.innerErr = b.corrupt(ErrBadOffset, "wrapper offset %d below its last inner offset %d", m.offset, last)
			return
		}
		b.innerBase = m.offset - last
	}
	b.inner = inner
	b.NumRecords = n
	b.BaseOffset = b.innerBase + first
	b.LastOffsetDelta = int32(m.offset - b.BaseOffset)
}

func (b *Batch) corrupt(cause error, format string, args ...any) *CorruptionError {
	return &CorruptionError{Path: b.path, Offset: b.Position, Length: b.Size(), BaseOffset: b.BaseOffset,
		Err: wrapCause(cause, format, args...)}
}

// readAllLimited appends r to buf, failing with ErrTooLarge past limit.
func readAllLimited(buf []byte, r io.Reader, limit int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, 32<<10)...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, detail(ErrTooLarge, "decompressed payload over %d bytes", limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
