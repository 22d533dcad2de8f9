package segtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Codec is the compression id stored in attribute bits 0-2.
type Codec int8

// Codec ids as Kafka numbers them (CompressionType.java).
const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLZ4    Codec = 3
	CodecZstd   Codec = 4 // magic 2 only
)

// String returns Kafka's name for the codec ("none", "gzip", ...).
func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecGzip:
		return "gzip"
	case CodecSnappy:
		return "snappy"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return fmt.Sprintf("codec(%d)", int8(c))
}

// MarshalText makes codecs readable in the JSON manifest.
func (c Codec) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText is the inverse of MarshalText, so manifests can be loaded back.
func (c *Codec) UnmarshalText(b []byte) error {
	for i := Codec(0); i <= CodecZstd; i++ {
		if i.String() == string(b) {
			*c = i
			return nil
		}
	}
	var n int8
	if _, err := fmt.Sscanf(string(b), "codec(%d)", &n); err != nil {
		return fmt.Errorf("segtest: unknown codec %q", b)
	}
	*c = Codec(n)
	return nil
}

// LZ4HC selects the LZ4 frame header-checksum byte. Kafka writes a wrong
// one for magic 0 (KAFKA-3160: xxh32 over magic+FLG+BD instead of FLG+BD,
// giving 0x1a) and the correct one (0x82) for magic 1 and 2; the zero
// value reproduces that, the others force either form so readers can be
// tested against the "wrong" one for their magic.
type LZ4HC int8

const (
	LZ4HCKafka   LZ4HC = iota // broken for magic <= 0, correct otherwise, as Kafka writes
	LZ4HCCorrect              // always xxh32(FLG,BD)>>8
	LZ4HCBroken               // always xxh32(magic,FLG,BD)>>8
)

// Header is one v2 record header. A nil Value is written as length -1.
type Header struct {
	Key   string `json:"key"`
	Value []byte `json:"value"`
}

// Record is one record of a Batch.
type Record struct {
	// OffsetDelta is the record's offset minus Batch.BaseOffset (v2 and
	// legacy alike). Ignored when Batch.AutoDeltas is set.
	OffsetDelta int32
	// TimestampDelta is added to Batch.FirstTimestamp: stored as is in v2,
	// stored as the absolute timestamp in magic 1, dropped in magic 0.
	TimestampDelta int64
	// Key and Value: nil is null (length -1), []byte{} is empty (length 0).
	Key, Value []byte
	// Headers exist in v2 only; legacy messages have no place for them.
	Headers []Header
}

// Producer is the idempotence triple of a v2 batch header.
type Producer struct {
	ID           int64
	Epoch        int16
	BaseSequence int32 // -1 for markers and coordinator-written offset commits
}

// Batch describes one log entry (v2) or one legacy message set. Its zero
// value is an empty, non-idempotent, uncompressed v0 batch at offset 0.
type Batch struct {
	// Magic selects the layout: <= 0 legacy v0, 1 legacy v1, >= 2 record
	// batch v2. The byte itself is written as given, so 3 makes a v2-shaped
	// batch with a bad magic.
	Magic int8
	// BaseOffset is the offset of the record with OffsetDelta 0.
	BaseOffset int64
	// PartitionLeaderEpoch is written in v2 only; -1 means unknown.
	PartitionLeaderEpoch int32
	// Codec is written to attribute bits 0-2 (masked to 3 bits). Ids 5-7
	// are written with the records left uncompressed, for "unknown codec"
	// tests.
	Codec Codec
	// SnappyRaw writes one raw snappy block instead of xerial framing
	// (Kafka's reader accepts both; some clients write raw).
	SnappyRaw bool
	// LZ4HC picks the LZ4 header checksum; see LZ4HC.
	LZ4HC LZ4HC
	// LogAppendTime sets attribute bit 3 (magic >= 1). In v2 readers then
	// report MaxTimestamp for every record; in magic 1 the timestamp of a
	// plain message or a compressed wrapper becomes MaxTimestamp while
	// inner messages keep their CreateTime (the broker's in-place path).
	LogAppendTime bool
	// Transactional, Control and DeleteHorizon are v2 attribute bits 4, 5
	// and 6. With DeleteHorizon, FirstTimestamp holds the horizon.
	Transactional, Control, DeleteHorizon bool
	// FirstTimestamp is the v2 baseTimestamp (-1 for an empty compacted
	// batch) and the base that legacy v1 timestamps are computed from.
	FirstTimestamp int64
	// MaxTimestamp, when non-zero, is written as given (v2 header, v1
	// LogAppendTime message or wrapper timestamp). Zero means computed: the
	// largest FirstTimestamp+TimestampDelta, or FirstTimestamp when there
	// are no records. A literal 0 therefore cannot be expressed; patch it.
	MaxTimestamp int64
	// LastOffsetDelta is written as max(LastOffsetDelta, largest record
	// OffsetDelta), so the zero value is right for producer batches and a
	// larger value expresses records compacted away at the end (or an
	// empty batch). Legacy entries have no such field; a v1 wrapper's offset
	// is always BaseOffset + the largest record OffsetDelta.
	LastOffsetDelta int32
	// Producer is nil for a non-idempotent batch (-1/-1/-1). Legacy
	// batches have no producer fields and ignore it.
	Producer *Producer
	// Records are written in order.
	Records []Record
	// AutoDeltas assigns offset deltas 0..n-1, as producers do.
	AutoDeltas bool
}

// EntryInfo describes one top-level log entry of an encoded Batch, the way
// a correct reader should report it. A legacy uncompressed Batch with n
// records yields n entries; every other Batch yields one.
type EntryInfo struct {
	Position       int64        `json:"position"` // byte offset of the entry in its file (in Encode output for Describe)
	Size           int          `json:"size"`     // whole entry, including the 12-byte offset+length prefix
	BaseOffset     int64        `json:"baseOffset"`
	LastOffset     int64        `json:"lastOffset"`
	Magic          int8         `json:"magic"`
	Codec          Codec        `json:"codec"`
	Attributes     int16        `json:"attributes"`
	CRC            uint32       `json:"crc"`
	Count          int          `json:"count"` // records present (legacy wrapper: inner messages)
	LeaderEpoch    int32        `json:"leaderEpoch"`
	ProducerID     int64        `json:"producerId"`
	ProducerEpoch  int16        `json:"producerEpoch"`
	BaseSequence   int32        `json:"baseSequence"`
	Transactional  bool         `json:"transactional"`
	Control        bool         `json:"control"`
	LogAppendTime  bool         `json:"logAppendTime"`
	FirstTimestamp int64        `json:"firstTimestamp"` // v2 baseTimestamp; legacy: the message's own timestamp (-1 for v0)
	MaxTimestamp   int64        `json:"maxTimestamp"`   // v2 maxTimestamp; legacy: as FirstTimestamp
	Records        []RecordInfo `json:"records"`
}

// RecordInfo is one record as a correct reader reports it.
type RecordInfo struct {
	Offset    int64    `json:"offset"`
	Timestamp int64    `json:"timestamp"` // after LogAppendTime substitution; -1 for magic 0
	Sequence  int32    `json:"sequence"`  // producer sequence, -1 without one
	Key       []byte   `json:"key"`       // base64 in JSON; null stays null
	Value     []byte   `json:"value"`
	Headers   []Header `json:"headers,omitempty"`
}

const (
	entryPrefix   = 12 // offset int64 + length int32 before every entry
	v2HeaderSize  = 61 // RECORD_BATCH_OVERHEAD
	v2CRCStart    = 21 // CRC-32C covers [21, end)
	legacyCRCFrom = 16 // legacy CRC-32 covers [16, end)
	maxSequence   = 1<<31 - 1
)

var (
	be         = binary.BigEndian
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

// Encode returns the batch as it sits in a .log file: one or more whole
// entries, each with its 12-byte offset+length prefix and a correct CRC.
// It returns nil only if a codec library fails to initialise, which its
// fixed options rule out.
func (b Batch) Encode() []byte {
	out, _, err := b.build()
	if err != nil {
		return nil
	}
	return out
}

// Describe returns what Encode writes, entry by entry, with positions
// relative to the start of Encode's output.
func (b Batch) Describe() []EntryInfo {
	_, infos, err := b.build()
	if err != nil {
		return nil
	}
	return infos
}

// EncodeDescribe returns Encode and Describe from one encoding pass.
func (b Batch) EncodeDescribe() ([]byte, []EntryInfo, error) { return b.build() }

func (b Batch) build() ([]byte, []EntryInfo, error) {
	if b.Magic >= 2 {
		return b.buildV2()
	}
	return b.buildLegacy()
}

// records returns the records with AutoDeltas applied, without touching
// the caller's slice.
func (b Batch) records() []Record {
	if !b.AutoDeltas {
		return b.Records
	}
	rs := make([]Record, len(b.Records))
	copy(rs, b.Records)
	for i := range rs {
		rs[i].OffsetDelta = int32(i)
	}
	return rs
}

func maxDelta(rs []Record) (int32, bool) {
	if len(rs) == 0 {
		return 0, false
	}
	m := rs[0].OffsetDelta
	for _, r := range rs[1:] {
		m = max(m, r.OffsetDelta)
	}
	return m, true
}

func (b Batch) lastOffsetDelta(rs []Record) int32 {
	if m, ok := maxDelta(rs); ok {
		return max(b.LastOffsetDelta, m)
	}
	return b.LastOffsetDelta
}

func (b Batch) maxTimestamp(rs []Record) int64 {
	if b.MaxTimestamp != 0 {
		return b.MaxTimestamp
	}
	if len(rs) == 0 {
		return b.FirstTimestamp
	}
	m := b.FirstTimestamp + rs[0].TimestampDelta
	for _, r := range rs[1:] {
		m = max(m, b.FirstTimestamp+r.TimestampDelta)
	}
	return m
}

func (b Batch) producer() Producer {
	if b.Producer == nil {
		return Producer{ID: -1, Epoch: -1, BaseSequence: -1}
	}
	return *b.Producer
}

func (b Batch) attributesV2() int16 {
	a := int16(b.Codec) & 7
	if b.LogAppendTime {
		a |= 0x08
	}
	if b.Transactional {
		a |= 0x10
	}
	if b.Control {
		a |= 0x20
	}
	if b.DeleteHorizon {
		a |= 0x40
	}
	return a
}

// IncrementSequence is Kafka's DefaultRecordBatch.incrementSequence: it
// wraps past MaxInt32 to 0 instead of overflowing negative.
func IncrementSequence(seq, delta int32) int32 {
	if seq > maxSequence-delta {
		return delta - (maxSequence - seq) - 1
	}
	return seq + delta
}

func (b Batch) buildV2() ([]byte, []EntryInfo, error) {
	rs := b.records()
	p := b.producer()
	lastDelta := b.lastOffsetDelta(rs)
	maxTS := b.maxTimestamp(rs)

	var area []byte
	for _, r := range rs {
		area = appendRecordV2(area, r)
	}
	if len(rs) > 0 {
		var err error
		if area, err = compress(b.Codec, b.Magic, b.SnappyRaw, b.LZ4HC, area); err != nil {
			return nil, nil, err
		}
	}

	out := make([]byte, v2HeaderSize, v2HeaderSize+len(area))
	be.PutUint64(out[0:], uint64(b.BaseOffset))
	be.PutUint32(out[8:], uint32(v2HeaderSize-entryPrefix+len(area)))
	be.PutUint32(out[12:], uint32(b.PartitionLeaderEpoch))
	out[16] = byte(b.Magic)
	attrs := b.attributesV2()
	be.PutUint16(out[21:], uint16(attrs))
	be.PutUint32(out[23:], uint32(lastDelta))
	be.PutUint64(out[27:], uint64(b.FirstTimestamp))
	be.PutUint64(out[35:], uint64(maxTS))
	be.PutUint64(out[43:], uint64(p.ID))
	be.PutUint16(out[51:], uint16(p.Epoch))
	be.PutUint32(out[53:], uint32(p.BaseSequence))
	be.PutUint32(out[57:], uint32(len(rs)))
	out = append(out, area...)
	crc := crc32.Checksum(out[v2CRCStart:], castagnoli)
	be.PutUint32(out[17:], crc)

	info := EntryInfo{
		Size:           len(out),
		BaseOffset:     b.BaseOffset,
		LastOffset:     b.BaseOffset + int64(lastDelta),
		Magic:          b.Magic,
		Codec:          b.Codec & 7,
		Attributes:     attrs,
		CRC:            crc,
		Count:          len(rs),
		LeaderEpoch:    b.PartitionLeaderEpoch,
		ProducerID:     p.ID,
		ProducerEpoch:  p.Epoch,
		BaseSequence:   p.BaseSequence,
		Transactional:  b.Transactional,
		Control:        b.Control,
		LogAppendTime:  b.LogAppendTime,
		FirstTimestamp: b.FirstTimestamp,
		MaxTimestamp:   maxTS,
		Records:        make([]RecordInfo, 0, len(rs)),
	}
	for _, r := range rs {
		ts := b.FirstTimestamp + r.TimestampDelta
		if b.LogAppendTime {
			ts = maxTS
		}
		seq := int32(-1)
		if p.BaseSequence >= 0 {
			seq = IncrementSequence(p.BaseSequence, r.OffsetDelta)
		}
		info.Records = append(info.Records, RecordInfo{
			Offset:    b.BaseOffset + int64(r.OffsetDelta),
			Timestamp: ts,
			Sequence:  seq,
			Key:       r.Key,
			Value:     r.Value,
			Headers:   r.Headers,
		})
	}
	return out, []EntryInfo{info}, nil
}

// appendRecordV2 writes one DefaultRecord: varint length, then the body.
func appendRecordV2(dst []byte, r Record) []byte {
	body := make([]byte, 0, 16+len(r.Key)+len(r.Value))
	body = append(body, 0) // record attributes: unused, written 0
	body = binary.AppendVarint(body, r.TimestampDelta)
	body = binary.AppendVarint(body, int64(r.OffsetDelta))
	body = appendVarBytes(body, r.Key)
	body = appendVarBytes(body, r.Value)
	body = binary.AppendVarint(body, int64(len(r.Headers)))
	for _, h := range r.Headers {
		body = binary.AppendVarint(body, int64(len(h.Key)))
		body = append(body, h.Key...)
		body = appendVarBytes(body, h.Value)
	}
	dst = binary.AppendVarint(dst, int64(len(body)))
	return append(dst, body...)
}

// appendVarBytes writes zigzag-varint length (-1 for nil) and the bytes.
// encoding/binary's Varint is the same zigzag base-128 as Kafka's ByteUtils.
func appendVarBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(dst, -1)
	}
	dst = binary.AppendVarint(dst, int64(len(b)))
	return append(dst, b...)
}

func (b Batch) buildLegacy() ([]byte, []EntryInfo, error) {
	rs := b.records()
	var tsBit int8
	if b.LogAppendTime && b.Magic >= 1 {
		tsBit = 0x08
	}
	maxTS := b.maxTimestamp(rs)
	ownTS := func(r Record) int64 {
		if b.Magic < 1 {
			return -1 // v0 has no timestamp field
		}
		return b.FirstTimestamp + r.TimestampDelta
	}
	base := EntryInfo{
		Magic:         b.Magic,
		LeaderEpoch:   -1,
		ProducerID:    -1,
		ProducerEpoch: -1,
		BaseSequence:  -1,
		LogAppendTime: tsBit != 0,
	}

	if b.Codec == CodecNone {
		var out []byte
		infos := make([]EntryInfo, 0, len(rs))
		for _, r := range rs {
			ts := ownTS(r)
			if tsBit != 0 {
				ts = maxTS // the broker stamps every plain message
			}
			pos := len(out)
			off := b.BaseOffset + int64(r.OffsetDelta)
			out = appendLegacyMessage(out, off, b.Magic, tsBit, ts, r.Key, r.Value)
			e := base
			e.Position = int64(pos)
			e.Size = len(out) - pos
			e.BaseOffset, e.LastOffset = off, off
			e.Attributes = int16(tsBit)
			e.CRC = be.Uint32(out[pos+12:])
			e.Count = 1
			e.FirstTimestamp, e.MaxTimestamp = ts, ts
			e.Records = []RecordInfo{{Offset: off, Timestamp: ts, Sequence: -1, Key: r.Key, Value: r.Value}}
			infos = append(infos, e)
		}
		return out, infos, nil
	}

	// Compressed: inner messages are plain CreateTime messages; v1 uses
	// relative inner offsets, v0 absolute ones (toInnerOffset).
	var inner []byte
	recInfos := make([]RecordInfo, 0, len(rs))
	wrapperTS := int64(-1)
	if b.Magic >= 1 {
		wrapperTS = maxTS
	}
	for _, r := range rs {
		innerOff := int64(r.OffsetDelta)
		if b.Magic < 1 {
			innerOff += b.BaseOffset
		}
		inner = appendLegacyMessage(inner, innerOff, b.Magic, 0, ownTS(r), r.Key, r.Value)
		ts := ownTS(r)
		if tsBit != 0 {
			ts = wrapperTS
		}
		recInfos = append(recInfos, RecordInfo{Offset: b.BaseOffset + int64(r.OffsetDelta), Timestamp: ts, Sequence: -1, Key: r.Key, Value: r.Value})
	}
	payload, err := compress(b.Codec, b.Magic, b.SnappyRaw, b.LZ4HC, inner)
	if err != nil {
		return nil, nil, err
	}
	last, _ := maxDelta(rs)
	wrapperOff := b.BaseOffset + int64(last)
	attrs := int8(b.Codec)&7 | tsBit
	out := appendLegacyMessage(nil, wrapperOff, b.Magic, attrs, wrapperTS, nil, payload)
	e := base
	e.Size = len(out)
	e.BaseOffset, e.LastOffset = b.BaseOffset, wrapperOff
	e.Codec = b.Codec & 7
	e.Attributes = int16(attrs)
	e.CRC = be.Uint32(out[12:])
	e.Count = len(rs)
	e.FirstTimestamp, e.MaxTimestamp = wrapperTS, wrapperTS
	e.Records = recInfos
	return out, []EntryInfo{e}, nil
}

// appendLegacyMessage writes one log entry: offset, size, crc, magic,
// attributes, [timestamp if magic >= 1], int32-length key and value.
func appendLegacyMessage(dst []byte, offset int64, magic, attrs int8, ts int64, key, value []byte) []byte {
	start := len(dst)
	dst = be.AppendUint64(dst, uint64(offset))
	dst = be.AppendUint32(dst, 0) // size, patched below
	dst = be.AppendUint32(dst, 0) // crc, patched below
	dst = append(dst, byte(magic), byte(attrs))
	if magic >= 1 {
		dst = be.AppendUint64(dst, uint64(ts))
	}
	dst = appendInt32Bytes(dst, key)
	dst = appendInt32Bytes(dst, value)
	be.PutUint32(dst[start+8:], uint32(len(dst)-start-entryPrefix))
	be.PutUint32(dst[start+12:], crc32.ChecksumIEEE(dst[start+legacyCRCFrom:]))
	return dst
}

func appendInt32Bytes(dst, b []byte) []byte {
	if b == nil {
		return be.AppendUint32(dst, 0xffffffff)
	}
	dst = be.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// FixCRC recomputes the checksum of the single entry at the start of
// entry after a test has patched it: CRC-32C over [21, 12+length) for
// magic >= 2, CRC-32 IEEE over [16, 12+size) for legacy. The length field
// is trusted but clamped to the slice.
func FixCRC(entry []byte) error {
	if len(entry) < 17 {
		return errors.New("segtest: entry shorter than 17 bytes")
	}
	end := entryPrefix + int64(int32(be.Uint32(entry[8:])))
	if end > int64(len(entry)) {
		end = int64(len(entry))
	}
	if int8(entry[16]) >= 2 {
		if end < v2HeaderSize {
			return errors.New("segtest: v2 batch shorter than 61 bytes")
		}
		be.PutUint32(entry[17:], crc32.Checksum(entry[v2CRCStart:end], castagnoli))
		return nil
	}
	if end < legacyCRCFrom {
		return errors.New("segtest: legacy message shorter than 16 bytes")
	}
	be.PutUint32(entry[12:], crc32.ChecksumIEEE(entry[legacyCRCFrom:end]))
	return nil
}

// Validate reports combinations a Kafka broker never writes. Encode
// accepts them anyway so that readers can be tested against them.
func (b Batch) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("segtest: "+format, args...))
	}
	rs := b.records()
	if b.Magic < 0 || b.Magic > 2 {
		bad("magic %d is not 0, 1 or 2", b.Magic)
	}
	if b.Codec < 0 || b.Codec > CodecZstd {
		bad("unknown codec id %d", b.Codec)
	}
	if b.Magic < 2 {
		if b.Codec == CodecZstd {
			bad("zstd in a magic %d message", b.Magic)
		}
		if b.Transactional || b.Control || b.DeleteHorizon || b.Producer != nil {
			bad("transactional, control, delete-horizon and producer fields need magic 2")
		}
		if b.Magic == 0 && b.LogAppendTime {
			bad("magic 0 has no timestamp type")
		}
		if len(rs) == 0 {
			bad("a legacy message set cannot be empty")
		}
		for _, r := range rs {
			if len(r.Headers) > 0 {
				bad("headers need magic 2; they are dropped")
				break
			}
		}
	} else {
		if len(rs) == 0 && b.Codec != CodecNone {
			bad("an empty batch is written with codec none")
		}
		if b.Control && len(rs) > 0 {
			for _, r := range rs {
				if len(r.Key) < 4 {
					bad("control record key shorter than 4 bytes")
					break
				}
			}
		}
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].OffsetDelta <= rs[i-1].OffsetDelta {
			bad("record %d: offset delta %d not above %d", i, rs[i].OffsetDelta, rs[i-1].OffsetDelta)
		}
	}
	if len(rs) > 0 && rs[0].OffsetDelta < 0 {
		bad("negative offset delta %d", rs[0].OffsetDelta)
	}
	return errors.Join(errs...)
}
