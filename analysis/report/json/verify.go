// Package json writes what the commands print as JSON lines: one object
// per line, each with a "type", keys equal to the table columns of the
// same things. It is fed the pipeline's Result and Summary only.
package json

import (
	stdjson "encoding/json"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// Recovery writes the predicted log loading, one line per partition dir.
func Recovery(out io.Writer, ps []analysis.RecoveryPartition) error {
	enc := stdjson.NewEncoder(out)
	for _, p := range ps {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	return nil
}

// FindingLine is a finding, one JSON line.
type FindingLine struct {
	Type string `json:"type"`
	analysis.AnomalyRow
}

// GapLine is a range of the loss ledger.
type GapLine struct {
	Type string `json:"type"`
	analysis.GapRow
}

// VerdictLine is a partition copy's verdict.
type VerdictLine struct {
	Type string `json:"type"`
	analysis.Verdict
}

// SkippedLine is a file that is not a Kafka file.
type SkippedLine struct {
	Type   string `json:"type"`
	Input  int32  `json:"input"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Verify writes verify's JSON lines: every finding (notes too unless
// noNotes), the loss ledger's ranges, the verdicts, the skipped files and
// one summary.
// ClusterVerdictLine is one partition's verdict across its copies.
type ClusterVerdictLine struct {
	Type string `json:"type"`
	analysis.ClusterVerdict
}

func Verify(out io.Writer, res *pipeline.Result, sum *pipeline.Summary, noNotes bool) error {
	enc := stdjson.NewEncoder(out)
	// A partition held by several brokers gets its verdict across the
	// copies first: whether any offset is lost cluster-wide.
	for _, cv := range sum.Clusters {
		if err := enc.Encode(ClusterVerdictLine{"cluster_verdict", cv}); err != nil {
			return err
		}
	}
	for i := range res.Scan.Anomalies {
		a := res.Scan.Anomalies[i]
		if noNotes && !finding.Counts(a.Severity) {
			continue
		}
		if err := enc.Encode(FindingLine{"finding", a}); err != nil {
			return err
		}
	}
	for _, g := range res.Check.Gaps {
		if err := enc.Encode(GapLine{"gap", g}); err != nil {
			return err
		}
	}
	for _, v := range sum.Verdicts {
		if err := enc.Encode(VerdictLine{"partition", v}); err != nil {
			return err
		}
	}
	for _, s := range sum.Skipped {
		if err := enc.Encode(SkippedLine{"skipped", s.Input, s.Path, s.Reason}); err != nil {
			return err
		}
	}
	return enc.Encode(map[string]any{"type": "summary", "files": sum.Files, "checked_files": sum.CheckedFiles, "batches": sum.Batches,
		"records": sum.Records, "bytes": sum.Bytes, "findings": sum.Counted, "findings_by_kind": sum.CountedByKind, "notes": sum.Notes,
		"notes_by_kind": sum.NotesByKind, "errors": sum.Errors, "warnings": sum.Warnings, "partitions": len(sum.Verdicts),
		"skipped_files": len(sum.Skipped), "complete": !sum.Incomplete, "partitions_with_loss": sum.LossCopies - sum.UnreadCopies,
		"partitions_unread": sum.UnreadCopies, "crashed_copies": sum.Crashed.Copies, "crashed_log_dirs": sum.Crashed.LogDirs})
}
