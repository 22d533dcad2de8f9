package segment

import (
	"encoding/binary"
)

// Codec is a compression codec id as stored in the low three attribute bits.
type Codec int8

const (
	CodecNone   Codec = 0
	CodecGzip   Codec = 1
	CodecSnappy Codec = 2
	CodecLZ4    Codec = 3
	CodecZstd   Codec = 4
)

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
	return "unknown"
}

// TimestampType says how a timestamp was assigned.
type TimestampType int8

const (
	NoTimestampType TimestampType = -1 // magic 0: no timestamps at all
	CreateTime      TimestampType = 0  // set by the producer
	LogAppendTime   TimestampType = 1  // set by the broker on append
)

func (t TimestampType) String() string {
	switch t {
	case CreateTime:
		return "CreateTime"
	case LogAppendTime:
		return "LogAppendTime"
	}
	return "NoTimestampType"
}

// Wire constants of the v2 record batch and of the
// legacy log entry (docs/formats/log-segment.md).
const (
	// LogOverhead is the offset + length prefix every entry starts with.
	LogOverhead = 12
	// BatchHeaderSize is the v2 header up to and including recordsCount.
	BatchHeaderSize = 61
	// legacyV0Header / legacyV1Header: crc..valueLength without key/value.
	legacyMinV0 = 14
	legacyMinV1 = 22
	// crcStartV2 is where the v2 CRC-32C coverage begins (attributes).
	crcStartV2 = 21
	// crcStartLegacy is where the legacy CRC-32 coverage begins (magic).
	crcStartLegacy = 16
)

// Attribute bits of a v2 batch (only the low byte is meaningful).
const (
	attrCodecMask     = 0x07
	attrTimestampType = 0x08
	attrTransactional = 0x10
	attrControl       = 0x20
	attrDeleteHorizon = 0x40
)

// Batch is one entry of a segment: a v2 record batch, or for magic 0/1 one
// top-level message (a plain message, or a compressed wrapper holding inner
// messages). It is a view into the reader's buffer and is valid only until
// the next call to Next; use Clone to keep it.
//
// Field comments give the wire position for magic 2.
// Legacy messages fill the fields they have and set the rest to -1.
type Batch struct {
	// Position is the byte offset of the batch in its file.
	Position int64
	// BaseOffset (v2 bytes 0-7) is the offset of the first record. For a
	// legacy wrapper it is the first inner record's offset; for a plain
	// legacy message, the message offset.
	BaseOffset int64
	// Length (bytes 8-11) counts the bytes after the length field; the batch
	// occupies LogOverhead+Length bytes.
	Length int32
	// PartitionLeaderEpoch (bytes 12-15), -1 for legacy messages.
	PartitionLeaderEpoch int32
	// Magic (byte 16): 0, 1 or 2.
	Magic int8
	// CRC (v2 bytes 17-20, CRC-32C from byte 21; legacy bytes 12-15, CRC-32
	// IEEE from byte 16) as stored.
	CRC uint32
	// Attributes (v2 bytes 21-22; legacy byte 17).
	Attributes int16
	// LastOffsetDelta (bytes 23-26): last offset minus base offset.
	LastOffsetDelta int32
	// FirstTimestamp (bytes 27-34): base timestamp, or the delete horizon
	// when HasDeleteHorizon. For magic 1, the message timestamp; -1 for v0.
	FirstTimestamp int64
	// MaxTimestamp (bytes 35-42): the largest record timestamp, or the append
	// time under LogAppendTime. For magic 1 the message timestamp.
	MaxTimestamp int64
	// ProducerID (43-50), ProducerEpoch (51-52), BaseSequence (53-56): -1
	// when the producer is not idempotent, and always for legacy messages.
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	// NumRecords (bytes 57-60) as stored. For legacy messages the number of
	// records the entry yields (1, or the inner messages of a wrapper).
	NumRecords int32
	// CRCValid reports whether the stored CRC matches the bytes.
	CRCValid bool
	// ComputedCRC is the checksum computed over the bytes.
	ComputedCRC uint32

	// data is the whole batch (LogOverhead+Length bytes), or only its header
	// when the batch is streamed (see Streamed).
	data []byte
	// streamed is set when the batch was too large to buffer whole; its
	// records are read from the input as they are decoded.
	streamed bool
	stream   *batchStream
	// inner holds the decompressed inner message set of a legacy wrapper.
	inner []byte
	// innerBase is what to add to a v1 wrapper's relative inner offsets.
	innerBase int64
	// innerErr is the damage found while opening a legacy wrapper.
	innerErr error
	// path of the file, for errors.
	path string
	// ahead are input bytes after the batch that its record iteration
	// prefetches, spread over its records (see Reader.ahead).
	ahead []byte
}

// Size is the number of bytes the batch occupies in the file.
func (b *Batch) Size() int64 { return LogOverhead + int64(b.Length) }

// LastOffset is the offset of the last record (for compacted batches, the
// last offset the batch was written with, which may no longer hold a record).
func (b *Batch) LastOffset() int64 {
	if b.Magic < 2 {
		return b.BaseOffset + int64(b.LastOffsetDelta)
	}
	return b.BaseOffset + int64(b.LastOffsetDelta)
}

// Codec is the compression codec of the batch.
func (b *Batch) Codec() Codec { return Codec(b.Attributes & attrCodecMask) }

// TimestampType of the batch: NoTimestampType for magic 0.
func (b *Batch) TimestampType() TimestampType {
	if b.Magic == 0 {
		return NoTimestampType
	}
	if b.Attributes&attrTimestampType != 0 {
		return LogAppendTime
	}
	return CreateTime
}

// IsTransactional reports attribute bit 4 (v2 only).
func (b *Batch) IsTransactional() bool { return b.Magic >= 2 && b.Attributes&attrTransactional != 0 }

// IsControl reports attribute bit 5 (v2 only): a batch of control records.
func (b *Batch) IsControl() bool { return b.Magic >= 2 && b.Attributes&attrControl != 0 }

// HasDeleteHorizon reports attribute bit 6 (v2 only): FirstTimestamp holds
// the delete horizon set by the log cleaner.
func (b *Batch) HasDeleteHorizon() bool { return b.Magic >= 2 && b.Attributes&attrDeleteHorizon != 0 }

// DeleteHorizon returns the delete horizon in milliseconds, or -1.
func (b *Batch) DeleteHorizon() int64 {
	if b.HasDeleteHorizon() {
		return b.FirstTimestamp
	}
	return -1
}

// LastSequence is the sequence of the last offset of the batch, with
// Kafka's wrap-around past 2^31-1; -1 without a base sequence.
func (b *Batch) LastSequence() int32 {
	if b.BaseSequence < 0 {
		return -1
	}
	return IncrementSequence(b.BaseSequence, b.LastOffsetDelta)
}

// Streamed reports whether the batch is too large to be held in memory and
// its records are decoded from the input as they are read.
func (b *Batch) Streamed() bool { return b.streamed }

// Bytes returns the raw batch as stored (nil for a streamed batch). The
// slice is valid until the next call to Next.
func (b *Batch) Bytes() []byte {
	if b.streamed {
		return nil
	}
	return b.data
}

// Clone returns a copy of the batch that stays valid after Next. A streamed
// batch cannot be cloned with its records; its clone has header fields only.
func (b *Batch) Clone() *Batch {
	c := *b
	c.ahead = nil // a clone is decoded elsewhere, maybe after the window moved on
	c.data = append([]byte(nil), b.data...)
	if b.inner != nil {
		c.inner = append([]byte(nil), b.inner...)
	}
	return &c
}

// IncrementSequence adds delta to a sequence number, wrapping past
// 2^31-1 to 0 as Kafka does (DefaultRecordBatch.incrementSequence).
func IncrementSequence(seq, delta int32) int32 {
	const max = int32(^uint32(0) >> 1)
	if seq > max-delta {
		return delta - (max - seq) - 1
	}
	return seq + delta
}

// parseV2Header fills b from a 61-byte v2 header.
func (b *Batch) parseV2Header(h []byte) {
	b.BaseOffset = int64(binary.BigEndian.Uint64(h[0:]))
	b.Length = int32(binary.BigEndian.Uint32(h[8:]))
	b.PartitionLeaderEpoch = int32(binary.BigEndian.Uint32(h[12:]))
	b.Magic = int8(h[16])
	b.CRC = binary.BigEndian.Uint32(h[17:])
	b.Attributes = int16(binary.BigEndian.Uint16(h[21:]))
	b.LastOffsetDelta = int32(binary.BigEndian.Uint32(h[23:]))
	b.FirstTimestamp = int64(binary.BigEndian.Uint64(h[27:]))
	b.MaxTimestamp = int64(binary.BigEndian.Uint64(h[35:]))
	b.ProducerID = int64(binary.BigEndian.Uint64(h[43:]))
	b.ProducerEpoch = int16(binary.BigEndian.Uint16(h[51:]))
	b.BaseSequence = int32(binary.BigEndian.Uint32(h[53:]))
	b.NumRecords = int32(binary.BigEndian.Uint32(h[57:]))
}
