package analysis

// PartitionTxnRow is one row of partition_txns.parquet: one transaction
// of one producer as a partition saw it, from its first data batch (or,
// for an empty transaction, its marker) to its COMMIT or ABORT marker, or
// to the end of the input when it has none.
type PartitionTxnRow struct {
	Input     int32  `parquet:"input" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	// Dir is the partition dir relative to the input root.
	Dir           string `parquet:"dir,dict" json:"dir"`
	ProducerID    int64  `parquet:"producer_id" json:"producer_id"`
	ProducerEpoch int32  `parquet:"producer_epoch" json:"producer_epoch"`
	// TransactionalID held the PID according to __transaction_state in
	// the input (empty when unknown).
	TransactionalID string `parquet:"transactional_id,dict" json:"transactional_id"`
	// FirstOffset is the base offset of the first data batch (of the
	// marker for an empty transaction); LastDataOffset the last offset of
	// the last data batch (-1 for an empty transaction).
	FirstOffset    int64 `parquet:"first_offset" json:"first_offset"`
	LastDataOffset int64 `parquet:"last_data_offset" json:"last_data_offset"`
	// EndMarker is COMMIT, ABORT or empty (open at the end of the input);
	// EndOffset the marker's offset and MarkerCoordinatorEpoch the
	// coordinator epoch it carries (null without a marker).
	EndMarker              string `parquet:"end_marker,dict" json:"end_marker"`
	EndOffset              *int64 `parquet:"end_offset,optional" json:"end_offset"`
	MarkerCoordinatorEpoch *int32 `parquet:"marker_coordinator_epoch,optional" json:"marker_coordinator_epoch"`
	// FirstTimestamp is the first data batch's first timestamp,
	// LastTimestamp the greatest max timestamp of its data batches,
	// EndTimestamp the marker's.
	FirstTimestamp *int64 `parquet:"first_timestamp,optional,timestamp(millisecond:utc)" json:"first_timestamp"`
	LastTimestamp  *int64 `parquet:"last_timestamp,optional,timestamp(millisecond:utc)" json:"last_timestamp"`
	EndTimestamp   *int64 `parquet:"end_timestamp,optional,timestamp(millisecond:utc)" json:"end_timestamp"`
	// DurationMillis runs from the first timestamp to the marker's, or,
	// while open, to the last write in the partition (null when a
	// timestamp is missing).
	DurationMillis *int64 `parquet:"duration_ms,optional" json:"duration_ms"`
	Batches        int64  `parquet:"batches" json:"batches"`
	Records        int64  `parquet:"records" json:"records"`
	// Empty: a marker with no data batch of the producer before it since
	// its previous marker (the partition was added to the transaction but
	// nothing was written to it, or a fencing abort).
	Empty bool `parquet:"empty" json:"empty"`
	// Open: no marker ends it in the input.
	Open bool `parquet:"open" json:"open"`
	// HoldsLSO: the earliest open transaction of the partition, whose
	// first offset is its last stable offset.
	HoldsLSO bool `parquet:"holds_lso" json:"holds_lso"`
	// CoordinatorState says, for an open transaction, what
	// __transaction_state in the input says of it: ongoing (its coordinator
	// lists the partition in the producer's current transaction), hanging
	// (the coordinator's latest record for the transactional id does not:
	// no marker will come), or unknown (no record for the PID). Empty for
	// ended transactions.
	CoordinatorState string `parquet:"coordinator_state,dict" json:"coordinator_state"`
	// CoordinatorPartition is the __transaction_state partition that
	// coordinates the transactional id, out of TxnStatePartitions
	// partitions (null without a transactional id); PartitionCountFrom
	// says where that count comes from (metadata, partition-dirs or
	// default).
	CoordinatorPartition *int32 `parquet:"coordinator_partition,optional" json:"coordinator_partition"`
	TxnStatePartitions   int32  `parquet:"txn_state_partitions" json:"txn_state_partitions"`
	PartitionCountFrom   string `parquet:"partition_count_from,dict" json:"partition_count_from"`
}
