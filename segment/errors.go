package segment

import (
	"errors"
	"fmt"
)

// Sentinel causes of a CorruptionError, for errors.Is. Each names one way a
// segment can be damaged; Kind maps them to the anomaly kinds of the
// anomalies table.
var (
	// ErrCRC: the stored checksum does not match the bytes.
	ErrCRC = errors.New("segment: crc mismatch")
	// ErrTruncated: the file ends inside a batch (a torn tail).
	ErrTruncated = errors.New("segment: truncated batch")
	// ErrZeroTail: the file ends in a run of zero bytes (preallocation, or a
	// crash before the data reached the disk). Not corruption by itself.
	ErrZeroTail = errors.New("segment: zero-filled tail")
	// ErrBadMagic: the magic byte is not 0, 1 or 2.
	ErrBadMagic = errors.New("segment: unknown magic")
	// ErrBadLength: a length field is impossible (too small, or larger than
	// any batch this reader accepts).
	ErrBadLength = errors.New("segment: bad length")
	// ErrBadRecordCount: the records in a batch disagree with its count.
	ErrBadRecordCount = errors.New("segment: record count mismatch")
	// ErrBadRecord: a record inside a batch is malformed.
	ErrBadRecord = errors.New("segment: malformed record")
	// ErrDecompress: the compressed payload could not be decompressed.
	ErrDecompress = errors.New("segment: decompression failed")
	// ErrTooLarge: decompression produced more bytes than allowed (a
	// decompression bomb, or a limit set too low).
	ErrTooLarge = errors.New("segment: decompressed size over limit")
	// ErrUnknownCodec: the compression bits name no known codec.
	ErrUnknownCodec = errors.New("segment: unknown compression codec")
	// ErrGarbage: bytes between batches that belong to no batch.
	ErrGarbage = errors.New("segment: unreadable bytes skipped")
	// ErrBadOffset: offsets inside a batch or message set are impossible.
	ErrBadOffset = errors.New("segment: bad offset")
	// ErrOverlap: a checksum-valid batch starts inside the previous
	// checksum-valid batch and runs past its end. Both are yielded: the
	// bytes cannot say which one was written last.
	ErrOverlap = errors.New("segment: overlapping batches")
)

// The kinds of finding the reader reports (CorruptionError.Kind), in the
// words of the anomalies table; package analysis/finding lists them all
// with their meaning, and a test there holds every constant here to its
// list. This package cannot import that one, so it keeps its own words.
const (
	KindCRCMismatch          = "crc-mismatch"
	KindTruncated            = "truncated-batch"
	KindZeroTail             = "zero-tail"
	KindUnknownMagic         = "unknown-magic"
	KindBadLength            = "bad-length"
	KindRecordCountMismatch  = "record-count-mismatch"
	KindBadRecord            = "bad-record"
	KindDecompressError      = "decompress-error"
	KindDecompressedTooLarge = "decompressed-too-large"
	KindSkippedBytes         = "skipped-bytes"
	KindBadOffset            = "bad-offset"
	KindOverlappingBatch     = "overlapping-batch"
	KindSparseHole           = "sparse-hole"
	KindIOError              = "io-error"
)

// The severities the reader and the index parsers give their findings.
const (
	SeverityError = "error"
	SeverityNote  = "note"
)

// CorruptionError is a finding about damaged bytes: which file, where, and
// why. Offset is the byte position in the file where the damage starts
// (normally a batch start); Length is how many bytes it covers when known
// (0 otherwise). BaseOffset is the Kafka offset of the batch concerned, or -1
// when no header could be trusted.
type CorruptionError struct {
	Path       string
	Offset     int64
	Length     int64
	BaseOffset int64
	Err        error
}

func (e *CorruptionError) Error() string {
	path := e.Path
	if path == "" {
		path = "<input>"
	}
	return fmt.Sprintf("%s: at byte %#x (%d): %v", path, e.Offset, e.Offset, e.Err)
}

func (e *CorruptionError) Unwrap() error { return e.Err }

// Kind is the anomaly kind of the finding, as named in the anomalies table
// (crc-mismatch, truncated-batch, ...).
func (e *CorruptionError) Kind() string { return KindOf(e.Err) }

// Severity is "note" for damage a healthy broker leaves behind (a zero tail,
// a torn last batch) and "error" for everything else.
func (e *CorruptionError) Severity() string {
	if errors.Is(e.Err, ErrZeroTail) || errors.Is(e.Err, ErrTruncated) {
		return SeverityNote
	}
	return SeverityError
}

// KindOf maps an error to its anomaly kind name.
func KindOf(err error) string {
	switch {
	case errors.Is(err, ErrHole): // before ErrZeroTail, which a tail hole also wraps
		return KindSparseHole
	case errors.Is(err, ErrCRC):
		return KindCRCMismatch
	case errors.Is(err, ErrTruncated):
		return KindTruncated
	case errors.Is(err, ErrZeroTail):
		return KindZeroTail
	case errors.Is(err, ErrBadMagic):
		return KindUnknownMagic
	case errors.Is(err, ErrBadLength):
		return KindBadLength
	case errors.Is(err, ErrBadRecordCount):
		return KindRecordCountMismatch
	case errors.Is(err, ErrBadRecord):
		return KindBadRecord
	case errors.Is(err, ErrTooLarge):
		return KindDecompressedTooLarge
	case errors.Is(err, ErrDecompress), errors.Is(err, ErrUnknownCodec):
		return KindDecompressError
	case errors.Is(err, ErrGarbage):
		return KindSkippedBytes
	case errors.Is(err, ErrBadOffset):
		return KindBadOffset
	case errors.Is(err, ErrOverlap):
		return KindOverlappingBatch
	}
	return KindIOError
}

// detail wraps a sentinel with a formatted explanation, keeping errors.Is.
func detail(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
