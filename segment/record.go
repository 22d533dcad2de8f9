package segment

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/bits"
)

// Header is one record header. Key and Value are views into the decoder's
// buffer, valid until the next record; Value is nil for a null header value.
type Header struct {
	Key   []byte
	Value []byte
}

// Control record types, the key of a control record.
const (
	ControlAbort          int16 = 0
	ControlCommit         int16 = 1
	ControlLeaderChange   int16 = 2
	ControlSnapshotHeader int16 = 3
	ControlSnapshotFooter int16 = 4
	ControlKRaftVersion   int16 = 5
	ControlKRaftVoters    int16 = 6
)

// ControlTypeName names a control record type as kafka-dump-log does.
func ControlTypeName(t int16) string {
	switch t {
	case ControlAbort:
		return "ABORT"
	case ControlCommit:
		return "COMMIT"
	case ControlLeaderChange:
		return "LEADER_CHANGE"
	case ControlSnapshotHeader:
		return "SNAPSHOT_HEADER"
	case ControlSnapshotFooter:
		return "SNAPSHOT_FOOTER"
	case ControlKRaftVersion:
		return "KRAFT_VERSION"
	case ControlKRaftVoters:
		return "KRAFT_VOTERS"
	}
	return "UNKNOWN"
}

// Record is one record of a batch. Key, Value and Headers are views into
// the decoder's reused buffers, valid only until the next call to Next on
// the iterator that produced it. A nil Key or Value is a null; an empty
// non-nil slice is an empty key or value.
type Record struct {
	// Offset is the absolute offset (base offset + offset delta).
	Offset int64
	// Timestamp as a consumer sees it: under LogAppendTime the batch's max
	// timestamp (v2) or the wrapper's timestamp (magic 1); -1 for magic 0.
	Timestamp     int64
	TimestampType TimestampType
	// Sequence is base sequence + offset delta with Kafka's wrap-around, or
	// -1 when the batch has no producer sequence.
	Sequence   int32
	Attributes int8
	Key        []byte
	Value      []byte
	Headers    []Header

	// Content is the record's key, value and headers as the v2 format
	// encodes them (from the key length to the end of the last header),
	// when that encoding is canonical: every length a minimal zigzag
	// varint, -1 only for a null key or value, no header key null. Records
	// with equal key, value and headers then have equal Content whatever
	// wrote them, so it can be hashed in place (see analysis.Fingerprinter).
	// Nil for legacy messages and non-canonical encodings.
	Content []byte

	// Magic of the record: for legacy wrappers, the inner message's magic.
	Magic int8
	// CRC and CRCValid for legacy messages (each carries its own CRC-32);
	// for v2 records CRCValid mirrors the batch's.
	CRC      uint32
	CRCValid bool

	// Control records: IsControl is set, ControlVersion and ControlType come
	// from the 4-byte key; CoordinatorEpoch from an ABORT/COMMIT marker's
	// value (-1 otherwise).
	IsControl        bool
	ControlVersion   int16
	ControlType      int16
	CoordinatorEpoch int32
}

// KeySize is the key length, -1 for a null key.
func (r *Record) KeySize() int {
	if r.Key == nil {
		return -1
	}
	return len(r.Key)
}

// ValueSize is the value length, -1 for a null value.
func (r *Record) ValueSize() int {
	if r.Value == nil {
		return -1
	}
	return len(r.Value)
}

// recBuf is the byte source records are parsed from: either a slice holding
// the whole records area, or a window refilled from a (decompressing)
// stream. ensure makes n bytes contiguous at off, so one record is always
// parsed from one slice and memory follows the largest record.
type recBuf struct {
	buf    []byte
	off    int
	end    int
	src    io.Reader
	eof    bool
	total  int64 // bytes pulled from src
	limit  int64 // MaxDecompressedBytes
	recMax int   // largest record accepted
	mem    []byte
	err    error
}

const recChunk = 256 << 10

func (s *recBuf) setBytes(b []byte) {
	s.buf, s.off, s.end, s.src, s.eof, s.err, s.total = b, 0, len(b), nil, true, nil, int64(len(b))
}

func (s *recBuf) setStream(r io.Reader) {
	s.buf, s.off, s.end, s.src, s.eof, s.err, s.total = s.mem[:0], 0, 0, r, false, nil, 0
}

// ensure reports whether n bytes are available at off, reading more from
// the stream when needed. On a read error it records it in s.err.
func (s *recBuf) ensure(n int) bool {
	if s.end-s.off >= n {
		return true
	}
	if s.src == nil || s.eof || s.err != nil {
		return false
	}
	if n > s.recMax+16 {
		s.err = detail(ErrTooLarge, "record of %d bytes over the %d-byte limit", n, s.recMax)
		return false
	}
	// Compact the unread tail to the front and make room for n bytes plus a
	// chunk, so small records are read in large reads.
	rest := s.end - s.off
	want := n + recChunk
	if cap(s.mem) < want {
		nm := make([]byte, want+want/2)
		copy(nm, s.buf[s.off:s.end])
		s.mem = nm
	} else {
		copy(s.mem[:cap(s.mem)], s.buf[s.off:s.end])
	}
	s.buf = s.mem[:cap(s.mem)]
	s.off, s.end = 0, rest
	for s.end < n {
		m, err := s.src.Read(s.buf[s.end:])
		s.end += m
		s.total += int64(m)
		if s.total > s.limit {
			s.err = detail(ErrTooLarge, "decompressed payload over %d bytes", s.limit)
			return false
		}
		if err == io.EOF {
			s.eof = true
			break
		}
		if err != nil {
			s.err = err
			return false
		}
		if m == 0 {
			continue
		}
	}
	return s.end-s.off >= n
}

// available returns up to n bytes without failing when fewer remain.
func (s *recBuf) available(n int) []byte {
	s.ensure(n)
	end := s.off + n
	if end > s.end {
		end = s.end
	}
	return s.buf[s.off:end]
}

// varint decoding (zigzag), as Kafka's ByteUtils: at most 5 bytes for an
// int32 and 10 for an int64. n is 0 when the bytes do not hold a varint.
func varint32(b []byte) (int32, int) {
	// Most varints in a record (attributes aside: deltas, lengths of keys,
	// headers and values up to 8 KiB) take one or two bytes.
	if len(b) >= 2 {
		if b[0] < 0x80 {
			return zigzag1(b[0]), 1
		}
		if b[1] < 0x80 {
			u := uint32(b[0]&0x7f) | uint32(b[1])<<7
			return int32(u>>1) ^ -int32(u&1), 2
		}
	}
	return varint32Slow(b)
}

// zigzag1 is the value of the one-byte varint c (c < 0x80). parseV2 tests
// for that case itself where varints are mostly one byte: varint32 is
// too large to inline.
func zigzag1(c byte) int32 { return int32(c>>1) ^ -int32(c&1) }

func varint32Slow(b []byte) (int32, int) {
	var u uint32
	for i := 0; i < len(b) && i < 5; i++ {
		c := b[i]
		if i == 4 && c > 0x0f {
			return 0, 0
		}
		u |= uint32(c&0x7f) << (7 * uint(i))
		if c < 0x80 {
			return int32(u>>1) ^ -int32(u&1), i + 1
		}
	}
	return 0, 0
}

// varintLen is the length of v as a minimal zigzag varint.
func varintLen(v int32) int {
	u := uint32(v<<1) ^ uint32(v>>31)
	return 1 + (bits.Len32(u|1)-1)/7
}

// minimalLen reports whether a length field of n bytes holding v is in
// canonical form: minimal, and -1 as the only negative (null). A one-byte
// varint is always minimal.
func minimalLen(v int32, n int) bool { return v >= -1 && (n == 1 || varintLen(v) == n) }

func varint64(b []byte) (int64, int) {
	if len(b) >= 2 { // timestamp deltas are mostly small, as in varint32
		if b[0] < 0x80 {
			u := uint64(b[0])
			return int64(u>>1) ^ -int64(u&1), 1
		}
		if b[1] < 0x80 {
			u := uint64(b[0]&0x7f) | uint64(b[1])<<7
			return int64(u>>1) ^ -int64(u&1), 2
		}
	}
	return varint64Slow(b)
}

func varint64Slow(b []byte) (int64, int) {
	var u uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		if i == 9 && c > 0x01 {
			return 0, 0
		}
		u |= uint64(c&0x7f) << (7 * uint(i))
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
	}
	return 0, 0
}

// RecordIter iterates the records of one batch. It is owned by a Decoder
// and reused: obtain it with Decoder.Records or Reader.Records.
type RecordIter struct {
	d     *Decoder
	b     *Batch
	src   recBuf
	n     int32 // records produced
	count int32
	rec   Record
	hdrs  []Header
	err   error
	done  bool
	// legacy wrapper inner iteration
	inner    []byte
	innerPos int
	single   bool // plain legacy message: one record from the batch bytes
	// ahead is Batch.ahead, of which the first fetched bytes are
	// prefetched: as much of it as the records read so far are of the
	// records area (recTotal bytes, all in memory).
	ahead    []byte
	fetched  int
	recTotal int
}

// Record returns the current record (valid until the next Next).
func (it *RecordIter) Record() *Record { return &it.rec }

// Err returns the damage that ended iteration early, as a
// *CorruptionError, or nil when every record was read.
func (it *RecordIter) Err() error { return it.err }

// Index is the 0-based position of the current record in its batch.
func (it *RecordIter) Index() int { return int(it.n) - 1 }

func (it *RecordIter) fail(cause error, format string, args ...any) bool {
	it.done = true
	if it.err == nil {
		it.err = &CorruptionError{Path: it.b.path, Offset: it.b.Position, Length: it.b.Size(),
			BaseOffset: it.b.BaseOffset, Err: wrapCause(cause, format, args...)}
	}
	return false
}

func wrapCause(cause error, format string, args ...any) error {
	if format == "" {
		return cause
	}
	return detail(cause, format, args...)
}

// Next advances to the next record.
func (it *RecordIter) Next() bool {
	if it.done {
		return false
	}
	if it.b.Magic < 2 {
		return it.nextLegacy()
	}
	return it.nextV2()
}

func (it *RecordIter) nextV2() bool {
	s := &it.src
	if it.n >= it.count {
		it.done = true
		if s.ensure(1) {
			return it.fail(ErrBadRecordCount, "bytes remain after the %d records the header counts", it.count)
		}
		if s.err != nil {
			return it.fail(s.err, "")
		}
		return false
	}
	// Mostly the bytes are there (a records area in memory, or a stream's
	// window holding the record): ensure and available are calls, about
	// 66 instructions a record, made only when they are not.
	var lb []byte
	if s.end-s.off >= 5 {
		lb = s.buf[s.off : s.off+5]
	} else {
		lb = s.available(5)
	}
	if len(lb) == 0 {
		if s.err != nil {
			return it.fail(s.err, "")
		}
		return it.fail(ErrBadRecordCount, "header counts %d records, payload holds %d", it.count, it.n)
	}
	length, nb := varint32(lb)
	if nb == 0 || length < 0 {
		return it.fail(ErrBadRecord, "record %d: bad length varint", it.n)
	}
	if s.end-s.off < nb+int(length) && !s.ensure(nb+int(length)) {
		if s.err != nil {
			return it.fail(s.err, "")
		}
		return it.fail(ErrBadRecord, "record %d: %d bytes claimed, payload ends first", it.n, length)
	}
	body := s.buf[s.off+nb : s.off+nb+int(length)]
	s.off += nb + int(length)
	if len(it.ahead) > it.fetched && it.recTotal > 0 {
		to := min(int(int64(len(it.ahead))*int64(s.off)/int64(it.recTotal)), len(it.ahead))
		if to > it.fetched {
			prefetch(it.ahead[it.fetched:to])
			it.fetched = to
		}
	}
	if err := it.parseV2(body); err != "" {
		return it.fail(ErrBadRecord, "record %d: %s", it.n, err)
	}
	it.n++
	return true
}

// parseV2 decodes one record body (after its length varint) into it.rec.
// It returns a reason when the record is malformed.
func (it *RecordIter) parseV2(b []byte) string {
	r := &it.rec
	bt := it.b
	if len(b) < 1 {
		return "empty record"
	}
	r.Attributes = int8(b[0])
	p := 1
	// One-byte varints, the usual case of every field but the value
	// length, are decoded here without a call. The blocks below repeat
	// on purpose: varint32 is too large to inline, and an inlinable
	// helper for the one-byte case with the call as fallback made this
	// function execute 23 % more instructions (cachegrind, 40 MB scan).
	var tsDelta int64
	n := 1
	if p < len(b) && b[p] < 0x80 {
		tsDelta = int64(zigzag1(b[p]))
	} else if tsDelta, n = varint64(b[p:]); n == 0 {
		return "bad timestamp delta"
	}
	p += n
	var offDelta int32
	n = 1
	if p < len(b) && b[p] < 0x80 {
		offDelta = zigzag1(b[p])
	} else if offDelta, n = varint32(b[p:]); n == 0 {
		return "bad offset delta"
	}
	p += n
	var keyLen int32
	n = 1
	if p < len(b) && b[p] < 0x80 {
		keyLen = zigzag1(b[p])
	} else if keyLen, n = varint32(b[p:]); n == 0 {
		return "bad key length"
	}
	start := p
	canonical := minimalLen(keyLen, n)
	p += n
	r.Key = nil
	if keyLen >= 0 {
		if int(keyLen) > len(b)-p {
			return "key runs past the record"
		}
		r.Key = b[p : p+int(keyLen) : p+int(keyLen)]
		p += int(keyLen)
	}
	valLen, n := varint32(b[p:])
	if n == 0 {
		return "bad value length"
	}
	canonical = canonical && minimalLen(valLen, n)
	p += n
	r.Value = nil
	if valLen >= 0 {
		if int(valLen) > len(b)-p {
			return "value runs past the record"
		}
		r.Value = b[p : p+int(valLen) : p+int(valLen)]
		p += int(valLen)
	}
	var hc int32
	n = 1
	if p < len(b) && b[p] < 0x80 {
		hc = zigzag1(b[p])
	} else {
		hc, n = varint32(b[p:])
		canonical = canonical && varintLen(hc) == n
	}
	if n == 0 || hc < 0 || int(hc) > len(b)-p-n {
		return "bad header count"
	}
	p += n
	hdrs := it.headerRoom(hc)
	for i := range hdrs {
		kl := int32(0)
		n = 1
		if p < len(b) && b[p] < 0x80 {
			kl = zigzag1(b[p])
		} else {
			kl, n = varint32(b[p:])
			canonical = canonical && varintLen(kl) == n
		}
		if n == 0 || kl < 0 || int(kl) > len(b)-p-n {
			return "bad header key"
		}
		p += n
		k := b[p : p+int(kl) : p+int(kl)]
		p += int(kl)
		vl := int32(0)
		if p < len(b) && b[p] < 0x80 {
			vl, n = zigzag1(b[p]), 1
		} else {
			vl, n = varint32(b[p:])
			if n == 0 {
				return "bad header value length"
			}
		}
		canonical = canonical && minimalLen(vl, n)
		p += n
		var v []byte
		if vl >= 0 {
			if int(vl) > len(b)-p {
				return "header value runs past the record"
			}
			v = b[p : p+int(vl) : p+int(vl)]
			p += int(vl)
		}
		// Fields stored one by one: a Header literal stored whole is
		// built on the stack with 8-byte stores and copied with 16-byte
		// loads, which cannot be forwarded from them and stall (a tenth
		// of the record parse in profiles).
		h := &hdrs[i]
		h.Key, h.Value = k, v
	}
	it.hdrs = hdrs
	r.Headers = hdrs
	if p != len(b) {
		return "record length disagrees with its fields"
	}
	r.Content = nil
	if canonical {
		r.Content = b[start:p:p]
	}
	r.Offset = bt.BaseOffset + int64(offDelta)
	if bt.Attributes&attrTimestampType != 0 {
		r.Timestamp = bt.MaxTimestamp
		r.TimestampType = LogAppendTime
	} else {
		r.Timestamp = bt.FirstTimestamp + tsDelta
		r.TimestampType = CreateTime
	}
	if bt.BaseSequence >= 0 {
		r.Sequence = IncrementSequence(bt.BaseSequence, offDelta)
	} else {
		r.Sequence = -1
	}
	r.Magic = 2
	r.CRC = bt.CRC
	r.CRCValid = bt.CRCValid
	r.IsControl = bt.Attributes&attrControl != 0
	r.ControlVersion, r.ControlType, r.CoordinatorEpoch = -1, -1, -1
	if r.IsControl {
		return r.decodeControl()
	}
	return ""
}

// headerRoom returns the iterator's header slice with room for n headers
// (n is at most the record's bytes left, two a header), grown once per
// record when needed: growing it header by header was a seventh of the
// headers' instructions.
func (it *RecordIter) headerRoom(n int32) []Header {
	if int(n) > cap(it.hdrs) {
		it.hdrs = make([]Header, n, max(int(n), 2*cap(it.hdrs)))
	}
	return it.hdrs[:n]
}

// decodeControl reads what a control record marks: its version and type
// from its key, and a transaction marker's coordinator epoch from its
// value. It returns a reason when the key is too short. It is small
// enough for the compiler to inline into parseV2, the hot path, so that
// it costs no call there.
func (r *Record) decodeControl() string {
	if len(r.Key) < 4 {
		return "control record key shorter than 4 bytes"
	}
	r.ControlVersion = int16(binary.BigEndian.Uint16(r.Key))
	r.ControlType = int16(binary.BigEndian.Uint16(r.Key[2:]))
	if (r.ControlType == ControlAbort || r.ControlType == ControlCommit) && len(r.Value) >= 6 {
		r.CoordinatorEpoch = int32(binary.BigEndian.Uint32(r.Value[2:]))
	}
	return ""
}

// ---- legacy (magic 0/1) ----

// legacyMessage is a parsed magic 0/1 message (after offset and size).
type legacyMessage struct {
	offset    int64
	crc       uint32
	crcValid  bool
	magic     int8
	attrs     int8
	timestamp int64
	key       []byte
	value     []byte
}

// parseLegacy parses one log entry [offset][size][crc][magic][attrs]
// [timestamp v1][key][value] from b, which must hold exactly the entry.
func parseLegacy(b []byte) (legacyMessage, string) {
	var m legacyMessage
	if len(b) < LogOverhead+legacyMinV0 {
		return m, "message shorter than the minimum"
	}
	m.offset = int64(binary.BigEndian.Uint64(b))
	m.crc = binary.BigEndian.Uint32(b[12:])
	m.magic = int8(b[16])
	m.attrs = int8(b[17])
	m.crcValid = crc32.ChecksumIEEE(b[crcStartLegacy:]) == m.crc
	p := 18
	switch m.magic {
	case 0:
		m.timestamp = -1
	case 1:
		if len(b) < LogOverhead+legacyMinV1 {
			return m, "magic 1 message shorter than the minimum"
		}
		m.timestamp = int64(binary.BigEndian.Uint64(b[p:]))
		p += 8
	default:
		return m, "inner message with magic other than 0 or 1"
	}
	kl := int32(binary.BigEndian.Uint32(b[p:]))
	p += 4
	if kl >= 0 {
		if int(kl) > len(b)-p-4 {
			return m, "key runs past the message"
		}
		m.key = b[p : p+int(kl) : p+int(kl)]
		p += int(kl)
	}
	if len(b)-p < 4 {
		return m, "value length missing"
	}
	vl := int32(binary.BigEndian.Uint32(b[p:]))
	p += 4
	if vl >= 0 {
		if int(vl) > len(b)-p {
			return m, "value runs past the message"
		}
		m.value = b[p : p+int(vl) : p+int(vl)]
		p += int(vl)
	}
	if p != len(b) {
		return m, "message size disagrees with its fields"
	}
	return m, ""
}

func (it *RecordIter) setLegacyRecord(m *legacyMessage, offset int64) {
	r := &it.rec
	bt := it.b
	r.Offset = offset
	r.Magic = m.magic
	r.Attributes = m.attrs
	r.Key, r.Value, r.Headers, r.Content = m.key, m.value, nil, nil
	r.Sequence = -1
	r.CRC, r.CRCValid = m.crc, m.crcValid
	r.IsControl, r.ControlVersion, r.ControlType, r.CoordinatorEpoch = false, -1, -1, -1
	switch {
	case bt.Magic == 0 || m.magic == 0:
		r.Timestamp, r.TimestampType = -1, NoTimestampType
		if bt.Magic == 1 && bt.Attributes&attrTimestampType != 0 {
			r.Timestamp, r.TimestampType = bt.MaxTimestamp, LogAppendTime
		}
	case bt.Attributes&attrTimestampType != 0:
		// Under a LogAppendTime wrapper every inner record reports the
		// wrapper's timestamp (AbstractLegacyRecordBatch).
		r.Timestamp, r.TimestampType = bt.MaxTimestamp, LogAppendTime
	default:
		r.Timestamp, r.TimestampType = m.timestamp, CreateTime
	}
}

func (it *RecordIter) nextLegacy() bool {
	bt := it.b
	if it.single {
		it.done = true
		m, why := parseLegacy(bt.data)
		if why != "" {
			return it.fail(ErrBadRecord, "%s", why)
		}
		it.setLegacyRecord(&m, m.offset)
		it.rec.CRCValid = bt.CRCValid
		it.n++
		return true
	}
	if bt.innerErr != nil {
		it.done = true
		it.err = bt.innerErr
		return false
	}
	if it.innerPos >= len(it.inner) {
		it.done = true
		return false
	}
	b := it.inner[it.innerPos:]
	size := int32(binary.BigEndian.Uint32(b[8:]))
	e := b[:LogOverhead+int(size)]
	it.innerPos += len(e)
	m, why := parseLegacy(e)
	if why != "" {
		return it.fail(ErrBadRecord, "inner message %d: %s", it.n, why)
	}
	off := m.offset
	if bt.Magic == 1 {
		off = bt.innerBase + m.offset
	}
	it.setLegacyRecord(&m, off)
	it.n++
	return true
}
