package snapshot

import (
	"errors"
	"fmt"
)

// Sentinel causes of a FormatError, for errors.Is. Their text names the
// class of problem only; FormatError adds which kind of file it was read as.
var (
	// ErrEmpty: the file has no bytes at all, e.g. the leftover of a
	// rewrite that crashed before writing (quorum-state.tmp). Only kinds
	// the broker cannot read empty return it: producer snapshots,
	// partition.metadata, meta.properties and quorum-state. An empty
	// checkpoint or .kafka_cleanshutdown is valid (the broker reads no
	// entries, or the pre-3.7 marker) and gives no error.
	ErrEmpty = errors.New("empty file")
	// ErrCRC: the stored CRC-32C of a producer snapshot does not match the
	// bytes [6, EOF). The broker deletes such a file at load.
	ErrCRC = errors.New("crc mismatch")
	// ErrVersion: a version field names a version this parser does not know
	// (producer snapshot ≠ 1, checkpoint ≠ 0, meta.properties ∉ {0, 1}).
	ErrVersion = errors.New("unsupported version")
	// ErrTruncated: the file ends before the structure it announces.
	ErrTruncated = errors.New("truncated")
	// ErrTrailing: bytes or lines follow the announced content.
	ErrTrailing = errors.New("trailing data")
	// ErrSyntax: a field or line cannot be parsed (bad number, wrong number
	// of fields, negative count, bad JSON, bad uuid, missing key).
	ErrSyntax = errors.New("syntax error")
	// ErrCount: a checkpoint's entry-count line disagrees with the number of
	// entry lines that follow it.
	ErrCount = errors.New("entry count mismatch")
	// ErrOrder: entries that the broker writes in ascending order are not.
	ErrOrder = errors.New("entries out of order")
	// ErrZeroUUID: partition.metadata holds the all-zero topic id, which the
	// broker rejects.
	ErrZeroUUID = errors.New("all-zero topic id")
	// ErrTooLarge: the input is larger than the limit given to Read.
	ErrTooLarge = errors.New("file larger than limit")
)

// FormatError is a finding about one file: which file, read as which kind,
// where, and why. Offset is the byte position in the file where the
// problem starts; Line is the 1-based line number for text files (0 for
// binary files or when no single line is at fault). Err wraps one of the
// sentinels above and starts with the kind the file was read as, so that
// a message never calls a checkpoint a snapshot; its text says what was
// found and what was expected.
type FormatError struct {
	Path   string
	Kind   Kind
	Offset int64
	Line   int
	Err    error
}

func (e *FormatError) Error() string {
	path := e.Path
	if path == "" {
		path = "<input>"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: at byte %d: %v", path, e.Line, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: at byte %#x (%d): %v", path, e.Offset, e.Offset, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// errAt builds a FormatError whose Err wraps sentinel with a formatted
// explanation, so errors.Is still matches the sentinel. The parser names
// the kind with tagKind before returning.
func errAt(path string, offset int64, line int, sentinel error, format string, args ...any) *FormatError {
	var err error = sentinel
	if format != "" {
		err = fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
	}
	return &FormatError{Path: path, Offset: offset, Line: line, Err: err}
}

// kindLabel is how messages name a kind of state file.
func kindLabel(k Kind) string {
	switch k {
	case KindSnapshot:
		return "snapshot"
	case KindPartitionMetadata:
		return "partition.metadata"
	case KindMetaProperties:
		return "meta.properties"
	case KindCleanShutdown:
		return ".kafka_cleanshutdown"
	case KindUnknown:
		return "offset checkpoint"
	}
	return k.String()
}

// tagKind records in every FormatError of err the kind the file was read
// as, and puts that kind in front of the message. It returns err.
func tagKind(err error, k Kind) error {
	for _, e := range leaves(err) {
		var fe *FormatError
		if errors.As(e, &fe) && fe.Kind == KindUnknown {
			fe.Kind = k
			fe.Err = fmt.Errorf("%s: %w", kindLabel(k), fe.Err)
		}
	}
	return err
}

// leaves splits errors.Join trees into their leaves.
func leaves(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}

// joinErrs returns nil, the single error, or errors.Join of all of them
// (errors.Is and errors.As see every one; the first is the primary finding).
func joinErrs(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}

// maxFindings caps the findings one text file can produce, so that a large
// file of the wrong kind (a .log fed to a checkpoint parser) yields a short
// report instead of one error per line.
const maxFindings = 32

// findings collects errors up to maxFindings and counts the rest.
type findings struct {
	errs    []error
	dropped int
}

func (f *findings) add(err error) {
	if len(f.errs) < maxFindings {
		f.errs = append(f.errs, err)
		return
	}
	f.dropped++
}

// first puts err in front of the others, past the cap: it is the primary
// finding.
func (f *findings) first(err error) {
	f.errs = append([]error{err}, f.errs...)
}

func (f *findings) err() error {
	if f.dropped > 0 {
		return joinErrs(append(f.errs, fmt.Errorf("%d more problems not listed", f.dropped)))
	}
	return joinErrs(f.errs)
}
