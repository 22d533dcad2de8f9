package analysis

// RemoteSegmentRow is one row of remote_segments.parquet: a segment of a
// tiered topic (KIP-405) as the records of __remote_log_metadata tell it,
// one row per remote segment id, its updates folded in log order.
type RemoteSegmentRow struct {
	// Input, Source and File name the __remote_log_metadata segment the
	// segment's first record was read from, and Offset that record.
	Input  int32  `parquet:"input" json:"input"`
	Source string `parquet:"source,dict" json:"source"`
	File   string `parquet:"file,dict" json:"file"`
	Offset int64  `parquet:"offset" json:"offset"`
	// Topic, Partition and TopicID are the tiered partition's.
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	TopicID   string `parquet:"topic_id,dict" json:"topic_id"`
	// SegmentID is the remote segment's id (base64, as Kafka prints it).
	SegmentID   string `parquet:"segment_id" json:"segment_id"`
	StartOffset int64  `parquet:"start_offset" json:"start_offset"`
	EndOffset   int64  `parquet:"end_offset" json:"end_offset"`
	// LeaderEpochs maps each leader epoch of the segment to its first
	// offset, as Kafka prints it: {0=0, 3=120}.
	LeaderEpochs string `parquet:"leader_epochs" json:"leader_epochs"`
	// Broker is the broker that copied the segment; SizeBytes the size of
	// its log file.
	Broker       int32  `parquet:"broker" json:"broker"`
	SizeBytes    int32  `parquet:"size_bytes" json:"size_bytes"`
	MaxTimestamp *int64 `parquet:"max_timestamp,optional,timestamp(millisecond:utc)" json:"max_timestamp"`
	// State is the last RemoteLogSegmentState (COPY_SEGMENT_STARTED,
	// COPY_SEGMENT_FINISHED, DELETE_SEGMENT_STARTED,
	// DELETE_SEGMENT_FINISHED), States every state in order, separated by
	// " > ", and LastEvent the time of the last.
	State     string `parquet:"state,dict" json:"state"`
	States    string `parquet:"states" json:"states"`
	LastEvent *int64 `parquet:"last_event,optional,timestamp(millisecond:utc)" json:"last_event"`
	// Held: the metadata says the remote copy is complete and not deleted
	// (COPY_SEGMENT_FINISHED last), and its partition is not being
	// deleted.
	Held bool `parquet:"held" json:"held"`
	// TxnIndexEmpty: the segment has no transaction index.
	TxnIndexEmpty bool `parquet:"txn_index_empty" json:"txn_index_empty"`
	// CustomMetadataBytes is the size of the remote storage manager's
	// custom metadata (null when it has none).
	CustomMetadataBytes *int32 `parquet:"custom_metadata_bytes,optional" json:"custom_metadata_bytes"`
	// FilesPresent lists the segment's files a remote store root given as
	// an input holds ("log,index,timeindex,..."; "" for none), null when
	// no remote root was read. SizeMatch says whether the .log's size is
	// SizeBytes (null without a .log).
	FilesPresent *string `parquet:"files_present,optional" json:"files_present"`
	SizeMatch    *bool   `parquet:"size_match,optional" json:"size_match"`
}

// RemoteStoreSegment is one remote segment as a remote store root holds
// it (Kafka's LocalTieredStorage layout: a dir per partition named
// <topic>-<partition>-<topic id>, and per segment the files
// <start offset>-<segment id>.<suffix>), with what reading its .log found.
type RemoteStoreSegment struct {
	// Input is the index of the remote root among the run's inputs.
	Input     int32
	Dir       string
	Topic     string
	Partition int32
	TopicID   string
	SegmentID string
	// StartOffset is the offset in the files' names.
	StartOffset int64
	// Files are the suffixes present (log, index, timeindex, snapshot,
	// leader_epoch_checkpoint, txnindex), in that order.
	Files []string
	// LogFile is the .log's path below the root ("" when it is absent),
	// LogSize its size.
	LogFile string
	LogSize int64
	// First and Last are the offsets the .log's batches hold (-1 when
	// none); Damaged counts the reader's findings in it. IntactTo is the
	// last offset of the run of intact batches the .log starts with,
	// without a gap (-1 when its first batch is damaged or missing): what
	// a damaged segment, one cut short say, still holds.
	First, Last int64
	Damaged     int
	IntactTo    int64
}

// HasLog reports whether the segment's .log file is in the store.
func (s *RemoteStoreSegment) HasLog() bool { return s.LogFile != "" }
