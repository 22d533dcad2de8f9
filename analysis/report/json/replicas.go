package json

import (
	stdjson "encoding/json"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
)

// replicaLine is a copy's own columns (JSON type "replica").
type replicaLine struct {
	Type           string                `json:"type"`
	Topic          string                `json:"topic"`
	Partition      int32                 `json:"partition"`
	Broker         *int32                `json:"broker"`
	Source         string                `json:"source"`
	Dir            string                `json:"dir"`
	LogStartOffset int64                 `json:"log_start_offset"`
	LogEndOffset   int64                 `json:"log_end_offset"`
	HighWatermark  *int64                `json:"high_watermark"`
	RecoveryPoint  *int64                `json:"recovery_point"`
	AboveHW        int64                 `json:"above_high_watermark"`
	LeaderEpochs   []analysis.EpochStart `json:"leader_epochs"`
	LastEpoch      int32                 `json:"last_epoch"`
	Verdict        string                `json:"verdict"`
	Reference      bool                  `json:"reference"`
}

// divergenceLine is a copy against its reference (JSON type "divergence").
type divergenceLine struct {
	Type                 string                 `json:"type"`
	Topic                string                 `json:"topic"`
	Partition            int32                  `json:"partition"`
	Broker               *int32                 `json:"broker"`
	Source               string                 `json:"source"`
	Dir                  string                 `json:"dir"`
	ReferenceBroker      *int32                 `json:"reference_broker"`
	ReferenceSource      string                 `json:"reference_source"`
	ReferenceDir         string                 `json:"reference_dir"`
	FirstDivergentOffset *int64                 `json:"first_divergent_offset"`
	Epoch                *int32                 `json:"epoch"`
	ReferenceEpoch       *int32                 `json:"reference_epoch"`
	MissingRanges        []analysis.OffsetRange `json:"missing_ranges"`
	ExtraRanges          []analysis.OffsetRange `json:"extra_ranges"`
	CleanerDifferences   int64                  `json:"cleaner_differences"`
	Verdict              string                 `json:"verdict"`
	Explanation          string                 `json:"explanation"`
}

// Replicas writes a line per copy of a partition held by several log dirs
// (type "replica") and one per copy against its reference (type
// "divergence").
func Replicas(w io.Writer, rows []analysis.ReplicaRow) error {
	enc := stdjson.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(replicaLine{Type: "replica", Topic: r.Topic, Partition: r.Partition, Broker: r.Broker, Source: r.Source, Dir: r.Dir,
			LogStartOffset: r.LogStartOffset, LogEndOffset: r.LogEndOffset, HighWatermark: r.HighWatermark, RecoveryPoint: r.RecoveryPoint,
			AboveHW: r.AboveHighWatermark, LeaderEpochs: r.LeaderEpochs, LastEpoch: r.LastEpoch, Verdict: r.Verdict,
			Reference: r.Verdict == string(analysis.CopyReference)}); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if r.Verdict == string(analysis.CopyReference) {
			continue
		}
		if err := enc.Encode(divergenceLine{Type: "divergence", Topic: r.Topic, Partition: r.Partition, Broker: r.Broker, Source: r.Source, Dir: r.Dir,
			ReferenceBroker: r.ReferenceBroker, ReferenceSource: r.ReferenceSource, ReferenceDir: r.ReferenceDir,
			FirstDivergentOffset: r.FirstDivergentOffset, Epoch: r.Epoch, ReferenceEpoch: r.ReferenceEpoch,
			MissingRanges: r.MissingRanges, ExtraRanges: r.ExtraRanges, CleanerDifferences: r.CleanerDifferences, Verdict: r.Verdict,
			Explanation: r.Explanation}); err != nil {
			return err
		}
	}
	return nil
}
