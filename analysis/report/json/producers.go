package json

import (
	stdjson "encoding/json"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// SessionLine is a producer session, one JSON line.
type SessionLine struct {
	Type string `json:"type"`
	analysis.ProducerRow
}

// SnapshotProducerLine is a producer known only from a snapshot, one
// JSON line.
type SnapshotProducerLine struct {
	Type string `json:"type"`
	analysis.SnapshotRow
}

// Producers writes the producers report: the open transactions and the
// partitions' last stable offsets, the sessions, the producers known only
// from snapshots (snapOnly, Result.SnapshotOnly) and the findings of
// severity error or warning.
func Producers(w io.Writer, res *pipeline.Result, sum *pipeline.Summary, snapOnly []analysis.SnapshotRow) error {
	enc := stdjson.NewEncoder(w)
	for _, h := range sum.OpenTxns {
		if err := enc.Encode(h); err != nil {
			return err
		}
	}
	for _, p := range sum.TxnPartitions {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	for _, r := range res.Sessions {
		if err := enc.Encode(SessionLine{"session", r}); err != nil {
			return err
		}
	}
	for _, r := range snapOnly {
		if err := enc.Encode(SnapshotProducerLine{"snapshot_producer", r}); err != nil {
			return err
		}
	}
	for _, a := range res.Scan.Anomalies {
		if !finding.Counts(a.Severity) {
			continue
		}
		if err := enc.Encode(FindingLine{Type: "finding", AnomalyRow: a}); err != nil {
			return err
		}
	}
	return nil
}
