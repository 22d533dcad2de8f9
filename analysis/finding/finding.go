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

// Severities, from worst to mildest. Errors are damage, lost data or
// contradictions between files; warnings are states a healthy broker does
// not leave behind but that have innocent explanations (a copy taken while
// the broker ran); notes are normal properties worth knowing.
const (
	Error   = "error"
	Warning = "warning"
	Note    = "note"
)

// Counts reports whether a severity counts for --fail-on-findings and
// verify's exit status: errors and warnings do, notes do not.
func Counts(severity string) bool { return severity == Error || severity == Warning }

// Rank orders severities, worst first.
func Rank(severity string) int {
	switch severity {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Info describes one finding kind.
type Info struct {
	Kind     string
	Severity string // the default; a few kinds are graded by context
	Origin   string
	Meaning  string
}

// Origins of findings.
const (
	OriginReader    = "segment reader"
	OriginIndex     = "index file"
	OriginState     = "state file"
	OriginSnapshot  = "producer snapshot"
	OriginPartition = "partition checker"
	OriginLogDir    = "log-dir checker"
	OriginProducer  = "producer sessions"
	OriginAttr      = "internal topics"
	OriginInput     = "input"
	OriginReplicas  = "replica comparison"
	OriginPayload   = "payload decoder"
)

// Kinds lists every kind ksleuth reports, in the order docs/findings.md
// shows them.
var Kinds = []Info{
	// Damage inside segments, found by the reader.
	{"crc-mismatch", Error, OriginReader, "a batch whose stored CRC does not match its bytes"},
	{"truncated-batch", Error, OriginReader, "the file ends inside a batch: an error in a rolled segment or a KRaft snapshot, a warning at the end of the active segment (a torn tail after a crash or a live copy), a note in a segment that is not live"},
	{"zero-tail", Note, OriginReader, "the file ends in zero bytes: preallocation, or a crash before the data reached the disk"},
	{"unknown-magic", Error, OriginReader, "a batch whose magic byte is not 0, 1 or 2"},
	{"bad-length", Error, OriginReader, "a length field that no batch can have"},
	{"record-count-mismatch", Error, OriginReader, "the records of a batch disagree with its record count"},
	{"bad-record", Error, OriginReader, "a malformed record inside a batch"},
	{"decompress-error", Error, OriginReader, "a compressed batch that cannot be decompressed"},
	{"decompressed-too-large", Error, OriginReader, "a batch that decompresses to more than the reader allows"},
	{"skipped-bytes", Error, OriginReader, "bytes between batches that belong to no batch"},
	{"bad-offset", Error, OriginReader, "impossible offsets inside a batch or message set"},
	{"overlapping-batch", Error, OriginReader, "a valid batch starting inside the previous valid batch"},
	{KindSparseHole, Note, OriginReader, "a hole of a sparse file or archive entry (no data stored), passed over without being read: a note at the end of a file (a preallocated segment), an error with data after it (bytes lost between batches: a punched hole, blocks never written before a crash, or zeros a sparse copy stored as a hole)"},
	{KindNotKafkaData, Error, OriginReader, "a file named like a Kafka file whose bytes are not that kind of file"},
	// The partition checker: offsets, segments, indexes, snapshots.
	{KindOffsetRegression, Error, OriginPartition, "a batch at or below offsets already seen in the partition"},
	{KindOffsetGap, Note, OriginPartition, "offsets absent between batches: a note where compaction explains them, a warning where nothing does"},
	{KindNameMismatch, Error, OriginPartition, "a segment holding a batch below the offset in its name"},
	{KindSegmentOverlap, Error, OriginPartition, "a segment named at or below offsets the segments before it hold"},
	{KindMissingSegment, Warning, OriginPartition, "offsets missing at a segment boundary with no evidence of compaction, index files without their .log, or a partition dir with no .log file at all (an empty one too)"},
	{KindIndexMismatch, Error, OriginIndex, "an .index or .timeindex entry that disagrees with the log"},
	{KindIndexFormat, Error, OriginIndex, "an index file that does not parse cleanly (size, order, range)"},
	{KindIndexZeroTail, Note, OriginIndex, "preallocated zero slots at the end of an index"},
	{KindTxnIndexMismatch, Error, OriginIndex, "a .txnindex entry without its ABORT marker (error), or an ABORT marker not indexed (warning)"},
	{KindSnapshotCRC, Error, OriginSnapshot, "a producer snapshot whose CRC fails: the broker deletes it at load"},
	{KindSnapshotFormat, Error, OriginSnapshot, "a producer snapshot that does not parse"},
	{KindSnapshotMismatch, Error, OriginSnapshot, "a snapshot that disagrees with the producer state rebuilt from the log"},
	{KindSnapshotAhead, Warning, OriginSnapshot, "a snapshot whose offset is beyond the log end"},
	{KindNotVerifiable, Note, OriginSnapshot, "state that refers to data no longer on disk, or a check that could not be made"},
	// State files and the log dir.
	{KindStateFormat, Error, OriginState, "a checkpoint, metadata or properties file that does not parse"},
	{KindStateNote, Note, OriginState, "something worth knowing about a state file's content"},
	{KindLeftover, Note, OriginState, ".tmp, .deleted, .cleaned and .swap files: work in progress the broker completes or removes at its next start"},
	{KindCheckpointAhead, Warning, OriginLogDir, "a checkpoint offset beyond the data on disk (in the loss ledger placed at the zeros when the active segment ends in them)"},
	{KindLogStartAhead, Note, OriginLogDir, "the log start offset above the first offset on disk (DeleteRecords, retention)"},
	{KindCheckpointStale, Note, OriginLogDir, "a checkpoint below the data, or naming a partition not present"},
	// Producer sessions and the internal topics.
	{"sequence-gap", Warning, OriginProducer, "a producer's batch starting past the sequence expected"},
	{"sequence-regression", Warning, OriginProducer, "a producer's sequence going back within one epoch"},
	{"epoch-regression", Warning, OriginProducer, "a producer's epoch going back"},
	{KindHangingTransaction, Warning, OriginProducer, "a transaction open at the end of the input: it holds back the last stable offset (read_committed consumers stop there); a warning when no coordinator is known to end it, a note while __transaction_state lists it as in progress"},
	{"unknown-version", Warning, OriginAttr, "a record of an internal topic in a version ksleuth does not decode"},
	{"unknown-type", Warning, OriginAttr, "a record of an internal topic of a type ksleuth does not decode"},
	// Copies of one partition on several brokers.
	{KindReplicaDivergence, Error, OriginReplicas, "a partition copy holding offsets outside the leader-epoch history of the reference copy (the highest last leader epoch): an unclean election or a lost leader's tail, which the broker truncates when it follows again, or batches that differ within one leader epoch (a copy altered outside replication); their records are lost"},
	{KindReplicaAhead, Warning, OriginReplicas, "a partition copy holding offsets past the end of the reference copy in the same leader epoch: the reference was copied earlier, or lags"},
	{KindReplicaLagging, Note, OriginReplicas, "a partition copy that is a prefix of the reference copy: a follower behind its leader, or copied earlier"},
	// Record values in the Confluent wire format (--decode-values auto).
	// Notes: the log holds the bytes whatever they mean, and a plain value
	// can start with a zero byte without being in the wire format at all.
	{KindSchemaRecord, Note, OriginPayload, "a record of the schema registry's _schemas topic that defines no usable schema: a key or value that is not the registry's JSON, an id defined twice with different schemas, a schema that does not parse or whose references are not in the inputs"},
	{KindPayloadUndecoded, Note, OriginPayload, "values in the Confluent wire format whose schema is in the inputs but which do not decode with it (counted per partition and schema id): a value that only starts with a zero byte, or one written with another registry's ids; the raw bytes are kept"},
	// Inputs.
	{KindIOError, Error, OriginInput, "a file or directory that could not be read"},
	{"archive-damaged", Error, OriginInput, "an archive that cannot be read past some point"},
	{"unsafe-path", Warning, OriginInput, "an archive entry name that leaves the archive root"},
	{"duplicate-entry", Warning, OriginInput, "an archive entry name seen before"},
	{"skipped-file", Note, OriginInput, "a file listed but not read (a symlink, a special file)"},
	{"file-too-large", Error, OriginInput, "an index or state file larger than any the broker writes, not parsed"},
	{KindNotHashed, Note, OriginInput, "a file whose sha256 is not computed: its holes are more zeros than ksleuth hashes"},
	{"findings-omitted", Note, OriginInput, "stands for the findings of one severity of one file past the listing cap, with their severity (one row per severity among them); they are counted at it"},
}

// Finding kinds named in code.
const (
	KindNotKafkaData     = "not-kafka-data"
	KindOffsetRegression = "offset-regression"
	KindOffsetGap        = "offset-gap"
	KindNameMismatch     = "name-mismatch"
	KindSegmentOverlap   = "segment-overlap"
	KindMissingSegment   = "missing-segment"
	KindIndexMismatch    = "index-mismatch"
	KindIndexFormat      = "index-format"
	KindIndexZeroTail    = "index-zero-tail"
	KindTxnIndexMismatch = "txnindex-mismatch"
	KindSnapshotCRC      = "snapshot-crc"
	KindSnapshotFormat   = "snapshot-format"
	KindSnapshotMismatch = "snapshot-mismatch"
	KindSnapshotAhead    = "snapshot-ahead"
	KindNotVerifiable    = "not-verifiable"
	KindStateFormat      = "state-format"
	KindStateNote        = "state-note"
	KindLeftover         = "leftover-file"
	KindCheckpointAhead  = "checkpoint-ahead"
	KindLogStartAhead    = "log-start-ahead"
	KindCheckpointStale  = "checkpoint-stale"
	KindIOError          = "io-error"
	KindTruncated        = "truncated-batch"
	KindZeroTail         = "zero-tail"
	KindFindingsOmitted  = "findings-omitted"
	KindSparseHole       = "sparse-hole"
	KindNotHashed        = "not-hashed"

	KindReplicaDivergence = "replica-divergence"
	KindReplicaAhead      = "replica-ahead"
	KindReplicaLagging    = "replica-lagging"

	KindSchemaRecord     = "schema-record-invalid"
	KindPayloadUndecoded = "payload-undecoded"
	// KindHangingTransaction is package txns' finding.
	KindHangingTransaction = "hanging-transaction"
)

var byKind = func() map[string]Info {
	m := make(map[string]Info, len(Kinds))
	for _, k := range Kinds {
		m[k.Kind] = k
	}
	return m
}()

// Lookup returns what is known of kind.
func Lookup(kind string) (Info, bool) {
	i, ok := byKind[kind]
	return i, ok
}

// DefaultSeverity is kind's default severity (error for a kind not listed).
func DefaultSeverity(kind string) string {
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
func New(w Where, kind string, pos, off int64, format string, args ...any) analysis.AnomalyRow {
	return NewSev(w, kind, DefaultSeverity(kind), pos, off, format, args...)
}

// NewSev builds a finding with an explicit severity.
func NewSev(w Where, kind, severity string, pos, off int64, format string, args ...any) analysis.AnomalyRow {
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
	return NewSev(w, ce.Kind(), ce.Severity(), ce.Offset, ce.BaseOffset, "%s", ce.Err.Error())
}

// FromIndex is an index parser's finding.
func FromIndex(w Where, x *segment.IndexFinding) analysis.AnomalyRow {
	kind, sev := KindIndexFormat, Error
	switch {
	case errors.Is(x.Err, segment.ErrIndexZeroTail):
		kind, sev = KindIndexZeroTail, Note
	case x.Severity() == Note:
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
	s := r.Severity + " " + r.Kind
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

// Follows marks row as following from cause: it names cause in its
// caused_by column, so that summaries can fold it under the cause while
// the tables still count it.
func Follows(row analysis.AnomalyRow, cause *analysis.AnomalyRow) analysis.AnomalyRow {
	ref := analysis.FindingRef(cause)
	row.CausedBy = &ref
	return row
}
