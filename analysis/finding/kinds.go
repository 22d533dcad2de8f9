package finding

import "github.com/ksleuth/ksleuth/analysis"

// Kind is what a finding says; Kinds lists every one. It is the type of
// analysis.AnomalyRow's Kind, declared there because package analysis
// cannot import this one; it is named here, where the kinds are.
type Kind = analysis.FindingKind

// Severity grades a finding, and a loss of the ledger. It is the type of
// analysis.AnomalyRow's Severity (and analysis.GapRow's).
type Severity = analysis.Severity

// Severities, from worst to mildest. Errors are damage, lost data or
// contradictions between files; warnings are states a healthy broker does
// not leave behind but that have innocent explanations (a copy taken while
// the broker ran); notes are normal properties worth knowing.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Note    Severity = "note"
)

// Severities lists the severities, worst first.
var Severities = []Severity{Error, Warning, Note}

// Counts reports whether a severity counts for --fail-on-findings and
// verify's exit status: errors and warnings do, notes do not.
func Counts(severity Severity) bool { return severity == Error || severity == Warning }

// Rank orders severities, worst first.
func Rank(severity Severity) int {
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
	Kind     Kind
	Severity Severity // the default; a few kinds are graded by context
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
	OriginRemote    = "remote store"
)

// Kinds lists every kind ksleuth reports, in the order docs/findings.md
// shows them. A kind no package can emit has no place here, and a kind
// some package emits that is missing here is a bug the tests of package
// analysis/lint find.
var Kinds = []Info{
	// Damage inside segments, found by the reader.
	{KindCRCMismatch, Error, OriginReader, "a batch whose stored CRC does not match its bytes"},
	{KindTruncated, Error, OriginReader,
		"the file ends inside a batch: an error in a rolled segment or a KRaft snapshot, a warning " +
			"at the end of the active segment (a torn tail after a crash or a live copy), a note in a " +
			"segment that is not live"},
	{KindZeroTail, Note, OriginReader, "the file ends in zero bytes: preallocation, or a crash before the data reached the disk"},
	{KindUnknownMagic, Error, OriginReader, "a batch whose magic byte is not 0, 1 or 2"},
	{KindBadLength, Error, OriginReader, "a length field that no batch can have"},
	{KindRecordCountMismatch, Error, OriginReader, "the records of a batch disagree with its record count"},
	{KindBadRecord, Error, OriginReader, "a malformed record inside a batch"},
	{KindDecompressError, Error, OriginReader, "a compressed batch that cannot be decompressed"},
	{KindDecompressedTooLarge, Error, OriginReader, "a batch that decompresses to more than the reader allows"},
	{KindSkippedBytes, Error, OriginReader, "bytes between batches that belong to no batch"},
	{KindBadOffset, Error, OriginReader, "impossible offsets inside a batch or message set"},
	{KindOverlappingBatch, Error, OriginReader, "a valid batch starting inside the previous valid batch"},
	{KindSparseHole, Note, OriginReader,
		"a hole of a sparse file or archive entry (no data stored), passed over without being read: " +
			"a note at the end of a file (a preallocated segment), an error with data after it (bytes " +
			"lost between batches: a punched hole, blocks never written before a crash, or zeros a " +
			"sparse copy stored as a hole)"},
	{KindNotKafkaData, Error, OriginReader, "a file named like a Kafka file whose bytes are not that kind of file"},
	// The partition checker: offsets, segments, indexes, snapshots.
	{KindOffsetRegression, Error, OriginPartition, "a batch at or below offsets already seen in the partition"},
	{KindOffsetGap, Note, OriginPartition, "offsets absent between batches: a note where compaction explains them, a warning where nothing does"},
	{KindNameMismatch, Error, OriginPartition, "a segment holding a batch below the offset in its name"},
	{KindSegmentOverlap, Error, OriginPartition, "a segment named at or below offsets the segments before it hold"},
	{KindMissingSegment, Warning, OriginPartition,
		"offsets missing at a segment boundary with no evidence of compaction, index files without " +
			"their .log, or a partition dir with no .log file at all (an empty one too)"},
	{KindDeletedPartitionDir, Note, OriginPartition,
		"a partition dir renamed <topic>-<partition>.<id>-delete, which the broker removes after file.delete.delay.ms: " +
			"its topic or replica was deleted, so the offsets it lacks are not a loss (the note names what is left on disk)"},
	{KindFuturePartitionDir, Note, OriginPartition,
		"a partition dir renamed <topic>-<partition>.<id>-future: the replica AlterReplicaLogDirs is moving to this log dir, " +
			"a second copy in the same broker built from the live one; the offsets it lacks are not a loss"},
	{KindStrayPartitionDir, Note, OriginPartition,
		"a partition dir renamed <topic>-<partition>.<id>-stray: a replica the broker found it no longer hosts, " +
			"set aside for deletion; the offsets it lacks are not a loss"},
	{KindRemoteSegmentMissing, Error, OriginRemote,
		"a remote segment __remote_log_metadata says is held (copied, not deleted) whose .log the remote store root given as an input does not hold"},
	{KindRemoteSegmentDamaged, Error, OriginRemote,
		"a remote segment's .log that is damaged or does not hold the offsets __remote_log_metadata gives it: " +
			"the offsets past the intact batches it starts with are not held remotely"},
	{KindRemoteOrphan, Warning, OriginRemote,
		"a segment in the remote store root that __remote_log_metadata does not know, or knows as deleted or never finished: " +
			"the broker never reads it (left behind by a failed copy or delete)"},
	{KindRemoteOverlapDiffers, Error, OriginRemote,
		"a batch of a local segment whose offsets a remote segment also holds, with other bytes (CRC or last offset): " +
			"the two copies of one log disagree"},
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
	{KindCheckpointAhead, Warning, OriginLogDir,
		"a checkpoint offset beyond the data on disk (in the loss ledger placed at the zeros when " +
			"the active segment ends in them)"},
	{KindLogStartAhead, Note, OriginLogDir, "the log start offset above the first offset on disk (DeleteRecords, retention)"},
	{KindCheckpointStale, Note, OriginLogDir, "a checkpoint below the data, or naming a partition not present"},
	// Producer sessions and the internal topics.
	{KindSequenceGap, Warning, OriginProducer, "a producer's batch starting past the sequence expected"},
	{KindSequenceRegression, Warning, OriginProducer, "a producer's sequence going back within one epoch"},
	{KindEpochRegression, Warning, OriginProducer, "a producer's epoch going back"},
	{KindHangingTransaction, Warning, OriginProducer,
		"a transaction open at the end of the input: it holds back the last stable offset " +
			"(read_committed consumers stop there); a warning when no coordinator is known to end it, a " +
			"note while __transaction_state lists it as in progress"},
	{KindUnknownVersion, Warning, OriginAttr, "a record of an internal topic in a version ksleuth does not decode"},
	{KindUnknownType, Warning, OriginAttr, "a record of an internal topic of a type ksleuth does not decode"},
	{KindTrailingBytes, Error, OriginAttr,
		"a record of an internal topic with bytes left after the last field of its schema; the " +
			"broker reads by the schema and ignores them, so a consumer offset commit is still used"},
	{KindMalformedRecord, Error, OriginAttr,
		"a record of an internal topic whose key or value does not parse under its schema (a length " +
			"past the end, a count larger than the bytes left, a null where none is allowed)"},
	// Copies of one partition on several brokers.
	{KindReplicaDivergence, Error, OriginReplicas,
		"a partition copy holding offsets outside the leader-epoch history of the reference copy " +
			"(the highest last leader epoch): an unclean election or a lost leader's tail, which the " +
			"broker truncates when it follows again, or batches that differ within one leader epoch (a " +
			"copy altered outside replication); their records are lost"},
	{KindReplicaAhead, Warning, OriginReplicas,
		"a partition copy holding offsets past the end of the reference copy in the same leader " +
			"epoch: the reference was copied earlier, or lags"},
	{KindReplicaLagging, Note, OriginReplicas, "a partition copy that is a prefix of the reference copy: a follower behind its leader, or copied earlier"},
	// Record values in the Confluent wire format (--decode-values auto).
	// Notes: the log holds the bytes whatever they mean, and a plain value
	// can start with a zero byte without being in the wire format at all.
	{KindSchemaRecord, Note, OriginPayload,
		"a record of the schema registry's _schemas topic that defines no usable schema: a key or " +
			"value that is not the registry's JSON, an id defined twice with different schemas, a " +
			"schema that does not parse or whose references are not in the inputs"},
	{KindPayloadUndecoded, Note, OriginPayload,
		"values in the Confluent wire format whose schema is in the inputs but which do not decode " +
			"with it (counted per partition and schema id): a value that only starts with a zero byte, " +
			"or one written with another registry's ids; the raw bytes are kept"},
	// Inputs.
	{KindIOError, Error, OriginInput, "a file or directory that could not be read"},
	{KindArchiveDamaged, Error, OriginInput, "an archive that cannot be read past some point"},
	{KindArchiveNotTar, Error, OriginInput, "a file given as an archive that is no tar archive at all, whatever its name says"},
	{KindArchiveTrailingData, Warning, OriginInput,
		"data after the end of a tar archive: nothing of the archive is lost, but the file holds " +
			"more than the archive"},
	{KindUnsafePath, Warning, OriginInput, "an archive entry name that leaves the archive root"},
	{KindDuplicateEntry, Warning, OriginInput, "an archive entry name seen before"},
	{KindSkippedFile, Note, OriginInput, "a file listed but not read (a symlink, a special file)"},
	{KindFileTooLarge, Error, OriginInput, "an index or state file larger than any the broker writes, not parsed"},
	{KindNotHashed, Note, OriginInput, "a file whose sha256 is not computed: its holes are more zeros than ksleuth hashes"},
	{KindFindingsOmitted, Note, OriginInput,
		"stands for the findings of one severity of one file past the listing cap, with their " +
			"severity (one row per severity among them); they are counted at it"},
}

// The kinds, one constant each, in the order of Kinds.
const (
	KindCRCMismatch          Kind = "crc-mismatch"
	KindTruncated            Kind = "truncated-batch"
	KindZeroTail             Kind = "zero-tail"
	KindUnknownMagic         Kind = "unknown-magic"
	KindBadLength            Kind = "bad-length"
	KindRecordCountMismatch  Kind = "record-count-mismatch"
	KindBadRecord            Kind = "bad-record"
	KindDecompressError      Kind = "decompress-error"
	KindDecompressedTooLarge Kind = "decompressed-too-large"
	KindSkippedBytes         Kind = "skipped-bytes"
	KindBadOffset            Kind = "bad-offset"
	KindOverlappingBatch     Kind = "overlapping-batch"
	KindSparseHole           Kind = "sparse-hole"
	KindNotKafkaData         Kind = "not-kafka-data"

	KindOffsetRegression Kind = "offset-regression"
	KindOffsetGap        Kind = "offset-gap"
	KindNameMismatch     Kind = "name-mismatch"
	KindSegmentOverlap   Kind = "segment-overlap"
	KindMissingSegment   Kind = "missing-segment"

	KindDeletedPartitionDir Kind = "deleted-partition-dir"
	KindFuturePartitionDir  Kind = "future-partition-dir"
	KindStrayPartitionDir   Kind = "stray-partition-dir"

	KindRemoteSegmentMissing Kind = "remote-segment-missing"
	KindRemoteSegmentDamaged Kind = "remote-segment-damaged"
	KindRemoteOrphan         Kind = "remote-orphan"
	KindRemoteOverlapDiffers Kind = "remote-overlap-differs"

	KindIndexMismatch    Kind = "index-mismatch"
	KindIndexFormat      Kind = "index-format"
	KindIndexZeroTail    Kind = "index-zero-tail"
	KindTxnIndexMismatch Kind = "txnindex-mismatch"
	KindSnapshotCRC      Kind = "snapshot-crc"
	KindSnapshotFormat   Kind = "snapshot-format"
	KindSnapshotMismatch Kind = "snapshot-mismatch"
	KindSnapshotAhead    Kind = "snapshot-ahead"
	KindNotVerifiable    Kind = "not-verifiable"

	KindStateFormat     Kind = "state-format"
	KindStateNote       Kind = "state-note"
	KindLeftover        Kind = "leftover-file"
	KindCheckpointAhead Kind = "checkpoint-ahead"
	KindLogStartAhead   Kind = "log-start-ahead"
	KindCheckpointStale Kind = "checkpoint-stale"

	KindSequenceGap        Kind = "sequence-gap"
	KindSequenceRegression Kind = "sequence-regression"
	KindEpochRegression    Kind = "epoch-regression"
	KindHangingTransaction Kind = "hanging-transaction"
	KindUnknownVersion     Kind = "unknown-version"
	KindUnknownType        Kind = "unknown-type"
	KindTrailingBytes      Kind = "trailing-bytes"
	KindMalformedRecord    Kind = "malformed-record"

	KindReplicaDivergence Kind = "replica-divergence"
	KindReplicaAhead      Kind = "replica-ahead"
	KindReplicaLagging    Kind = "replica-lagging"

	KindSchemaRecord     Kind = "schema-record-invalid"
	KindPayloadUndecoded Kind = "payload-undecoded"

	KindIOError             Kind = "io-error"
	KindArchiveDamaged      Kind = "archive-damaged"
	KindArchiveNotTar       Kind = "archive-not-tar"
	KindArchiveTrailingData Kind = "archive-trailing-data"
	KindUnsafePath          Kind = "unsafe-path"
	KindDuplicateEntry      Kind = "duplicate-entry"
	KindSkippedFile         Kind = "skipped-file"
	KindFileTooLarge        Kind = "file-too-large"
	KindNotHashed           Kind = "not-hashed"
	KindFindingsOmitted     Kind = "findings-omitted"
)

// AboutArchive reports whether kind is a finding about an archive as a
// whole (its reading stopped, or it is no archive, or data follows it),
// not about one of its entries.
func AboutArchive(kind Kind) bool {
	return kind == KindArchiveDamaged || kind == KindArchiveNotTar || kind == KindArchiveTrailingData
}

// DecodeSeverity is the severity of a record of an internal topic that
// does not decode: an unknown version or record type is a warning (a newer
// broker wrote it, nothing is damaged), anything else is damage, an error.
func DecodeSeverity(kind Kind) Severity {
	if kind == KindUnknownVersion || kind == KindUnknownType {
		return Warning
	}
	return Error
}

// KindSeverity is a kind at one severity: findings are counted by both,
// since a kind's findings need not all have its default severity.
type KindSeverity struct {
	Kind     Kind
	Severity Severity
}

// Tally is how many findings there are of each kind and severity.
type Tally = map[KindSeverity]int64
