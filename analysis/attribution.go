package analysis

// TransactionRow is one row of transactions.parquet: one record of
// __transaction_state as read, with what it changed for its transactional
// id (the timeline: epoch bumps, state transitions, PID changes).
type TransactionRow struct {
	Input int32 `parquet:"input" json:"input"`
	// Source names the input the record was read from, as every table's
	// source column does (the copy, "#broker=N", when the input is a log
	// dir that names its broker).
	Source string `parquet:"source,dict" json:"source"`
	// Topic and Partition are the __transaction_state partition.
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	Segment   string `parquet:"segment,dict" json:"segment"`
	Offset    int64  `parquet:"offset" json:"offset"`
	// Timestamp is the record's own (append) timestamp.
	Timestamp       *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)" json:"timestamp"`
	TransactionalID string `parquet:"transactional_id,dict" json:"transactional_id"`
	// Tombstone: the transactional id was expired (a null value); the
	// fields below are then null or empty.
	Tombstone          bool   `parquet:"tombstone" json:"tombstone"`
	ValueVersion       *int32 `parquet:"value_version,optional" json:"value_version"`
	ProducerID         *int64 `parquet:"producer_id,optional" json:"producer_id"`
	ProducerEpoch      *int32 `parquet:"producer_epoch,optional" json:"producer_epoch"`
	PreviousProducerID *int64 `parquet:"previous_producer_id,optional" json:"previous_producer_id"`
	NextProducerID     *int64 `parquet:"next_producer_id,optional" json:"next_producer_id"`
	NextProducerEpoch  *int32 `parquet:"next_producer_epoch,optional" json:"next_producer_epoch"`
	// State is Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit,
	// CompleteAbort, Dead or PrepareEpochFence.
	State     string `parquet:"state,dict" json:"state"`
	TimeoutMs *int32 `parquet:"timeout_ms,optional" json:"timeout_ms"`
	// Partitions of the transaction as topic-partition, comma-separated.
	Partitions               string `parquet:"partitions" json:"partitions"`
	LastUpdateTimestamp      *int64 `parquet:"last_update_timestamp,optional,timestamp(millisecond:utc)" json:"last_update_timestamp"`
	StartTimestamp           *int64 `parquet:"start_timestamp,optional,timestamp(millisecond:utc)" json:"start_timestamp"`
	ClientTransactionVersion *int32 `parquet:"client_transaction_version,optional" json:"client_transaction_version"`
	// Change is what this record changed against the previous record of
	// the same transactional id in the same input and cluster, in offset
	// order: first, pid-change, epoch-bump, epoch-regression, state,
	// unchanged or tombstone. PreviousState is that record's state.
	Change        string `parquet:"change,dict" json:"change"`
	PreviousState string `parquet:"previous_state,dict" json:"previous_state"`
}

// PIDBlockRow is one row of pid_blocks.parquet: one ProducerIdsRecord of a
// KRaft metadata log or snapshot, the controller giving the producer-id
// block [first_producer_id, last_producer_id] to broker_id.
type PIDBlockRow struct {
	Input int32 `parquet:"input" json:"input"`
	// File is the metadata log segment or .checkpoint snapshot.
	File string `parquet:"file,dict" json:"file"`
	// Source is log, or snapshot when read from a .checkpoint (a snapshot
	// repeats the latest allocation; its timestamp is the snapshot's).
	Source          string `parquet:"source,dict" json:"source"`
	Offset          int64  `parquet:"offset" json:"offset"`
	Timestamp       *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)" json:"timestamp"`
	BrokerID        int32  `parquet:"broker_id" json:"broker_id"`
	BrokerEpoch     int64  `parquet:"broker_epoch" json:"broker_epoch"`
	NextProducerID  int64  `parquet:"next_producer_id" json:"next_producer_id"`
	FirstProducerID int64  `parquet:"first_producer_id" json:"first_producer_id"`
	LastProducerID  int64  `parquet:"last_producer_id" json:"last_producer_id"`
}
