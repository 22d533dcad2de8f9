// Package analysis holds the row types of the tables ksleuth writes
// (every column in docs/tables.md) and the pure computations behind them.
//
// Row types carry both `json` and `parquet` tags, so one struct serves the
// Parquet and JSON-lines sinks of package analysis/export. Column names are
// the stable contract: columns may be added, never renamed. Times are int64
// milliseconds tagged TIMESTAMP(MILLIS, UTC); a Kafka "no timestamp" (-1)
// is a null. Every table that concerns a partition carries topic and
// partition; `input` is the 0-based index of the PATH argument the row came
// from (the run's key-value metadata lists the inputs in order), so replicas
// of one partition copied from several brokers stay apart. `source` names
// that input for good: the path as given, plus "#broker=N" when the input
// is a log dir whose meta.properties names its broker or node id. Unlike
// the index it stays unique when the tables of scans run on several
// machines are combined (see docs/scale-out.md).
package analysis

// FileRow is one row of files.parquet: every input file, with its SHA-256
// (the chain of custody). Topic and partition are null for files outside a
// partition dir (meta.properties, checkpoints).
type FileRow struct {
	Input     int32   `parquet:"input" json:"input"`
	Source    string  `parquet:"source,dict" json:"source"`
	Topic     *string `parquet:"topic,optional,dict" json:"topic"`
	Partition *int32  `parquet:"partition,optional" json:"partition"`
	// Path is relative to the input root (for an archive: the entry name).
	Path string `parquet:"path,dict" json:"path"`
	// Kind is the file kind judged from its name (log, index, snapshot,
	// meta-properties, ...; unknown for anything else).
	Kind string `parquet:"kind,dict" json:"kind"`
	// Suffix marks files in transit: .deleted, .cleaned, .swap, .tmp, .part.
	Suffix string `parquet:"suffix,dict" json:"suffix"`
	// DirState is delete, future or stray for such partition dirs.
	DirState string `parquet:"dir_state,dict" json:"dir_state"`
	// BrokerID is broker.id or node.id from the log dir's meta.properties.
	BrokerID *int32 `parquet:"broker_id,optional" json:"broker_id"`
	Size     int64  `parquet:"size" json:"size"`
	SHA256   string `parquet:"sha256" json:"sha256"`
	// Status: ok, notes (only notes, e.g. a zero-filled tail), damaged
	// (error findings), skipped (a symlink, not followed) or unreadable.
	Status      string `parquet:"status,dict" json:"status"`
	FirstOffset *int64 `parquet:"first_offset,optional" json:"first_offset"`
	LastOffset  *int64 `parquet:"last_offset,optional" json:"last_offset"`
	Batches     int64  `parquet:"batches" json:"batches"`
	Records     int64  `parquet:"records" json:"records"`
	Findings    int64  `parquet:"findings" json:"findings"`
}

// BatchRow is one row of batches.parquet: one v2 record batch, or one
// top-level legacy (magic 0/1) message, of a segment (.log, also .deleted,
// .cleaned, .swap) or KRaft snapshot file.
type BatchRow struct {
	Input     int32  `parquet:"input,delta" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition,delta" json:"partition"`
	// Segment is the file's path relative to the input root.
	Segment              string `parquet:"segment,dict" json:"segment"`
	Position             int64  `parquet:"position,delta" json:"position"`
	BaseOffset           int64  `parquet:"base_offset,delta" json:"base_offset"`
	LastOffset           int64  `parquet:"last_offset,delta" json:"last_offset"`
	RecordCount          int32  `parquet:"record_count,delta" json:"record_count"`
	Magic                int32  `parquet:"magic,delta" json:"magic"`
	Codec                string `parquet:"codec,dict" json:"codec"`
	SizeBytes            int64  `parquet:"size_bytes,delta" json:"size_bytes"`
	CRC                  int64  `parquet:"crc" json:"crc"`
	CRCValid             bool   `parquet:"crc_valid" json:"crc_valid"`
	IsTransactional      bool   `parquet:"is_transactional" json:"is_transactional"`
	IsControl            bool   `parquet:"is_control" json:"is_control"`
	PartitionLeaderEpoch int32  `parquet:"partition_leader_epoch,delta" json:"partition_leader_epoch"`
	ProducerID           int64  `parquet:"producer_id,delta" json:"producer_id"`
	ProducerEpoch        int32  `parquet:"producer_epoch,delta" json:"producer_epoch"`
	BaseSequence         int32  `parquet:"base_sequence,delta" json:"base_sequence"`
	FirstTimestamp       *int64 `parquet:"first_timestamp,optional,timestamp(millisecond:utc)" json:"first_timestamp"`
	MaxTimestamp         *int64 `parquet:"max_timestamp,optional,timestamp(millisecond:utc)" json:"max_timestamp"`
	// TimestampType is CreateTime, LogAppendTime or NoTimestampType.
	TimestampType string `parquet:"timestamp_type,dict" json:"timestamp_type"`
	// DecodedRecords is how many records could be read; it differs from
	// RecordCount only for a damaged batch.
	DecodedRecords int32 `parquet:"decoded_records,delta" json:"decoded_records"`
	// ControlType names the control record of a control batch (COMMIT,
	// ABORT, LEADER_CHANGE, ...), empty otherwise.
	ControlType string `parquet:"control_type,dict" json:"control_type"`

	// What the integrity checker needs beyond the table's columns: of a
	// control batch's first record the coordinator epoch and timestamp
	// (HasMarker false when it has none), and whether the batch carries
	// the log cleaner's delete horizon.
	HasMarker        bool  `parquet:"-" json:"-"`
	MarkerType       int16 `parquet:"-" json:"-"`
	MarkerEpoch      int32 `parquet:"-" json:"-"`
	MarkerTimestamp  int64 `parquet:"-" json:"-"`
	DeleteHorizonSet bool  `parquet:"-" json:"-"`
	// SoleCopy: no other partition dir of the run holds the batch's
	// partition, so the replica comparison need not keep its header; not
	// a column.
	SoleCopy bool `parquet:"-" json:"-"`
}

// GapRow is one row of gaps.parquet, the loss ledger: an offset range of
// a partition copy that cannot be read, why, and the evidence for it.
type GapRow struct {
	Input     int32  `parquet:"input" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	// Dir is the partition dir, relative to the input root.
	Dir         string `parquet:"dir,dict" json:"dir"`
	FirstOffset int64  `parquet:"first_offset" json:"first_offset"`
	// LastOffset is null when the end of the range is unknown (a torn
	// tail with nothing after it to bound it).
	LastOffset *int64 `parquet:"last_offset,optional" json:"last_offset"`
	// Cause is retention, delete-records, compaction, truncated-batch,
	// damaged-batch, missing-segment, checkpoint-ahead, unread,
	// replica-divergence or unknown.
	Cause    string   `parquet:"cause,dict" json:"cause"`
	Severity Severity `parquet:"severity,dict" json:"severity"`
	// File and Position name the evidence: the damaged batch, the segment
	// after a missing one, the checkpoint.
	File        string `parquet:"file,dict" json:"file"`
	Position    *int64 `parquet:"position,optional" json:"position"`
	Explanation string `parquet:"explanation" json:"explanation"`
	// ReferenceEpoch is set for replica-divergence only: the leader epoch
	// in which the reference copy holds these offsets. A consumer's commit
	// in that epoch or a later one read the reference's records at these
	// offsets, not the lost ones.
	ReferenceEpoch *int32 `parquet:"reference_epoch,optional" json:"reference_epoch"`
}

// RecordRow is one row of the records dataset (scan --records):
// records/part-<topic>-NNNNN.parquet.
type RecordRow struct {
	Input     int32  `parquet:"input" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	Segment   string `parquet:"segment,dict" json:"segment"`
	// Dir is the partition dir relative to the input root (the segment's
	// directory): with source it names the replica a record was read from.
	Dir string `parquet:"dir,dict" json:"dir"`
	// BatchPosition is the byte position of the record's batch, the join
	// key with batches.parquet together with segment.
	BatchPosition int64  `parquet:"batch_position" json:"batch_position"`
	Offset        int64  `parquet:"offset" json:"offset"`
	Timestamp     *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)" json:"timestamp"`
	// TimestampType says who set the timestamp, from the batch's
	// attributes: CreateTime (the producer), LogAppendTime (the broker),
	// or NoTimestampType (magic 0, which has none).
	TimestampType string `parquet:"timestamp_type,dict" json:"timestamp_type"`
	ProducerID    int64  `parquet:"producer_id" json:"producer_id"`
	ProducerEpoch int32  `parquet:"producer_epoch" json:"producer_epoch"`
	Sequence      int32  `parquet:"sequence" json:"sequence"`
	KeySize       int32  `parquet:"key_size" json:"key_size"`
	ValueSize     int32  `parquet:"value_size" json:"value_size"`
	HeaderCount   int32  `parquet:"header_count" json:"header_count"`
	// Fingerprint is the record's fingerprint as 32 hex digits, over key,
	// value and headers (the parts the scan's --match and --ignore-header
	// chose, recorded in the ksleuth.fingerprint metadata); empty for
	// control records, which are never fingerprinted.
	Fingerprint string `parquet:"fingerprint" json:"fingerprint"`
	// FP is Fingerprint as bytes, carried in memory from the scan to the
	// duplicate detector so it need not parse the hex again; not a column.
	FP    [16]byte `parquet:"-" json:"-"`
	HasFP bool     `parquet:"-" json:"-"`
	// SoleCopy: no other partition dir of the run holds the record's
	// partition, so the replica comparison need not keep its fingerprint;
	// not a column.
	SoleCopy bool `parquet:"-" json:"-"`
	// TxnState is none (not transactional), committed, aborted or open (no
	// marker in the input).
	TxnState  string `parquet:"txn_state,dict" json:"txn_state"`
	IsControl bool   `parquet:"is_control" json:"is_control"`
	// Damaged marks a record of a damaged batch (CRC mismatch or records
	// that could not all be decoded): its content is not verified.
	Damaged bool `parquet:"damaged" json:"damaged"`
}

// Header is one record header of the records table with --payload.
type Header struct {
	Key   string `parquet:"key" json:"key"`
	Value []byte `parquet:"value,optional" json:"value"`
}

// PayloadRecordRow is RecordRow plus the payload (scan --payload). A null
// key or value is a null; an empty one is an empty byte array.
type PayloadRecordRow struct {
	RecordRow
	Key     []byte   `parquet:"key,optional" json:"key"`
	Value   []byte   `parquet:"value,optional" json:"value"`
	Headers []Header `parquet:"headers,list" json:"headers"`
	// ValueSchemaID is the schema id of a value in the Confluent wire
	// format (a zero byte, then the id), null for any other value or with
	// --decode-values none.
	ValueSchemaID *int32 `parquet:"value_schema_id,optional" json:"value_schema_id"`
	// ValueDecoded is that value as JSON when its schema is in the inputs
	// and it decoded (Avro JSON encoding, or the JSON Schema payload),
	// else null.
	ValueDecoded *string `parquet:"value_decoded,optional" json:"value_decoded"`
}

// AnomalyRow is one row of anomalies.parquet: a finding about damaged or
// inconsistent bytes. Severity is "error" or "note" (damage a healthy
// broker leaves behind, such as a zero-filled or torn tail).
type AnomalyRow struct {
	Input     int32       `parquet:"input" json:"input"`
	Source    string      `parquet:"source,dict" json:"source"`
	Topic     *string     `parquet:"topic,optional,dict" json:"topic"`
	Partition *int32      `parquet:"partition,optional" json:"partition"`
	Kind      FindingKind `parquet:"kind,dict" json:"kind"`
	Severity  Severity    `parquet:"severity,dict" json:"severity"`
	File      string      `parquet:"file,dict" json:"file"`
	// Position is the byte position in the file, null when the finding is
	// about the whole file.
	Position *int64 `parquet:"position,optional" json:"position"`
	// Line is the 1-based line of a text state file the finding is
	// about, null for binary files.
	Line *int32 `parquet:"line,optional" json:"line"`
	// Offset is the Kafka offset concerned (a batch's base offset), null
	// when unknown.
	Offset     *int64 `parquet:"offset,optional" json:"offset"`
	ProducerID *int64 `parquet:"producer_id,optional" json:"producer_id"`
	Message    string `parquet:"message" json:"message"`
	// Omitted is, for a row that says how many findings of its file were
	// not listed (a findings-omitted row, or one of the checks' "N more"
	// rows), how many it stands for (the row itself is none), and
	// null for any other row: every count of findings adds it. The table
	// and the JSON finding lines hold it, so a count made from them alone
	// (dups --from-tables) is exact too.
	Omitted *int64 `parquet:"omitted,optional" json:"omitted"`
	// CausedBy names the finding this one follows from (FindingRef of
	// it): an index entry or a snapshot past a cut, a checkpoint ahead of
	// a truncation; null for a finding that follows from none. Every
	// follower still counts; FoldFindings groups them under their cause.
	CausedBy *string `parquet:"caused_by,optional,dict" json:"caused_by"`
}

// Stands is how many findings row a counts for: the findings it stands
// for when it says how many were not listed, else itself.
func (a *AnomalyRow) Stands() int64 {
	if a.Omitted != nil && *a.Omitted > 0 {
		return *a.Omitted
	}
	return 1
}

// SnapshotRow is one row of snapshots.parquet: one producer entry of a
// producer-state .snapshot file.
type SnapshotRow struct {
	Input     int32  `parquet:"input" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	File      string `parquet:"file,dict" json:"file"`
	// EndOffset is the snapshot's offset from its name: the state covers
	// offsets below it.
	EndOffset             int64  `parquet:"end_offset" json:"end_offset"`
	CRCValid              bool   `parquet:"crc_valid" json:"crc_valid"`
	ProducerID            int64  `parquet:"producer_id" json:"producer_id"`
	ProducerEpoch         int32  `parquet:"producer_epoch" json:"producer_epoch"`
	LastSequence          int32  `parquet:"last_sequence" json:"last_sequence"`
	FirstSequence         int32  `parquet:"first_sequence" json:"first_sequence"`
	LastOffset            int64  `parquet:"last_offset" json:"last_offset"`
	FirstOffset           int64  `parquet:"first_offset" json:"first_offset"`
	Timestamp             *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)" json:"timestamp"`
	CoordinatorEpoch      int32  `parquet:"coordinator_epoch" json:"coordinator_epoch"`
	CurrentTxnFirstOffset int64  `parquet:"current_txn_first_offset" json:"current_txn_first_offset"`
}

// Millis turns a Kafka timestamp into a nullable column value: -1 (no
// timestamp) is null.
func Millis(ts int64) *int64 {
	if ts == -1 {
		return nil
	}
	return &ts
}
