package analysis

// ProducerRow is one row of producers.parquet: one producer session, the
// batches of one (topic, partition, producer_id, producer_epoch) in one
// partition dir. Offsets and sequences cover data batches; transaction
// markers only count in commits and aborts (a session holding nothing
// but markers has batches 0 and the markers' offsets).
type ProducerRow struct {
	Input     int32  `parquet:"input" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	// Dir is the partition dir relative to the input root, which tells
	// replicas and -future/-delete dirs of one partition apart.
	Dir            string `parquet:"dir,dict" json:"dir"`
	ProducerID     int64  `parquet:"producer_id" json:"producer_id"`
	ProducerEpoch  int32  `parquet:"producer_epoch" json:"producer_epoch"`
	FirstOffset    int64  `parquet:"first_offset" json:"first_offset"`
	LastOffset     int64  `parquet:"last_offset" json:"last_offset"`
	FirstTimestamp *int64 `parquet:"first_timestamp,optional,timestamp(millisecond:utc)" json:"first_timestamp"`
	LastTimestamp  *int64 `parquet:"last_timestamp,optional,timestamp(millisecond:utc)" json:"last_timestamp"`
	// FirstSequence is the base sequence of the first data batch,
	// LastSequence the last sequence of the last one (-1 without).
	FirstSequence   int32 `parquet:"first_sequence" json:"first_sequence"`
	LastSequence    int32 `parquet:"last_sequence" json:"last_sequence"`
	Batches         int64 `parquet:"batches" json:"batches"`
	Records         int64 `parquet:"records" json:"records"`
	IsTransactional bool  `parquet:"is_transactional" json:"is_transactional"`
	Commits         int64 `parquet:"commits" json:"commits"`
	Aborts          int64 `parquet:"aborts" json:"aborts"`
	// SequenceGaps counts batches whose base sequence skipped ahead;
	// SequenceRegressions those that went back or repeated sequences.
	SequenceGaps        int64 `parquet:"sequence_gaps" json:"sequence_gaps"`
	SequenceRegressions int64 `parquet:"sequence_regressions" json:"sequence_regressions"`
	// DamagedBatches counts batches with a CRC mismatch or records that
	// could not all be decoded; their fields are not trustworthy.
	DamagedBatches int64 `parquet:"damaged_batches" json:"damaged_batches"`
	// OpenTxn is true when the session's last transaction has no marker in
	// the input.
	OpenTxn bool `parquet:"open_txn" json:"open_txn"`
	// The producer's entry in the newest .snapshot of the partition dir
	// that holds this PID and epoch (null when none does).
	SnapshotFile         *string `parquet:"snapshot_file,optional,dict" json:"snapshot_file"`
	SnapshotLastSequence *int32  `parquet:"snapshot_last_sequence,optional" json:"snapshot_last_sequence"`
	SnapshotLastOffset   *int64  `parquet:"snapshot_last_offset,optional" json:"snapshot_last_offset"`
	// TransactionalID held this PID according to __transaction_state in
	// the input (empty when unknown); AllocatedByBroker is the broker the
	// KRaft controller gave the PID's block to (null when unknown). See
	// transactions.parquet and pid_blocks.parquet for the details.
	TransactionalID   string `parquet:"transactional_id,dict" json:"transactional_id"`
	AllocatedByBroker *int32 `parquet:"allocated_by_broker,optional" json:"allocated_by_broker"`
}

// DuplicateRow is one row of duplicates.parquet: one record of a
// duplicate group, the first occurrence included (docs/duplicates.md).
// The columns after explanation are extras.
type DuplicateRow struct {
	Input   int32  `parquet:"input" json:"input"`
	Source  string `parquet:"source,dict" json:"source"`
	GroupID int64  `parquet:"group_id" json:"group_id"`
	// Fingerprint is 32 hex digits, over the parts --match chose.
	Fingerprint   string `parquet:"fingerprint" json:"fingerprint"`
	Topic         string `parquet:"topic,dict" json:"topic"`
	Partition     int32  `parquet:"partition" json:"partition"`
	Offset        int64  `parquet:"offset" json:"offset"`
	ProducerID    int64  `parquet:"producer_id" json:"producer_id"`
	ProducerEpoch int32  `parquet:"producer_epoch" json:"producer_epoch"`
	Sequence      int32  `parquet:"sequence" json:"sequence"`
	Timestamp     *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)" json:"timestamp"`
	// Occurrence is 1 for the first copy, then 2, 3, ... in time order.
	Occurrence int32 `parquet:"occurrence" json:"occurrence"`
	// Class is restart-resend, txn-retry or repeat; empty for the first.
	Class       string `parquet:"class,dict" json:"class"`
	Explanation string `parquet:"explanation" json:"explanation"`

	// TxnState is none, committed, aborted or open.
	TxnState string `parquet:"txn_state,dict" json:"txn_state"`
	// Damaged marks a record read from a damaged batch (CRC mismatch or
	// undecodable records): its content is not verified.
	Damaged bool `parquet:"damaged" json:"damaged"`
	// The earlier occurrence this one was compared with (null for the
	// first), and the gap the class was judged on, in milliseconds: for
	// restart-resend from the earlier PID's last write to the start of the
	// later session, otherwise between the two copies' timestamps.
	RefTopic      *string `parquet:"ref_topic,optional,dict" json:"ref_topic"`
	RefPartition  *int32  `parquet:"ref_partition,optional" json:"ref_partition"`
	RefOffset     *int64  `parquet:"ref_offset,optional" json:"ref_offset"`
	RefProducerID *int64  `parquet:"ref_producer_id,optional" json:"ref_producer_id"`
	GapMillis     *int64  `parquet:"gap_ms,optional" json:"gap_ms"`
	// TransactionalID and AllocatedByBroker as in ProducerRow, for this
	// row's producer_id.
	TransactionalID   string `parquet:"transactional_id,dict" json:"transactional_id"`
	AllocatedByBroker *int32 `parquet:"allocated_by_broker,optional" json:"allocated_by_broker"`
	// The same for ref_producer_id (empty and null for the first copy),
	// and how the PID changed between the two writers (empty when
	// unknown or no change): txn-id-rotation (the coordinator moved the
	// transactional id to the new PID, as recorded by previous/next
	// producer id: epoch exhaustion), txn-id-new-pid (the same
	// transactional id under a new PID without such a record: epoch
	// exhaustion or a fenced producer) or idempotent-restart (neither PID
	// has a transactional id although the input holds __transaction_state,
	// and this copy is not transactional: an idempotent-only producer gets
	// a new PID per restart; restart-resend rows only).
	RefTransactionalID   string `parquet:"ref_transactional_id,dict" json:"ref_transactional_id"`
	RefAllocatedByBroker *int32 `parquet:"ref_allocated_by_broker,optional" json:"ref_allocated_by_broker"`
	PIDChange            string `parquet:"pid_change,dict" json:"pid_change"`
	// Evidence grades a restart-resend or txn-retry copy: strong when the
	// bytes show a restart and a resend of the earlier session's tail at
	// the later session's head, weak ("possible restart-resend")
	// otherwise; empty for first copies and repeats. EvidenceReasons says
	// what the grade rests on and, for weak, why it is not strong.
	Evidence        string `parquet:"evidence,dict" json:"evidence"`
	EvidenceReasons string `parquet:"evidence_reasons" json:"evidence_reasons"`
	// CopyGapMillis is this copy's own timestamp minus the earlier copy's,
	// SessionAgeMillis how long after its session's first write in this
	// partition it was written (null when unknown or for the first copy).
	CopyGapMillis    *int64 `parquet:"copy_gap_ms,optional" json:"copy_gap_ms"`
	SessionAgeMillis *int64 `parquet:"session_age_ms,optional" json:"session_age_ms"`
	// EvidenceWhy is the set of reasons a copy is not strong, as bits
	// (dups.Why*), for the report's run lines.
	EvidenceWhy uint16 `parquet:"-" json:"-"`
	// Dir and RefDir are the partition dirs of the copy and of the earlier
	// one, within their inputs: not written anywhere, they keep apart the
	// runs of two dirs of one partition in one input (two brokers' copies
	// in one tarball).
	Dir    string `parquet:"-" json:"-"`
	RefDir string `parquet:"-" json:"-"`
	// ConsumedBy names the consumer groups that committed an offset above
	// this copy's in __consumer_offsets of the inputs (package consumers),
	// by name; empty when none did or the inputs hold no commits.
	ConsumedBy []string `parquet:"consumed_by,list" json:"consumed_by"`
}

// Values of DuplicateRow.PIDChange: how a later writer's PID relates to
// the earlier one's.
const (
	// PIDChangeRotation: the transactional id moved from the earlier PID
	// to the later one in a record of __transaction_state
	// (PreviousProducerId or NextProducerId): the coordinator rotated it on
	// epoch exhaustion.
	PIDChangeRotation = "txn-id-rotation"
	// PIDChangeNewUnderTxnID: both PIDs belong to the same transactional
	// id, with no record of a rotation: epoch exhaustion or a fenced
	// producer.
	PIDChangeNewUnderTxnID = "txn-id-new-pid"
	// PIDChangeIdempotentRestart: neither PID has a transactional id
	// although the input holds __transaction_state, and the later copy is
	// not transactional: an idempotent-only producer gets a new PID per
	// restart.
	PIDChangeIdempotentRestart = "idempotent-restart"
)
