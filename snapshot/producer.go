package snapshot

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Wire constants of the producer-state snapshot, version 1
// (apache/kafka ProducerSnapshot.json).
const (
	// SnapshotVersion is the only version ever written (0.11.0 to trunk).
	SnapshotVersion = 1
	// HeaderSize covers version (2), crc (4) and the entry count (4).
	HeaderSize = 10
	// EntrySize is the fixed size of one producer entry.
	EntrySize = 46
	// crcStart is where CRC-32C coverage begins (the entry count).
	crcStart = 6
	// DefaultMaxSize bounds Read when no limit is given. A snapshot holds one
	// 46-byte entry per live producer of one partition; 256 MiB is over five
	// million producers, far beyond any broker's producer.id expiration
	// window, while still protecting against reading a mislabelled huge file.
	DefaultMaxSize = 256 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Entry is one producer's persisted state (46 bytes on the wire). Only the
// producer's last data batch is stored.
type Entry struct {
	ProducerID int64 // bytes 0-7
	Epoch      int16 // bytes 8-9: current producer epoch
	// LastSequence (bytes 10-13) is the last sequence of the last data
	// batch; -1 if none.
	LastSequence int32
	// LastOffset (bytes 14-21) is the last offset of that batch; -1 means no
	// batch metadata (e.g. only a marker since the last epoch bump).
	LastOffset int64
	// OffsetDelta (bytes 22-25) is lastOffset - firstOffset of that batch.
	OffsetDelta int32
	// Timestamp (bytes 26-33): max timestamp of the last data batch, or the
	// timestamp of the last marker.
	Timestamp int64
	// CoordinatorEpoch (bytes 34-37) of the coordinator that wrote the last
	// transaction marker; -1 if never.
	CoordinatorEpoch int32
	// CurrentTxnFirstOffset (bytes 38-45): first offset of the open
	// transaction; -1 if none.
	CurrentTxnFirstOffset int64
}

// HasBatch reports whether the entry carries batch metadata (LastOffset ≥ 0).
func (e Entry) HasBatch() bool { return e.LastOffset >= 0 }

// HasOpenTxn reports whether the producer had an open transaction.
func (e Entry) HasOpenTxn() bool { return e.CurrentTxnFirstOffset >= 0 }

// FirstSequence is the first sequence of the stored batch, computed like the
// broker: decrementSequence(LastSequence, OffsetDelta), wrapping below 0 to
// the top of the int32 range. Like ProducerStateEntry.firstSeq it is
// -1 (NO_SEQUENCE) when the entry has no batch metadata.
func (e Entry) FirstSequence() int32 {
	if !e.HasBatch() {
		return -1
	}
	return DecrementSequence(e.LastSequence, e.OffsetDelta)
}

// FirstOffset is the first offset of the stored batch (LastOffset -
// OffsetDelta), or -1 when the entry has no batch metadata.
func (e Entry) FirstOffset() int64 {
	if e.LastOffset < 0 {
		return -1
	}
	return e.LastOffset - int64(e.OffsetDelta)
}

// String formats the entry the way DumpLogSegments prints a snapshot entry
// (kafka-dump-log), including its trailing space when there is no batch metadata.
func (e Entry) String() string {
	var b strings.Builder
	txn := "OptionalLong.empty"
	if e.CurrentTxnFirstOffset >= 0 {
		txn = "OptionalLong[" + strconv.FormatInt(e.CurrentTxnFirstOffset, 10) + "]"
	}
	fmt.Fprintf(&b, "producerId: %d producerEpoch: %d coordinatorEpoch: %d currentTxnFirstOffset: %s lastTimestamp: %d ",
		e.ProducerID, e.Epoch, e.CoordinatorEpoch, txn, e.Timestamp)
	if e.LastOffset >= 0 {
		fmt.Fprintf(&b, "firstSequence: %d lastSequence: %d lastOffset: %d offsetDelta: %d timestamp: %d",
			e.FirstSequence(), e.LastSequence, e.LastOffset, e.OffsetDelta, e.Timestamp)
	}
	return b.String()
}

// DecrementSequence is Kafka's decrementSequence: seq - delta, wrapping past
// zero to Int32.MAX the way the broker does (int32 arithmetic, as in Java).
func DecrementSequence(seq, delta int32) int32 {
	if seq < delta {
		return math.MaxInt32 - (delta - seq) + 1
	}
	return seq - delta
}

// File is a decoded producer-state snapshot.
type File struct {
	// Path is the file's path when known ("" for Parse and Read).
	Path string
	// EndOffset is the exclusive offset from the file name (state covers
	// offsets < EndOffset), or -1 when the name is unknown or not numeric.
	EndOffset int64
	// Size is the file length in bytes.
	Size int64
	// Version (bytes 0-1) as stored.
	Version int16
	// CRC (bytes 2-5) as stored, and ComputedCRC over bytes [6, EOF).
	CRC         uint32
	ComputedCRC uint32
	// Count (bytes 6-9) as stored; len(Entries) may be smaller when the file
	// is damaged.
	Count int32
	// Entries in file order.
	Entries []Entry
}

// CRCValid reports whether the stored and computed CRCs agree.
func (f *File) CRCValid() bool { return f.CRC == f.ComputedCRC }

// Parse decodes a producer snapshot held in memory.
//
// It checks the version, then the CRC-32C over bytes [6, EOF), then that the
// entry count matches the bytes present exactly. Parse always returns a
// non-nil *File holding whatever could be decoded: on a CRC mismatch (or a
// count that disagrees with the length) the entries that fit are still
// decoded best-effort, so a forensic caller can show what the damaged file
// says; with an unknown version no entries are decoded. The error is a
// *FormatError (or an errors.Join of several, the first being the primary
// one) wrapping ErrTruncated, ErrVersion, ErrCRC, ErrSyntax or ErrTrailing.
func Parse(data []byte) (*File, error) { return parse("", data) }

// ParseNamed is Parse for a file whose path is known: the path goes into
// errors and File.Path, and EndOffset is taken from its base name.
func ParseNamed(path string, data []byte) (*File, error) { return parse(path, data) }

// Read reads a whole snapshot from r, at most limit bytes (DefaultMaxSize if
// limit ≤ 0), and parses it like Parse. A longer input fails with ErrTooLarge
// before anything is parsed.
func Read(r io.Reader, limit int64) (*File, error) {
	data, err := readLimited("", r, limit)
	if err != nil {
		return nil, err
	}
	return parse("", data)
}

// ReadFile opens path read-only and parses it like ParseNamed, reading at
// most DefaultMaxSize bytes.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readLimited(path, f, 0)
	if err != nil {
		return nil, err
	}
	return parse(path, data)
}

// readLimited reads r to EOF but fails once more than limit bytes arrive.
// The buffer grows with the bytes actually read, never from a header value.
func readLimited(path string, r io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("snapshot: reading %s: %w", nameOr(path), err)
	}
	if int64(len(data)) > limit {
		return nil, tagKind(errAt(path, limit, 0, ErrTooLarge, "more than %d bytes, want at most that for a producer snapshot", limit), KindSnapshot)
	}
	return data, nil
}

func nameOr(path string) string {
	if path == "" {
		return "<input>"
	}
	return path
}

func parse(path string, data []byte) (*File, error) {
	f, err := parseSnapshot(path, data)
	return f, tagKind(err, KindSnapshot)
}

func parseSnapshot(path string, data []byte) (*File, error) {
	f := &File{Path: path, EndOffset: -1, Size: int64(len(data))}
	if path != "" {
		if off, ok := OffsetFromName(filepath.Base(path)); ok {
			f.EndOffset = off
		}
	}
	n := int64(len(data))
	if n == 0 {
		return f, errAt(path, 0, 0, ErrEmpty, "0 bytes, want a %d-byte header (version 1, crc, entry count)", HeaderSize)
	}
	if n < 2 {
		return f, errAt(path, n, 0, ErrTruncated, "%d bytes, want at least the %d of the header", n, HeaderSize)
	}
	f.Version = int16(binary.BigEndian.Uint16(data))
	if f.Version != SnapshotVersion {
		return f, errAt(path, 0, 0, ErrVersion, "version %d, want %d", f.Version, SnapshotVersion)
	}
	if n < HeaderSize {
		if n >= crcStart {
			f.CRC = binary.BigEndian.Uint32(data[2:])
			f.ComputedCRC = crc32.Checksum(data[crcStart:], castagnoli)
		}
		return f, errAt(path, n, 0, ErrTruncated, "%d bytes, want at least the %d of the header", n, HeaderSize)
	}

	var errs []error
	// The CRC is checked before any entry is trusted; on a mismatch the
	// entries are still decoded, but only as a best-effort view.
	f.CRC = binary.BigEndian.Uint32(data[2:])
	f.ComputedCRC = crc32.Checksum(data[crcStart:], castagnoli)
	if f.CRC != f.ComputedCRC {
		errs = append(errs, errAt(path, 2, 0, ErrCRC, "stored %#08x, computed %#08x", f.CRC, f.ComputedCRC))
	}

	f.Count = int32(binary.BigEndian.Uint32(data[crcStart:]))
	body := data[HeaderSize:]
	fit := int64(len(body)) / EntrySize // entries the bytes can hold
	want := int64(f.Count)
	switch {
	case want < 0:
		errs = append(errs, errAt(path, crcStart, 0, ErrSyntax, "negative entry count %d, want 0 or more", f.Count))
		want = 0
	case want > fit:
		errs = append(errs, errAt(path, HeaderSize+fit*EntrySize, 0, ErrTruncated,
			"entry count %d, want a file of %d bytes, got %d", f.Count, HeaderSize+want*EntrySize, n))
		want = fit // decode only what is present
	case HeaderSize+want*EntrySize < n:
		// The broker's CRC runs to EOF, so it calls this corrupt too.
		end := HeaderSize + want*EntrySize
		errs = append(errs, errAt(path, end, 0, ErrTrailing,
			"%d bytes after the %d entries announced, want none", n-end, f.Count))
	}
	if want > 0 {
		f.Entries = make([]Entry, want) // want ≤ len(body)/46: bounded by the input
		for i := range f.Entries {
			f.Entries[i] = decodeEntry(body[i*EntrySize : (i+1)*EntrySize])
		}
	}
	return f, joinErrs(errs)
}

func decodeEntry(b []byte) Entry {
	be := binary.BigEndian
	return Entry{
		ProducerID:            int64(be.Uint64(b[0:])),
		Epoch:                 int16(be.Uint16(b[8:])),
		LastSequence:          int32(be.Uint32(b[10:])),
		LastOffset:            int64(be.Uint64(b[14:])),
		OffsetDelta:           int32(be.Uint32(b[22:])),
		Timestamp:             int64(be.Uint64(b[26:])),
		CoordinatorEpoch:      int32(be.Uint32(b[34:])),
		CurrentTxnFirstOffset: int64(be.Uint64(b[38:])),
	}
}

// AppendEntry appends the 46-byte wire form of e to dst (used to build
// fixtures and by tests; ksleuth never writes snapshot files).
func AppendEntry(dst []byte, e Entry) []byte {
	be := binary.BigEndian
	dst = be.AppendUint64(dst, uint64(e.ProducerID))
	dst = be.AppendUint16(dst, uint16(e.Epoch))
	dst = be.AppendUint32(dst, uint32(e.LastSequence))
	dst = be.AppendUint64(dst, uint64(e.LastOffset))
	dst = be.AppendUint32(dst, uint32(e.OffsetDelta))
	dst = be.AppendUint64(dst, uint64(e.Timestamp))
	dst = be.AppendUint32(dst, uint32(e.CoordinatorEpoch))
	dst = be.AppendUint64(dst, uint64(e.CurrentTxnFirstOffset))
	return dst
}

// Encode returns the version-1 wire form of entries with a correct CRC, as
// the broker would write it (used for fixtures and tests).
func Encode(entries []Entry) []byte {
	b := make([]byte, HeaderSize, HeaderSize+len(entries)*EntrySize)
	binary.BigEndian.PutUint16(b, SnapshotVersion)
	binary.BigEndian.PutUint32(b[crcStart:], uint32(len(entries)))
	for _, e := range entries {
		b = AppendEntry(b, e)
	}
	binary.BigEndian.PutUint32(b[2:], crc32.Checksum(b[crcStart:], castagnoli))
	return b
}

// OffsetFromName returns the offset encoded in a Kafka file name: the text
// before the first '.', which must be exactly 20 decimal digits (Kafka's
// zero-padded filenamePrefixFromOffset). Suffixes such as ".deleted" do not
// matter: "00000000000000000042.snapshot.deleted" gives 42. A KRaft snapshot
// name "<20 digits>-<10 digits>.checkpoint" gives its end offset.
func OffsetFromName(name string) (int64, bool) {
	prefix, _, _ := strings.Cut(name, ".")
	if len(prefix) == offsetDigits+1+epochDigits && prefix[offsetDigits] == '-' {
		prefix = prefix[:offsetDigits]
	}
	if len(prefix) != offsetDigits || !allDigits(prefix) {
		return 0, false
	}
	v, err := strconv.ParseInt(prefix, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

const (
	offsetDigits = 20
	epochDigits  = 10
)

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
