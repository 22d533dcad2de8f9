package check

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// TestLinkCauses: in one partition copy a torn batch at 75 and, later in
// the ledger, a missing segment from 90: the index entry and checkpoint
// past 75 follow the cut, the snapshot past 90 the missing segment; a
// finding below both, another partition's and the causes themselves follow
// nothing.
func TestLinkCauses(t *testing.T) {
	w := finding.Where{Input: 1, Topic: "t", Partition: 0, File: "t-0/70.log"}
	cut := finding.New(w, finding.KindTruncated, 408, -1, "cut")
	w.File = "t-0/95.log"
	missing := finding.New(w, finding.KindMissingSegment, 0, 90, "missing")
	w.File = "t-0/70.index"
	index := finding.New(w, finding.KindIndexMismatch, 8, 84, "entry past the cut")
	below := finding.New(w, finding.KindIndexMismatch, 0, 10, "entry below")
	w.File = "t-0/99.snapshot"
	snap := finding.New(w, finding.KindSnapshotAhead, -1, 99, "snapshot")
	w.File = "replication-offset-checkpoint"
	ckpt := finding.New(w, finding.KindCheckpointAhead, -1, 85, "checkpoint")
	other := finding.New(finding.Where{Input: 1, Topic: "t", Partition: 1, File: "replication-offset-checkpoint"},
		finding.KindCheckpointAhead, -1, 85, "another partition")
	fs := []analysis.AnomalyRow{cut, missing, index, below, snap, ckpt, other}
	pos408, pos0, last89 := int64(408), int64(0), int64(89)
	gaps := []analysis.GapRow{
		{Input: 1, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 75, LastOffset: &last89, Cause: CauseTruncated,
			Severity: finding.Warning, File: "t-0/70.log", Position: &pos408},
		{Input: 1, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 90, Cause: CauseMissingSegment,
			Severity: finding.Error, File: "t-0/95.log", Position: &pos0},
	}
	linkCauses(fs, gaps)
	want := []string{"", "", "truncated-batch t-0/70.log@408", "", "missing-segment t-0/95.log@0", "truncated-batch t-0/70.log@408", ""}
	for i, f := range fs {
		got := ""
		if f.CausedBy != nil {
			got = *f.CausedBy
		}
		if got != want[i] {
			t.Errorf("%s (%s): caused_by %q, want %q", f.Kind, f.Message, got, want[i])
		}
	}
}

// TestLinkCausesDamagedBatch: a damaged batch's gap is evidenced by the
// reader's finding at its byte, whatever its kind, and an index entry
// inside the lost offsets follows from it.
func TestLinkCausesDamagedBatch(t *testing.T) {
	w := finding.Where{Input: 0, Topic: "t", Partition: 0, File: "t-0/0.log"}
	crc := finding.New(w, "crc-mismatch", 120, 10, "crc")
	w.File = "t-0/0.index"
	index := finding.New(w, finding.KindIndexMismatch, 16, 12, "entry in the damaged batch")
	past := finding.New(w, finding.KindIndexMismatch, 32, 40, "entry far past the damaged batch")
	fs := []analysis.AnomalyRow{crc, index, past}
	pos, last := int64(120), int64(14)
	linkCauses(fs, []analysis.GapRow{{Input: 0, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 10, LastOffset: &last,
		Cause: CauseDamaged, Severity: finding.Error, File: "t-0/0.log", Position: &pos}})
	if fs[0].CausedBy != nil || fs[1].CausedBy == nil || *fs[1].CausedBy != "crc-mismatch t-0/0.log@120" || fs[2].CausedBy != nil {
		t.Errorf("caused_by %v, %v, %v", fs[0].CausedBy, fs[1].CausedBy, fs[2].CausedBy)
	}
}

// TestLinkOmitted: the row that stands for the index entries past the
// per-file cap follows the cut that every listed entry of its file follows;
// one whose listed entries follow nothing, or different causes, follows
// nothing either.
func TestLinkOmitted(t *testing.T) {
	w := finding.Where{Input: 0, Topic: "t", Partition: 0, File: "t-0/0.log"}
	cut := finding.New(w, finding.KindTruncated, 408, -1, "cut")
	w.File = "t-0/0.index"
	listed := finding.New(w, finding.KindIndexMismatch, 8, 84, "entry past the cut")
	more := finding.WithOmitted(finding.New(w, finding.KindIndexMismatch, -1, -1, "15 more"), 15)
	w.File = "t-0/0.timeindex"
	lone := finding.New(w, finding.KindIndexMismatch, 0, 5, "entry below the cut")
	moreLone := finding.WithOmitted(finding.New(w, finding.KindIndexMismatch, -1, -1, "3 more"), 3)
	fs := []analysis.AnomalyRow{cut, listed, more, lone, moreLone}
	pos := int64(408)
	linkCauses(fs, []analysis.GapRow{{Input: 0, Topic: "t", Partition: 0, Dir: "t-0", FirstOffset: 75, Cause: CauseTruncated,
		Severity: finding.Error, File: "t-0/0.log", Position: &pos}})
	if fs[2].CausedBy == nil || *fs[2].CausedBy != "truncated-batch t-0/0.log@408" {
		t.Errorf("the omitted row past the cut: caused_by %v", fs[2].CausedBy)
	}
	if fs[3].CausedBy != nil || fs[4].CausedBy != nil {
		t.Errorf("below the cut: caused_by %v and %v", fs[3].CausedBy, fs[4].CausedBy)
	}
}
