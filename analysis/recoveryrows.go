package analysis

// What the log loader does at a broker's start (package recovery predicts
// it, verify --recovery prints it): the kinds of its steps.
const (
	ActDelete         = "delete"          // a file is deleted
	ActRename         = "rename"          // a .swap file is renamed into place
	ActRecover        = "recover-segment" // a segment is validated and its indexes rebuilt
	ActTruncate       = "truncate"        // a segment is cut at its first invalid batch
	ActCreateIndex    = "create-index"    // a missing .timeindex is created empty
	ActDeleteSnapshot = "delete-snapshot" // a producer snapshot is deleted
	ActDeleteDir      = "delete-dir"      // a -delete dir is loaded and deleted
	ActSkip           = "skip"            // the loader leaves this partition to another component
	ActResetLogEnd    = "reset-log-end"   // a clean start finds no batch where the offset index ends
)

// RecoveryAction is one predicted step of the log loader.
type RecoveryAction struct {
	Action string `json:"action"`
	File   string `json:"file"`
	// Offset is the segment base, snapshot or truncation offset concerned
	// (-1 none).
	Offset int64 `json:"offset"`
	// Bytes is how many bytes a truncation removes.
	Bytes int64  `json:"bytes,omitempty"`
	Rule  string `json:"rule"`
}

// RecoveryPartition is the log loader's predicted work on one partition dir.
type RecoveryPartition struct {
	Type      string `json:"type"` // "recovery"
	Input     int32  `json:"input"`
	Source    string `json:"source"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Dir       string `json:"dir"`
	// Clean is true when the log dir holds .kafka_cleanshutdown.
	Clean bool `json:"clean_shutdown"`
	// RecoveryPoint and LogStartCheckpoint are the checkpointed values
	// the loader starts from (0 without an entry).
	RecoveryPoint      int64            `json:"recovery_point"`
	LogStartCheckpoint int64            `json:"log_start_checkpoint"`
	Actions            []RecoveryAction `json:"actions"`
	// The state after loading.
	LogStartOffset int64 `json:"log_start_offset_after"`
	LogEndOffset   int64 `json:"log_end_offset_after"`
	HighWatermark  int64 `json:"high_watermark_after"`
	// Segments after loading, and the producer snapshots left.
	Segments []int64 `json:"segments_after"`
	// Snapshots are the snapshot files of the copy that are left (the
	// broker also writes new ones).
	Snapshots []int64 `json:"snapshots_after"`
}
