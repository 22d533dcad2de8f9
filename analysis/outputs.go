package analysis

// The types of this file are what the outputs (text, JSON lines, the HTML
// page) say of a run beside the table rows: the pipeline fills them from
// the passes' own types, so that an output never imports a pass. Their
// JSON keys are those the outputs have always printed.

// FindingCount counts the findings of one kind and severity.
type FindingCount struct {
	Kind     FindingKind `json:"kind"`
	Severity Severity    `json:"severity"`
	Count    int64       `json:"count"`
}

// PartitionSummary sums up one partition dir of one input.
type PartitionSummary struct {
	Input     int32    `json:"input"`
	Dir       string   `json:"dir"` // partition dir, relative to the input root
	Topic     string   `json:"topic"`
	Partition int32    `json:"partition"`
	DirState  string   `json:"dir_state,omitempty"`
	BrokerID  *int32   `json:"broker_id"`
	Segments  int      `json:"segments"`
	Bytes     int64    `json:"bytes"`
	Batches   int64    `json:"batches"`
	Records   int64    `json:"records"`
	First     *int64   `json:"first_offset"`
	Last      *int64   `json:"last_offset"`
	FirstTime *int64   `json:"first_timestamp"`
	LastTime  *int64   `json:"last_timestamp"`
	Codecs    []string `json:"codecs"`
	Producers int      `json:"producers"`
	Findings  int64    `json:"findings"`
	// Notes counts those of Findings of severity note: they need no
	// action.
	Notes int64 `json:"notes"`
}

// Verdict is the loss ledger's one-line answer for a partition copy.
type Verdict struct {
	Input     int32  `json:"input"`
	Source    string `json:"source"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Dir       string `json:"dir"`
	// FirstOffset and LogEndOffset bound the data on disk (-1: none).
	FirstOffset  int64 `json:"first_offset"`
	LogEndOffset int64 `json:"log_end_offset"`
	// Intact: no gap worse than a note.
	Intact bool `json:"intact"`
	// Lost counts the offsets in gaps worse than a note whose end is
	// known, unread ones included; Unbounded says some gap's end is not.
	Lost      int64 `json:"lost_offsets"`
	Unbounded bool  `json:"lost_unbounded"`
	// Unread: every range counted is one the input failed to deliver (a
	// cut archive): the verdict says UNREAD, not LOST.
	Unread bool   `json:"unread"`
	Text   string `json:"verdict"`
	// State is the copy's state judged alone: intact, lost or unread, in
	// the words every command uses for a copy (CopyState).
	State CopyState `json:"state"`
	// Crashed: the copy's broker did not shut it down cleanly (it
	// crashed, or ran while the copy was taken); CrashSigns say why. Its
	// log is recovered from the recovery point when the broker starts.
	Crashed    bool     `json:"crashed,omitempty"`
	CrashSigns []string `json:"crash_signs,omitempty"`
}

// SkippedFile is a file of the inputs that is not a Kafka file.
type SkippedFile struct {
	Input  int32
	Path   string
	Reason string
}

// CheckedKind is how many files of one kind the checks read, and what
// was checked of them.
type CheckedKind struct {
	What  string `json:"what"`
	Files int    `json:"files"`
	// Partial counts those of them read only in part: the input failed
	// inside them (an archive cut short, an I/O error part way).
	Partial int    `json:"partial,omitempty"`
	How     string `json:"how"`
}

// CheckedOther is the CheckedKind.What of the files that are not Kafka
// files: listed, not checked.
const CheckedOther = "other files"

// Damaged reports whether a batch row describes bytes that cannot be
// trusted: a CRC mismatch, or fewer records decoded than it claims.
func (b *BatchRow) Damaged() bool { return !b.CRCValid || b.DecodedRecords < b.RecordCount }

// PartitionLSO is a partition's last stable offset and what holds it back.
type PartitionLSO struct {
	Type      string `json:"type"` // "lso"
	Input     int32  `json:"input"`
	Source    string `json:"source"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Dir       string `json:"dir"`
	// LogEndOffset is one past the last batch; HighWatermark the
	// checkpointed one (-1 unknown).
	LogEndOffset  int64 `json:"log_end_offset"`
	HighWatermark int64 `json:"high_watermark"`
	// LastStableOffset is what the broker computes; LSOFrom says which
	// rule gave it.
	LastStableOffset int64  `json:"last_stable_offset"`
	LSOFrom          string `json:"lso_from"`
	// Invisible counts offsets from the LSO to the high watermark (or log
	// end) that read_committed consumers cannot read until it moves.
	Invisible int64 `json:"invisible_offsets"`
	// LastWrite is the greatest batch timestamp of the partition.
	LastWrite        *int64 `json:"last_write"`
	OpenTransactions int    `json:"open_transactions"`
	Transactions     int    `json:"transactions"`
}

// CountFromDefault is the PartitionTxnRow.PartitionCountFrom of a
// coordinator partition computed with the broker's default partition
// count of __transaction_state: the input did not tell it.
const CountFromDefault = "default"
