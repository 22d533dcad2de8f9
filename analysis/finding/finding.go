// Package finding is the one vocabulary of what ksleuth reports about its
// inputs: every finding kind, the severity it is reported with by default
// and what it means, and one constructor per origin (the segment reader,
// index parsers, state-file parsers, the partition checker). Every command
// reports findings as analysis.AnomalyRow values built here, so the same
// input gives the same kinds, severities, files and byte positions in
// `verify`, `scan`'s anomalies table and the report page.
package finding

import (
	"errors"
	"fmt"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

var byKind = func() map[Kind]Info {
	m := make(map[Kind]Info, len(Kinds))
	for _, k := range Kinds {
		m[k.Kind] = k
	}
	return m
}()

// Lookup returns what is known of kind.
func Lookup(kind Kind) (Info, bool) {
	i, ok := byKind[kind]
	return i, ok
}

// DefaultSeverity is kind's default severity (error for a kind not listed).
func DefaultSeverity(kind Kind) Severity {
	if i, ok := byKind[kind]; ok {
		return i.Severity
	}
	return Error
}

// Where locates a finding: the input it comes from, the partition it is
// about (Partition < 0 for none) and the file, relative to the input root.
type Where struct {
	Input     int32
	Topic     string
	Partition int32
	File      string
}

// New builds a finding of kind with its default severity. pos and off are
// -1 when no byte position or Kafka offset applies.
func New(w Where, kind Kind, pos, off int64, format string, args ...any) analysis.AnomalyRow {
	return NewSev(w, kind, DefaultSeverity(kind), pos, off, format, args...)
}

// NewSev builds a finding with an explicit severity.
func NewSev(w Where, kind Kind, severity Severity, pos, off int64, format string, args ...any) analysis.AnomalyRow {
	r := analysis.AnomalyRow{Input: w.Input, Kind: kind, Severity: severity, File: w.File, Message: fmt.Sprintf(format, args...)}
	if w.Partition >= 0 {
		t, p := w.Topic, w.Partition
		r.Topic, r.Partition = &t, &p
	}
	if pos >= 0 {
		r.Position = &pos
	}
	if off >= 0 {
		r.Offset = &off
	}
	return r
}

// WithProducer sets the producer a finding concerns.
func WithProducer(r analysis.AnomalyRow, pid int64) analysis.AnomalyRow {
	if pid >= 0 {
		r.ProducerID = &pid
	}
	return r
}

// WithLine sets the line of a text file a finding is about (line > 0).
func WithLine(r analysis.AnomalyRow, line int) analysis.AnomalyRow {
	if line > 0 {
		l := int32(line)
		r.Line = &l
	}
	return r
}

// FromCorruption is a segment reader's finding.
func FromCorruption(w Where, ce *segment.CorruptionError) analysis.AnomalyRow {
	return NewSev(w, ReaderKind(ce), ReaderSeverity(ce), ce.Offset, ce.BaseOffset, "%s", ce.Err.Error())
}

// ReaderKind is the kind of a segment reader's finding: package segment
// names its kinds with the same words (it cannot import this package; a
// test of analysis/lint holds every one of them to Kinds).
func ReaderKind(ce *segment.CorruptionError) Kind { return Kind(ce.Kind()) }

// ReaderSeverity is the severity the segment reader gives its finding,
// before GradeTruncated grades a torn batch by its place.
func ReaderSeverity(ce *segment.CorruptionError) Severity { return Severity(ce.Severity()) }

// ReaderDamage reports whether a segment reader's finding is damaged
// bytes: not zeros at the end of the file (a zero tail, a hole a note
// says is the file's end) nor a failed read, which say nothing of what
// the file holds.
func ReaderDamage(ce *segment.CorruptionError) bool {
	switch ReaderKind(ce) {
	case KindZeroTail, KindIOError:
		return false
	case KindSparseHole:
		return ReaderSeverity(ce) != Note
	}
	return true
}

// FromIndex is an index parser's finding.
func FromIndex(w Where, x *segment.IndexFinding) analysis.AnomalyRow {
	kind, sev := KindIndexFormat, Error
	switch {
	case errors.Is(x.Err, segment.ErrIndexZeroTail):
		kind, sev = KindIndexZeroTail, Note
	case Severity(x.Severity()) == Note:
		sev = Note
	}
	msg := x.Err.Error()
	if x.Entry >= 0 {
		msg = fmt.Sprintf("entry %d: %s", x.Entry, msg)
	}
	return NewSev(w, kind, sev, x.Position, -1, "%s", msg)
}

// FromState turns the error of a snapshot-package parser (one
// *snapshot.FormatError, or several joined) into findings: the byte or line
// it names and what was expected, never field values it did not read.
func FromState(w Where, kind snapshot.Kind, err error) []analysis.AnomalyRow {
	var out []analysis.AnomalyRow
	for _, e := range Flatten(err) {
		fk := KindStateFormat
		if kind == snapshot.KindSnapshot {
			fk = KindSnapshotFormat
			if errors.Is(e, snapshot.ErrCRC) {
				fk = KindSnapshotCRC
			}
		}
		pos, line, msg := int64(-1), 0, e.Error()
		var fe *snapshot.FormatError
		if errors.As(e, &fe) {
			msg = fe.Err.Error()
			if fe.Line > 0 {
				line = fe.Line
			} else {
				pos = fe.Offset
			}
		}
		if fk == KindSnapshotCRC {
			msg += " (the broker deletes such a snapshot at load and rebuilds producer state from an older snapshot or from the log)"
		}
		out = append(out, WithLine(New(w, fk, pos, -1, "%s", msg), line))
	}
	return out
}

// Flatten splits errors.Join trees into their leaves.
func Flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// Text is a finding's one-line form: "severity kind at byte N (offset O): message".
func Text(r *analysis.AnomalyRow) string {
	s := string(r.Severity) + " " + string(r.Kind)
	switch {
	case r.Line != nil:
		s += fmt.Sprintf(" at line %d", *r.Line)
	case r.Position != nil:
		s += fmt.Sprintf(" at byte %d", *r.Position)
	}
	if r.Offset != nil {
		s += fmt.Sprintf(" (offset %d)", *r.Offset)
	}
	return s + ": " + r.Message
}

// FromDecode is the finding for a record of an internal topic that does
// not decode, of the kind package topics names its error with, graded by
// DecodeSeverity: pos is the byte of the record's batch, off the record's
// offset.
func FromDecode(w Where, kind Kind, pos, off int64, err error) analysis.AnomalyRow {
	return NewSev(w, kind, DecodeSeverity(kind), pos, off, "%s", err.Error())
}

// WithOmitted makes a finding stand for n findings of its file that are
// not listed (n >= 0): every count of findings adds n for it.
func WithOmitted(r analysis.AnomalyRow, n int64) analysis.AnomalyRow {
	r.Omitted = &n
	return r
}

// Follows marks row as following from cause: it names cause in its
// caused_by column, so that summaries can fold it under the cause while
// the tables still count it.
func Follows(row analysis.AnomalyRow, cause *analysis.AnomalyRow) analysis.AnomalyRow {
	ref := analysis.FindingRef(cause)
	row.CausedBy = &ref
	return row
}
