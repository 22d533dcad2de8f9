package analysis

// CommitRow is one row of commits.parquet: one offset-commit record of
// __consumer_offsets (key version 0 or 1) as read, tombstones included.
// Topic and Partition are the committed partition, not the
// __consumer_offsets partition the record is in (LogPartition).
type CommitRow struct {
	Input     int32  `parquet:"input" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Group     string `parquet:"group,dict" json:"group"`
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	// CommittedOffset is the next offset the group reads: it has
	// processed the records below it. Null for a tombstone (the commit was
	// deleted: the group's offsets expired, or the group was deleted).
	CommittedOffset *int64 `parquet:"committed_offset,optional" json:"committed_offset"`
	// LeaderEpoch is the epoch of the last record consumed (value v3+);
	// null when the value does not carry one or carries -1 (unknown).
	LeaderEpoch     *int32 `parquet:"leader_epoch,optional" json:"leader_epoch"`
	Metadata        string `parquet:"metadata" json:"metadata"`
	CommitTimestamp *int64 `parquet:"commit_timestamp,optional,timestamp(millisecond:utc)" json:"commit_timestamp"`
	// ExpireTimestamp is written by value v1 only; null otherwise.
	ExpireTimestamp *int64 `parquet:"expire_timestamp,optional,timestamp(millisecond:utc)" json:"expire_timestamp"`
	Tombstone       bool   `parquet:"tombstone" json:"tombstone"`
	KeyVersion      int32  `parquet:"key_version" json:"key_version"`
	// ValueVersion is null for a tombstone.
	ValueVersion *int32 `parquet:"value_version,optional" json:"value_version"`
	// LogPartition is the __consumer_offsets partition; File, Position
	// and Offset where the record is: the segment, its batch's byte
	// position and the record's own offset in that partition.
	LogPartition int32  `parquet:"log_partition" json:"log_partition"`
	File         string `parquet:"file,dict" json:"file"`
	Position     int64  `parquet:"position" json:"position"`
	Offset       int64  `parquet:"offset" json:"offset"`
	// Timestamp is the record's own (append) timestamp.
	Timestamp *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)" json:"timestamp"`
	// TxnState is none, or for a transactional offset commit (a
	// consumer-process-produce transaction) committed, aborted or open:
	// only a committed one was applied to the group.
	TxnState string `parquet:"txn_state,dict" json:"txn_state"`
	// Damaged marks a record of a damaged batch (CRC mismatch, or records
	// that could not all be decoded): its bytes are not verified, so a bit
	// flip may have made up its group, partition or offset. Such a commit
	// is kept here but never counts as evidence of consumption.
	Damaged bool `parquet:"damaged" json:"damaged"`
}

// GroupMemberRow is one member of a classic group in groups.parquet.
type GroupMemberRow struct {
	MemberID string `parquet:"member_id" json:"member_id"`
	// GroupInstanceID is the static membership id (value v3+), or null.
	GroupInstanceID    *string `parquet:"group_instance_id,optional" json:"group_instance_id"`
	ClientID           string  `parquet:"client_id" json:"client_id"`
	ClientHost         string  `parquet:"client_host" json:"client_host"`
	RebalanceTimeoutMs *int32  `parquet:"rebalance_timeout_ms,optional" json:"rebalance_timeout_ms"`
	SessionTimeoutMs   int32   `parquet:"session_timeout_ms" json:"session_timeout_ms"`
	// SubscriptionSize and AssignmentSize are the byte lengths of the
	// protocol's opaque subscription and assignment (-1 for null).
	SubscriptionSize int32 `parquet:"subscription_size" json:"subscription_size"`
	AssignmentSize   int32 `parquet:"assignment_size" json:"assignment_size"`
}

// GroupRow is one row of groups.parquet: one GroupMetadata record of
// __consumer_offsets (key version 2), the state of a classic group after
// a rebalance, or its deletion (a tombstone).
type GroupRow struct {
	Input     int32  `parquet:"input" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Group     string `parquet:"group,dict" json:"group"`
	Tombstone bool   `parquet:"tombstone" json:"tombstone"`
	// ValueVersion and Generation are null for a tombstone.
	ValueVersion *int32 `parquet:"value_version,optional" json:"value_version"`
	ProtocolType string `parquet:"protocol_type,dict" json:"protocol_type"`
	Generation   *int32 `parquet:"generation,optional" json:"generation"`
	// Protocol is the assignor chosen (range, cooperative-sticky, ...);
	// Leader the member id of the group's leader; both null when none.
	Protocol              *string          `parquet:"protocol,optional,dict" json:"protocol"`
	Leader                *string          `parquet:"leader,optional" json:"leader"`
	CurrentStateTimestamp *int64           `parquet:"current_state_timestamp,optional,timestamp(millisecond:utc)" json:"current_state_timestamp"`
	Members               []GroupMemberRow `parquet:"members,list" json:"members"`
	LogPartition          int32            `parquet:"log_partition" json:"log_partition"`
	File                  string           `parquet:"file,dict" json:"file"`
	Position              int64            `parquet:"position" json:"position"`
	Offset                int64            `parquet:"offset" json:"offset"`
	Timestamp             *int64           `parquet:"timestamp,optional,timestamp(millisecond:utc)" json:"timestamp"`
	// Damaged marks a record of a damaged batch, as in CommitRow.
	Damaged bool `parquet:"damaged" json:"damaged"`
}
