package scan

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// TestOmittedRowSeverity: the findings of a file past the listing cap are
// said in one row per severity among them, carrying that severity and how
// many it stands for: warnings past the cap are never shown as a note,
// and an error among them has a row of its own.
func TestOmittedRowSeverity(t *testing.T) {
	defer func(n int) { MaxFileAnomalies = n }(MaxFileAnomalies)
	MaxFileAnomalies = 2
	fc := &fileCtx{e: &source.Entry{Path: "p-0/00000000000000000000.log"}, done: &fileDone{}}
	at := func(kind finding.Kind, sev finding.Severity, p int64, msg string) {
		fc.anomaly(finding.NewSev(fc.where(), kind, sev, p, -1, "%s", msg))
	}
	at(finding.KindZeroTail, finding.Note, 0, "listed")
	at(finding.KindZeroTail, finding.Note, 1, "listed")
	for i := range 3 {
		at(finding.KindOffsetGap, finding.Warning, int64(10+i), "past the cap")
	}
	at(finding.KindCRCMismatch, finding.Error, 20, "past the cap")
	at(finding.KindZeroTail, finding.Note, 30, "past the cap")
	fc.omittedRow()
	got := map[finding.Severity]analysis.AnomalyRow{}
	for _, a := range fc.done.anomalies[2:] {
		if a.Kind != KindFindingsOmitted {
			t.Errorf("row %+v past the listed ones", a)
		}
		got[a.Severity] = a
	}
	for sev, want := range map[finding.Severity]struct{ n, pos int64 }{finding.Error: {1, 20}, finding.Warning: {3, 10}, finding.Note: {1, 30}} {
		a, ok := got[sev]
		if !ok || a.Omitted == nil || *a.Omitted != want.n || a.Position == nil || *a.Position != want.pos {
			t.Errorf("%s row %+v, want one standing for %d from byte %d", sev, a, want.n, want.pos)
		}
	}
	if len(got) != 3 {
		t.Errorf("rows %+v, want one per severity", fc.done.anomalies[2:])
	}
}
