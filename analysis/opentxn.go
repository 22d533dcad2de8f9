package analysis

// Coordinator states of an open transaction (PartitionTxnRow.CoordinatorState).
const (
	CoordinatorOngoing = "ongoing"
	CoordinatorHanging = "hanging"
	CoordinatorUnknown = "unknown"
)

// OpenTxn is a transaction still open at the end of the input, with what
// an operator would run for it.
type OpenTxn struct {
	Type string `json:"type"` // "open_transaction"
	PartitionTxnRow
	// OpenForMillis is how long it had been open at the last write in the
	// partition (null without timestamps).
	OpenForMillis *int64 `json:"open_for_ms"`
	// CoordinatorEpoch is the value for abort's --coordinator-epoch (-1
	// unknown) and EpochFrom where it was read.
	CoordinatorEpoch int32  `json:"coordinator_epoch"`
	EpochFrom        string `json:"coordinator_epoch_from"`
	// FindHanging and Abort are kafka-transactions.sh command lines;
	// ksleuth never runs them.
	FindHanging string `json:"find_hanging_command"`
	Abort       string `json:"abort_command"`
	Why         string `json:"why"`
}
