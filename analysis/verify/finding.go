package verify

import (
	"errors"
	"fmt"

	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Severities, from worst to mildest. Errors are damage or contradictions
// between files; warnings are states a healthy broker does not leave
// behind but that have innocent explanations (a copy taken while the broker
// ran); notes are normal properties worth knowing (compaction gaps, a
// preallocated index tail). ksleuth verify exits 3 on errors and warnings,
// not on notes.
const (
	SevError   = "error"
	SevWarning = "warning"
	SevNote    = "note"
)

// Finding kinds that verify adds to the segment reader's (crc-mismatch,
// truncated-batch, zero-tail, bad-length, unknown-magic, decompress-error,
// record-count-mismatch, …; see segment.KindOf).
const (
	KindOffsetRegression = "offset-regression" // a batch's offsets are not above the previous batch's
	KindOffsetGap        = "offset-gap"        // offsets skipped between batches (compaction): a note
	KindNameMismatch     = "name-mismatch"     // a segment holds a batch below the offset in its name
	KindSegmentOverlap   = "segment-overlap"   // a segment's name offset is not above the previous segment's data
	KindIndexMismatch    = "index-mismatch"    // an .index/.timeindex entry disagrees with the log
	KindIndexFormat      = "index-format"      // an index file that does not parse cleanly (order, size, range)
	KindIndexZeroTail    = "index-zero-tail"   // preallocated zero slots at the end of an index: a note
	KindMissingSegment   = "missing-segment"   // index files whose .log is absent
	KindTxnIndexMismatch = "txnindex-mismatch" // a .txnindex entry without its ABORT marker, or an abort not indexed
	KindSnapshotCRC      = "snapshot-crc"      // a producer snapshot the broker would delete at load
	KindSnapshotFormat   = "snapshot-format"   // a producer snapshot that does not parse (version, length)
	KindSnapshotMismatch = "snapshot-mismatch" // snapshot versus log: missing, extra or differing producers
	KindSnapshotAhead    = "snapshot-ahead"    // a snapshot whose offset is beyond the log end
	KindNotVerifiable    = "not-verifiable"    // state that refers to data no longer on disk: a note
	KindCheckpointAhead  = "checkpoint-ahead"  // a checkpoint offset beyond the data on disk
	KindLogStartAhead    = "log-start-ahead"   // log-start-offset above the first offset on disk (DeleteRecords, retention)
	KindCheckpointStale  = "checkpoint-stale"  // a checkpoint below the data, or naming a partition not present
	KindStateFormat      = "state-format"      // a checkpoint, metadata or properties file that does not parse
	KindLeftover         = "leftover-file"     // .tmp, .deleted, .cleaned, .swap files: a note
	KindIOError          = "io-error"          // a file that could not be read
)

// Finding is one problem or observation about one file.
type Finding struct {
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	// File is the path as the caller named it.
	File string `json:"file"`
	// Position is the byte position in File, -1 when none applies.
	Position int64 `json:"position"`
	// Line is the 1-based line in a text file, 0 otherwise.
	Line int `json:"line,omitempty"`
	// Offset is the Kafka offset concerned, -1 when none applies.
	Offset int64 `json:"offset"`
	// ProducerID is the producer concerned, -1 when none applies.
	ProducerID int64  `json:"producerId"`
	Message    string `json:"message"`
}

// Counts reports whether the finding counts for the exit code (errors and
// warnings do, notes do not).
func (f Finding) Counts() bool { return f.Severity != SevNote }

// String is the one-line text form: "severity kind at byte N (offset O): message".
func (f Finding) String() string {
	s := f.Severity + " " + f.Kind
	switch {
	case f.Line > 0:
		s += fmt.Sprintf(" at line %d", f.Line)
	case f.Position >= 0:
		s += fmt.Sprintf(" at byte %d", f.Position)
	}
	if f.Offset >= 0 {
		s += fmt.Sprintf(" (offset %d)", f.Offset)
	}
	return s + ": " + f.Message
}

func newFinding(kind, sev, file string, pos, off int64, msg string, args ...any) Finding {
	return Finding{Kind: kind, Severity: sev, File: file, Position: pos, Offset: off, ProducerID: -1, Message: fmt.Sprintf(msg, args...)}
}

// FromCorruption converts a segment reader finding.
func FromCorruption(ce *segment.CorruptionError) Finding {
	f := newFinding(ce.Kind(), ce.Severity(), ce.Path, ce.Offset, ce.BaseOffset, "%s", ce.Err.Error())
	if f.Offset < 0 {
		f.Offset = -1
	}
	return f
}

// FromIndexFinding converts a problem reported by an index parser.
func FromIndexFinding(x *segment.IndexFinding) Finding {
	kind, sev := KindIndexFormat, SevError
	switch {
	case errors.Is(x.Err, segment.ErrIndexZeroTail):
		kind, sev = KindIndexZeroTail, SevNote
	case x.Severity() == "note":
		sev = SevNote
	}
	msg := x.Err.Error()
	if x.Entry >= 0 {
		msg = fmt.Sprintf("entry %d: %s", x.Entry, msg)
	}
	return newFinding(kind, sev, x.Path, x.Position, -1, "%s", msg)
}

// FromStateError converts the error of a snapshot-package parser (a
// *snapshot.FormatError, or several joined) into findings about path.
func FromStateError(path string, kind snapshot.Kind, err error) []Finding {
	var out []Finding
	for _, e := range flatten(err) {
		fk, sev := KindStateFormat, SevError
		if kind == snapshot.KindSnapshot {
			fk = KindSnapshotFormat
			if errors.Is(e, snapshot.ErrCRC) {
				fk = KindSnapshotCRC
			}
		}
		f := newFinding(fk, sev, path, -1, -1, "%v", e)
		var fe *snapshot.FormatError
		if errors.As(e, &fe) {
			f.Position, f.Line = fe.Offset, fe.Line
			f.Message = fe.Err.Error()
			if fe.Path != "" {
				f.File = fe.Path
			}
		}
		if fk == KindSnapshotCRC {
			f.Message += " (the broker deletes such a snapshot at load and rebuilds producer state from an older snapshot or from the log)"
		}
		out = append(out, f)
	}
	return out
}

// flatten splits errors.Join trees into their leaves.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}
