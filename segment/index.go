package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Index files. The parsers below work on a whole
// file's bytes: index files are at most segment.index.bytes (10 MiB by
// default), and nothing is allocated beyond one entry struct per entry
// actually present before the zero tail.

// Entry sizes of the three index formats.
const (
	OffsetIndexEntrySize = 8  // int32 relativeOffset + int32 position
	TimeIndexEntrySize   = 12 // int64 timestamp + int32 relativeOffset
	TxnIndexEntrySize    = 34 // int16 version + 4 × int64
)

// Sentinel causes of an IndexFinding, for errors.Is.
var (
	// ErrIndexZeroTail: the file ends in zero-filled, preallocated slots
	// (an active segment's index in a copy of a live or crashed broker).
	// A note, not corruption.
	ErrIndexZeroTail = errors.New("segment: index zero-filled tail")
	// ErrIndexSize: the file length is not a multiple of the entry size;
	// the partial entry at the end is ignored.
	ErrIndexSize = errors.New("segment: index length not a multiple of entry size")
	// ErrIndexOrder: an entry does not follow the previous one in the order
	// the broker writes them (offsets, positions, timestamps or lastOffsets
	// not increasing).
	ErrIndexOrder = errors.New("segment: index entries out of order")
	// ErrIndexRange: an entry's value is impossible on its own (negative
	// relative offset or position, an offset below the segment base, a
	// transaction ending before it starts).
	ErrIndexRange = errors.New("segment: index entry out of range")
	// ErrIndexVersion: a transaction index entry with a version byte other
	// than 0.
	ErrIndexVersion = errors.New("segment: unknown txn index entry version")
)

// IndexFinding is a problem (or, for ErrIndexZeroTail, a note) about one
// index file: Position is the byte offset in the index file, Entry the
// 0-based entry number (-1 when no single entry is concerned).
type IndexFinding struct {
	Path     string
	Position int64
	Entry    int
	Err      error
}

func (f *IndexFinding) Error() string {
	path := f.Path
	if path == "" {
		path = "<input>"
	}
	if f.Entry >= 0 {
		return fmt.Sprintf("%s: at byte %#x (%d), entry %d: %v", path, f.Position, f.Position, f.Entry, f.Err)
	}
	return fmt.Sprintf("%s: at byte %#x (%d): %v", path, f.Position, f.Position, f.Err)
}

func (f *IndexFinding) Unwrap() error { return f.Err }

// Severity is "note" for a zero tail or a torn partial entry at the end of a
// txn index, and "error" for everything else.
func (f *IndexFinding) Severity() string {
	if errors.Is(f.Err, ErrIndexZeroTail) {
		return SeverityNote
	}
	return SeverityError
}

// idxMaxFindings caps the findings of one file: a file of the wrong kind (a
// .log read as an index) would otherwise give one finding per entry.
const idxMaxFindings = 100

// idxFindings collects findings up to idxMaxFindings, then counts the rest
// into one closing finding.
type idxFindings struct {
	path    string
	list    []*IndexFinding
	dropped int
	lastPos int64
}

func (c *idxFindings) add(pos int64, entry int, sentinel error, format string, args ...any) {
	if len(c.list) >= idxMaxFindings {
		c.dropped++
		c.lastPos = pos
		return
	}
	err := sentinel
	if format != "" {
		err = fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
	}
	c.list = append(c.list, &IndexFinding{Path: c.path, Position: pos, Entry: entry, Err: err})
}

func (c *idxFindings) result() []*IndexFinding {
	if c.dropped > 0 {
		c.list = append(c.list, &IndexFinding{Path: c.path, Position: c.lastPos, Entry: -1,
			Err: fmt.Errorf("segment: %d more index findings not listed", c.dropped)})
	}
	return c.list
}

// idxBaseOffset returns baseOffset, or when it is negative the 20-digit
// offset prefix of the file name (0 if the name has none).
func idxBaseOffset(path string, baseOffset int64) int64 {
	if baseOffset >= 0 {
		return baseOffset
	}
	prefix, _, _ := strings.Cut(filepath.Base(path), ".")
	if len(prefix) == 20 {
		if v, err := strconv.ParseInt(prefix, 10, 64); err == nil && v >= 0 {
			return v
		}
	}
	return 0
}

// idxZeroTail returns the number of leading entries before a zero-filled
// tail: the first entry i > 0 all of whose bytes are zero, provided every
// byte from there to the end of the whole entries is zero too. A file of
// more than one entry that is zero throughout (the preallocated index of an
// active segment that has no entry yet) is all tail: it returns 0. It
// returns n when there is no tail.
func idxZeroTail(data []byte, size, n int) int {
	if n > 1 && isZero(data[:n*size]) {
		return 0
	}
	for i := 1; i < n; i++ {
		if !isZero(data[i*size : (i+1)*size]) {
			continue
		}
		if isZero(data[i*size : n*size]) {
			return i
		}
		// A zero entry followed by non-zero bytes is not a tail; the order
		// checks report it as an entry.
		return n
	}
	return n
}

// idxSlots checks that the file holds whole entries and finds a
// zero-filled preallocated tail, reporting both; it returns the number of
// real entries and of zero slots after them.
func idxSlots(data []byte, size int, fs *idxFindings) (n, zeroTail int) {
	total := len(data) / size
	if rem := len(data) % size; rem != 0 {
		fs.add(int64(total*size), total, ErrIndexSize, "%d bytes, %d stray bytes after entry %d", len(data), rem, total-1)
	}
	n = idxZeroTail(data, size, total)
	if n < total {
		fs.add(int64(n*size), n, ErrIndexZeroTail, "%d zero-filled slots (preallocated index)", total-n)
	}
	return n, total - n
}

// OffsetIndexEntry is one .index entry.
type OffsetIndexEntry struct {
	// RelativeOffset (bytes 0-3) is Offset minus the segment base offset.
	RelativeOffset int32
	// Position (bytes 4-7) is the byte position of a batch start in .log.
	Position int32
	// Offset is the absolute offset: base offset + RelativeOffset. It is
	// the last offset of the chunk appended at Position
	// (docs/formats/indexes.md).
	Offset int64
}

// String is the DumpLogSegments line for the entry.
func (e OffsetIndexEntry) String() string {
	return fmt.Sprintf("offset: %d position: %d", e.Offset, e.Position)
}

// OffsetIndex is a parsed .index file.
type OffsetIndex struct {
	Path       string
	BaseOffset int64
	// Size is the file length in bytes.
	Size int64
	// Entries before any zero tail.
	Entries []OffsetIndexEntry
	// ZeroTailEntries counts the preallocated all-zero slots after Entries.
	ZeroTailEntries int
}

// ParseOffsetIndex parses a whole .index file. baseOffset is the segment's
// base offset; pass -1 to take it from the file name. It never fails:
// problems come back as findings, each naming the byte position.
//
// A zero-filled tail (the first entry after entry 0 whose relative offset
// and position are both 0, with only zeros after it) ends the entries and is
// reported as an ErrIndexZeroTail note. A length that is not a multiple of 8
// is an ErrIndexSize finding; offsets and positions that do not strictly
// increase are ErrIndexOrder findings; negative values are ErrIndexRange.
func ParseOffsetIndex(path string, data []byte, baseOffset int64) (*OffsetIndex, []*IndexFinding) {
	base := idxBaseOffset(path, baseOffset)
	ix := &OffsetIndex{Path: path, BaseOffset: base, Size: int64(len(data))}
	fs := &idxFindings{path: path}
	const size = OffsetIndexEntrySize
	n, zeroTail := idxSlots(data, size, fs)
	ix.ZeroTailEntries = zeroTail
	ix.Entries = make([]OffsetIndexEntry, n)
	be := binary.BigEndian
	for i := range n {
		b := data[i*size:]
		e := OffsetIndexEntry{
			RelativeOffset: int32(be.Uint32(b)),
			Position:       int32(be.Uint32(b[4:])),
		}
		e.Offset = base + int64(e.RelativeOffset)
		pos := int64(i * size)
		if e.RelativeOffset < 0 || e.Position < 0 {
			fs.add(pos, i, ErrIndexRange, "relative offset %d, position %d", e.RelativeOffset, e.Position)
		}
		if i > 0 {
			p := ix.Entries[i-1]
			if e.RelativeOffset <= p.RelativeOffset || e.Position <= p.Position {
				fs.add(pos, i, ErrIndexOrder, "offset %d at position %d follows offset %d at position %d",
					e.Offset, e.Position, p.Offset, p.Position)
			}
		}
		ix.Entries[i] = e
	}
	return ix, fs.result()
}

// TimeIndexEntry is one .timeindex entry.
type TimeIndexEntry struct {
	// Timestamp (bytes 0-7): the largest timestamp seen up to Offset.
	Timestamp int64
	// RelativeOffset (bytes 8-11): Offset minus the segment base offset.
	RelativeOffset int32
	// Offset is base offset + RelativeOffset.
	Offset int64
}

// String is the DumpLogSegments line for the entry.
func (e TimeIndexEntry) String() string {
	return fmt.Sprintf("timestamp: %d offset: %d", e.Timestamp, e.Offset)
}

// TimeIndex is a parsed .timeindex file.
type TimeIndex struct {
	Path            string
	BaseOffset      int64
	Size            int64
	Entries         []TimeIndexEntry
	ZeroTailEntries int
}

// ParseTimeIndex parses a whole .timeindex file, like ParseOffsetIndex. The
// zero tail starts at the first all-zero 12-byte entry after entry 0. The
// broker appends an entry only when its timestamp is strictly greater than
// the previous one and its offset is not smaller, so anything else is an
// ErrIndexOrder finding (DumpLogSegments' "out of order timestamp").
func ParseTimeIndex(path string, data []byte, baseOffset int64) (*TimeIndex, []*IndexFinding) {
	base := idxBaseOffset(path, baseOffset)
	ix := &TimeIndex{Path: path, BaseOffset: base, Size: int64(len(data))}
	fs := &idxFindings{path: path}
	const size = TimeIndexEntrySize
	n, zeroTail := idxSlots(data, size, fs)
	ix.ZeroTailEntries = zeroTail
	ix.Entries = make([]TimeIndexEntry, n)
	be := binary.BigEndian
	for i := range n {
		b := data[i*size:]
		e := TimeIndexEntry{
			Timestamp:      int64(be.Uint64(b)),
			RelativeOffset: int32(be.Uint32(b[8:])),
		}
		e.Offset = base + int64(e.RelativeOffset)
		pos := int64(i * size)
		if e.RelativeOffset < 0 {
			fs.add(pos, i, ErrIndexRange, "relative offset %d", e.RelativeOffset)
		}
		if i > 0 {
			p := ix.Entries[i-1]
			if e.Timestamp <= p.Timestamp {
				fs.add(pos, i, ErrIndexOrder, "timestamp %d follows timestamp %d", e.Timestamp, p.Timestamp)
			}
			if e.RelativeOffset < p.RelativeOffset {
				fs.add(pos, i, ErrIndexOrder, "offset %d follows offset %d", e.Offset, p.Offset)
			}
		}
		ix.Entries[i] = e
	}
	return ix, fs.result()
}

// AbortedTxn is one .txnindex entry: an aborted transaction.
type AbortedTxn struct {
	Version          int16 // bytes 0-1; only the first byte is checked
	ProducerID       int64 // bytes 2-9
	FirstOffset      int64 // bytes 10-17: first offset of the transaction
	LastOffset       int64 // bytes 18-25: offset of the ABORT marker
	LastStableOffset int64 // bytes 26-33: LSO when the marker was written
}

// String is the DumpLogSegments line for the entry.
func (a AbortedTxn) String() string {
	return fmt.Sprintf("version: %d producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d",
		a.Version, a.ProducerID, a.FirstOffset, a.LastOffset, a.LastStableOffset)
}

// TxnIndex is a parsed .txnindex file.
type TxnIndex struct {
	Path       string
	BaseOffset int64
	Size       int64
	Entries    []AbortedTxn
}

// ParseTxnIndex parses a whole .txnindex file. Like the broker's iterator it
// ignores a trailing partial entry, reporting it as ErrIndexSize. It reports
// a version byte other than 0 (ErrIndexVersion; the entry is kept),
// lastOffsets that do not strictly increase (ErrIndexOrder), and a lastOffset
// below the segment base or below its firstOffset (ErrIndexRange).
// baseOffset -1 takes the base from the file name.
func ParseTxnIndex(path string, data []byte, baseOffset int64) (*TxnIndex, []*IndexFinding) {
	base := idxBaseOffset(path, baseOffset)
	ix := &TxnIndex{Path: path, BaseOffset: base, Size: int64(len(data))}
	fs := &idxFindings{path: path}
	const size = TxnIndexEntrySize
	n := len(data) / size
	if rem := len(data) % size; rem != 0 {
		fs.add(int64(n*size), n, ErrIndexSize, "partial entry of %d bytes ignored", rem)
	}
	ix.Entries = make([]AbortedTxn, n)
	be := binary.BigEndian
	for i := range n {
		b := data[i*size:]
		a := AbortedTxn{
			Version:          int16(be.Uint16(b)),
			ProducerID:       int64(be.Uint64(b[2:])),
			FirstOffset:      int64(be.Uint64(b[10:])),
			LastOffset:       int64(be.Uint64(b[18:])),
			LastStableOffset: int64(be.Uint64(b[26:])),
		}
		pos := int64(i * size)
		if b[0] != 0 {
			fs.add(pos, i, ErrIndexVersion, "version byte %d", b[0])
		}
		if a.LastOffset < base {
			fs.add(pos, i, ErrIndexRange, "lastOffset %d below segment base offset %d", a.LastOffset, base)
		}
		if a.FirstOffset > a.LastOffset {
			fs.add(pos, i, ErrIndexRange, "firstOffset %d after lastOffset %d", a.FirstOffset, a.LastOffset)
		}
		if i > 0 && a.LastOffset <= ix.Entries[i-1].LastOffset {
			fs.add(pos, i, ErrIndexOrder, "lastOffset %d follows lastOffset %d", a.LastOffset, ix.Entries[i-1].LastOffset)
		}
		ix.Entries[i] = a
	}
	return ix, fs.result()
}
