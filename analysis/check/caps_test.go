package check

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/producer"
)

// TestCapRowsKeepSeverity: past the per-file cap of one kind, the row
// saying how many more were not listed carries the severity of the
// findings it stands for, one row per severity, not the kind's default:
// a kind whose findings were warnings is not summed up as errors, nor
// counted as such.
func TestCapRowsKeepSeverity(t *testing.T) {
	c := New(nil, nil, Options{MaxFindingsPerFile: 2, NewProducerState: producer.NewProducerState})
	p := newPartition(c, partKey{0, "t-0"}, "t", 0)
	w := p.where("t-0/00000000000000000000.index")
	for range 2 {
		p.add(finding.New(w, finding.KindIndexMismatch, 0, 0, "listed"))
	}
	for range 3 {
		p.add(finding.NewSev(w, finding.KindIndexMismatch, finding.Warning, 0, 0, "past the cap"))
	}
	p.add(finding.New(w, finding.KindIndexMismatch, 0, 0, "past the cap"))
	p.flushCaps()
	rows := p.findings[2:]
	if len(rows) != 2 || rows[0].Severity != finding.Error || rows[0].Stands() != 1 ||
		rows[1].Severity != finding.Warning || rows[1].Stands() != 3 {
		t.Errorf("cap rows %+v, want one error standing for 1 and one warning standing for 3", rows)
	}
}
