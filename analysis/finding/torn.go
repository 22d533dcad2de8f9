package finding

import (
	"fmt"

	"github.com/ksleuth/ksleuth/analysis"
)

// Place says where a file with a torn batch (a truncated-batch finding)
// stands, which decides what the tear means. The segment reader cannot
// tell: it sees one file. Every command that knows the place grades the
// finding with GradeTruncated, so one tear gets one severity everywhere.
type Place int

const (
	// NotLive: a .deleted, .cleaned, .swap or leftover file, not part of
	// the live log. The reader's severity (a note) stands.
	NotLive Place = iota
	// ActiveSegment: the live segment with the highest base offset of its
	// partition dir, the one the broker appends to.
	ActiveSegment
	// RolledSegment: a live segment with a later one beside it.
	RolledSegment
	// WrittenWhole: a file the broker writes whole and renames into place
	// (a KRaft snapshot, bootstrap.checkpoint).
	WrittenWhole
	// UnknownPlace: a live segment given on its own whose directory could
	// not be listed, so nothing says whether a later segment follows it.
	UnknownPlace
)

// GradeTruncated sets the severity of a truncated-batch finding by the
// place of its file (DESIGN's severity of a loss), and says why in its
// message; it leaves any other finding as it is. A tear at the end of the
// active segment is a warning: a crash, or a copy taken while the broker
// wrote, leaves one. A tear anywhere else in the live log is written data
// that can no longer be read: an error. A tear whose place is unknown is a
// warning that says so.
func GradeTruncated(f *analysis.AnomalyRow, p Place) {
	if f.Kind != KindTruncated {
		return
	}
	switch p {
	case ActiveSegment:
		f.Severity = Warning
		f.Message += " (at the end of the active segment: a torn tail, left by a crash or a copy taken while the broker wrote)"
	case RolledSegment:
		f.Severity = Error
		f.Message += " (in a rolled segment, which the broker had finished writing: the data is lost)"
	case WrittenWhole:
		f.Severity = Error
		f.Message += " (the broker writes this file whole and renames it into place: a torn one is damaged)"
	case UnknownPlace:
		// Without the evidence of a later segment it cannot be called
		// lost, nor can it be called the active segment.
		f.Severity = Warning
		f.Message += " (at the end of a segment given on its own whose directory could not be listed: a torn tail if it is the active segment, lost data if a later segment follows it)"
	}
}

// PlaceBeside is the place of a live segment given on its own, from what
// its directory shows (source.LaterSegment): next is the base offset of
// the later live segment beside it, -1 for none, and err says the
// directory could not be listed. Every command that reads a file on its
// own judges it so.
func PlaceBeside(next int64, err error) Place {
	switch {
	case err != nil:
		return UnknownPlace
	case next >= 0:
		return RolledSegment
	}
	return ActiveSegment
}

// TornFromStart reports whether a finding of kind at byte pos says that
// the file starts with a batch header (a valid magic and length) whose
// batch the file ends inside: its bytes are Kafka data cut short, a torn
// batch (graded by GradeTruncated), not something that is no segment.
func TornFromStart(kind Kind, pos int64) bool { return kind == KindTruncated && pos == 0 }

// NotKafkaData is the finding for a live segment of size bytes in which
// no batch could be read, though its bytes are not just zeros: every
// command that reads a whole segment says so in the same words.
func NotKafkaData(w Where, size int64) analysis.AnomalyRow {
	return New(w, KindNotKafkaData, 0, -1,
		"no Kafka record batch could be read in its %d bytes: the file is not a Kafka segment, or is damaged beyond recognition", size)
}

// CleanStop is what a log dir says of how its broker stopped a partition:
// Clean when it holds .kafka_cleanshutdown, and the partition's entry in
// its recovery-point-offset-checkpoint when HasPoint.
type CleanStop struct {
	Clean         bool
	RecoveryPoint int64
	HasPoint      bool
}

// LostAfterStop reports whether offsets from first on, missing from the
// end of the active segment, went missing after a clean stop: a broker
// that stops cleanly flushes its logs and sets the recovery point to the
// log end, so a recovery point past first says those bytes were written.
func (s CleanStop) LostAfterStop(first int64) bool {
	return s.Clean && s.HasPoint && s.RecoveryPoint > first
}

// GradeActiveTear grades a torn batch at the end of the active segment,
// whose first missing offset is first: a loss (an error) in a log dir
// stopped cleanly past it, else a torn tail (GradeTruncated). verify and
// records both grade a tear of the active segment so.
func GradeActiveTear(f *analysis.AnomalyRow, s CleanStop, first int64) {
	if f.Kind != KindTruncated {
		return
	}
	if !s.LostAfterStop(first) {
		GradeTruncated(f, ActiveSegment)
		return
	}
	f.Severity = Error
	f.Message += fmt.Sprintf(" (at the end of the active segment of a log dir the broker stopped cleanly: .kafka_cleanshutdown is present "+
		"and the recovery point %d is past the tear, so the broker had flushed these bytes; they were lost after the stop)", s.RecoveryPoint)
}
