package topics

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/ksleuth/ksleuth/analysis/finding"
)

var (
	// ErrMalformed: a key or value does not parse under its schema (a
	// length past the end, a count larger than the bytes left, a null
	// where none is allowed).
	ErrMalformed = errors.New("topics: malformed record")
	// ErrTrailing: the schema was read completely but bytes remain.
	ErrTrailing = errors.New("topics: trailing bytes")
	// ErrUnknownVersion: a key, value or metadata record version newer
	// than this decoder knows (see VersionError).
	ErrUnknownVersion = errors.New("topics: unknown version")
	// ErrUnknownType: a __consumer_offsets key version (record type) or a
	// metadata apiKey this decoder has no name for.
	ErrUnknownType = errors.New("topics: unknown record type")
)

// VersionError is an unknown version of one schema.
type VersionError struct {
	Part    string // schema name, e.g. TransactionLogValue
	Version int16
	Max     int16 // highest version known
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("topics: unknown version: %s version %d (known up to %d)", e.Part, e.Version, e.Max)
}

func (e *VersionError) Unwrap() error { return ErrUnknownVersion }

// Kind maps a decode error to its anomaly kind: unknown-version,
// unknown-type, trailing-bytes or malformed-record.
func Kind(err error) finding.Kind {
	switch {
	case errors.Is(err, ErrUnknownVersion):
		return finding.KindUnknownVersion
	case errors.Is(err, ErrUnknownType):
		return finding.KindUnknownType
	case errors.Is(err, ErrTrailing):
		return finding.KindTrailingBytes
	}
	return finding.KindMalformedRecord
}

// Finding is a decode problem of one record, placed in its file.
type Finding struct {
	Path string
	// Position is the byte position of the record's batch in the file.
	Position int64
	// Offset is the record's offset.
	Offset int64
	Err    error
}

func (f *Finding) Error() string {
	return fmt.Sprintf("%s: at byte 0x%x (%d), offset %d: %v", f.Path, f.Position, f.Position, f.Offset, f.Err)
}

func (f *Finding) Unwrap() error { return f.Err }

// Kind is the anomaly kind (see the package function Kind).
func (f *Finding) Kind() finding.Kind { return Kind(f.Err) }

// String renders the uuid as Kafka does (Uuid.toString: URL-safe base64,
// no padding).
func (u UUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// MarshalText writes the Kafka form.
func (u UUID) MarshalText() ([]byte, error) { return []byte(u.String()), nil }
