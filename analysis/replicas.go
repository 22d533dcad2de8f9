package analysis

import "encoding/json"

// ReplicaRow is one row of replicas.parquet: one broker's copy of a
// partition that two or more log dirs hold, and how it compares with the
// reference copy (the highest last leader epoch; on a tie the highest log
// end offset).
type ReplicaRow struct {
	Input     int32  `parquet:"input" json:"input"`
	Source    string `parquet:"source,dict" json:"source"`
	Topic     string `parquet:"topic,dict" json:"topic"`
	Partition int32  `parquet:"partition" json:"partition"`
	// Dir is the partition dir, relative to the input root.
	Dir string `parquet:"dir,dict" json:"dir"`
	// Broker is node.id (broker.id) from the log dir's meta.properties.
	Broker *int32 `parquet:"broker,optional" json:"broker"`
	// LogStartOffset is the first offset of the copy (the log dir's
	// log-start-offset-checkpoint when it is higher than the first batch);
	// LogEndOffset is one past its last batch.
	LogStartOffset int64 `parquet:"log_start_offset" json:"log_start_offset"`
	LogEndOffset   int64 `parquet:"log_end_offset" json:"log_end_offset"`
	// HighWatermark is from replication-offset-checkpoint, RecoveryPoint
	// from recovery-point-offset-checkpoint; null when the log dir has no
	// entry for the partition.
	HighWatermark *int64 `parquet:"high_watermark,optional" json:"high_watermark"`
	RecoveryPoint *int64 `parquet:"recovery_point,optional" json:"recovery_point"`
	// AboveHighWatermark counts the offsets of the copy at or above its
	// high watermark, which no consumer was served.
	AboveHighWatermark int64 `parquet:"above_high_watermark" json:"above_high_watermark"`
	// LeaderEpochs is the leader-epoch history: the leader-epoch-checkpoint
	// merged with the epochs the batches carry.
	LeaderEpochs []EpochStart `parquet:"leader_epochs,list" json:"leader_epochs"`
	LastEpoch    int32        `parquet:"last_epoch" json:"last_epoch"`
	// The comparison with the reference copy (itself for the reference).
	ReferenceBroker *int32 `parquet:"reference_broker,optional" json:"reference_broker"`
	ReferenceSource string `parquet:"reference_source,dict" json:"reference_source"`
	ReferenceDir    string `parquet:"reference_dir,dict" json:"reference_dir"`
	// Verdict is reference, in-sync, lagging, diverged or ahead.
	Verdict string `parquet:"verdict,dict" json:"verdict"`
	// FirstDivergentOffset is the first offset where this copy's batches
	// differ from the reference's (another CRC, another epoch, missing);
	// Epoch and ReferenceEpoch are the leader epochs there. Null when the
	// copy holds nothing the reference contradicts.
	FirstDivergentOffset *int64 `parquet:"first_divergent_offset,optional" json:"first_divergent_offset"`
	Epoch                *int32 `parquet:"epoch,optional" json:"epoch"`
	ReferenceEpoch       *int32 `parquet:"reference_epoch,optional" json:"reference_epoch"`
	// MissingRanges are offsets the reference has and this copy lacks;
	// ExtraRanges offsets this copy has outside the reference's history,
	// which the broker's leader-epoch truncation removes.
	MissingRanges []OffsetRange `parquet:"missing_ranges,list" json:"missing_ranges"`
	ExtraRanges   []OffsetRange `parquet:"extra_ranges,list" json:"extra_ranges"`
	// ExtraFirstTime and ExtraLastTime span the batch timestamps of the
	// extra ranges of a diverged copy: when the lost records were written.
	ExtraFirstTime *int64 `parquet:"extra_first_time,optional,timestamp(millisecond:utc)" json:"extra_first_time"`
	ExtraLastTime  *int64 `parquet:"extra_last_time,optional,timestamp(millisecond:utc)" json:"extra_last_time"`
	// CleanerDifferences counts the records below the cleaned point that
	// one of this copy and the reference holds and the other does not, in
	// the same leader epoch, with the records both hold agreeing: the log
	// cleaner of each broker compacts on its own schedule, so on a
	// compacted topic they are no divergence.
	CleanerDifferences int64 `parquet:"cleaner_differences" json:"cleaner_differences"`
	// Explanation is the verdict in one sentence.
	Explanation string `parquet:"explanation" json:"explanation"`
}

// EpochStart is one entry of a leader-epoch history: the epoch and the
// first offset written in it. In JSON it is the pair [epoch, start_offset].
type EpochStart struct {
	Epoch       int32 `parquet:"epoch"`
	StartOffset int64 `parquet:"start_offset"`
}

// MarshalJSON writes the pair [epoch, start_offset].
func (e EpochStart) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]int64{int64(e.Epoch), e.StartOffset})
}

// UnmarshalJSON reads the pair [epoch, start_offset].
func (e *EpochStart) UnmarshalJSON(b []byte) error {
	var p [2]int64
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	e.Epoch, e.StartOffset = int32(p[0]), p[1]
	return nil
}

// OffsetRange is an inclusive range of offsets; in JSON [first, last].
type OffsetRange struct {
	First int64 `parquet:"first"`
	Last  int64 `parquet:"last"`
}

// MarshalJSON writes the pair [first, last].
func (r OffsetRange) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]int64{r.First, r.Last})
}

// UnmarshalJSON reads the pair [first, last].
func (r *OffsetRange) UnmarshalJSON(b []byte) error {
	var p [2]int64
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	r.First, r.Last = p[0], p[1]
	return nil
}

// Count is the number of offsets in the range.
func (r OffsetRange) Count() int64 { return r.Last - r.First + 1 }

// ClusterEventRow is one row of cluster_events.parquet: one event of the
// cluster's history, from the KRaft metadata log (leader and ISR changes,
// unclean elections, broker registration and fencing, topic and config
// changes) or from a broker's own log files.
type ClusterEventRow struct {
	Input int32 `parquet:"input" json:"input"`
	// Time is the record's timestamp, or the log line's.
	Time *int64 `parquet:"time,optional,timestamp(millisecond:utc)" json:"time"`
	// Broker is the broker the event is about (the new leader, the fenced
	// broker) or, for a broker log, the broker that wrote it.
	Broker    *int32  `parquet:"broker,optional" json:"broker"`
	Topic     *string `parquet:"topic,optional,dict" json:"topic"`
	Partition *int32  `parquet:"partition,optional" json:"partition"`
	Kind      string  `parquet:"kind,dict" json:"kind"`
	Details   string  `parquet:"details" json:"details"`
	// Source is metadata-log or broker-log.
	Source string `parquet:"source,dict" json:"source"`
	// File, Offset and Line name the evidence: the metadata log segment
	// and the record's offset, or the broker log file and its line.
	File   string `parquet:"file,dict" json:"file"`
	Offset *int64 `parquet:"offset,optional" json:"offset"`
	Line   *int32 `parquet:"line,optional" json:"line"`
}
