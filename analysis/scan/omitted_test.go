package scan

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
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
	at := func(p int64) *int64 { return &p }
	fc.anomaly("zero-tail", "note", at(0), nil, nil, "listed")
	fc.anomaly("zero-tail", "note", at(1), nil, nil, "listed")
	for i := range 3 {
		fc.anomaly("offset-gap", "warning", at(int64(10+i)), nil, nil, "past the cap")
	}
	fc.anomaly("crc-mismatch", "error", at(20), nil, nil, "past the cap")
	fc.anomaly("zero-tail", "note", at(30), nil, nil, "past the cap")
	fc.omittedRow()
	got := map[string]analysis.AnomalyRow{}
	for _, a := range fc.done.anomalies[2:] {
		if a.Kind != KindFindingsOmitted {
			t.Errorf("row %+v past the listed ones", a)
		}
		got[a.Severity] = a
	}
	for sev, want := range map[string]struct{ n, pos int64 }{"error": {1, 20}, "warning": {3, 10}, "note": {1, 30}} {
		a, ok := got[sev]
		if !ok || a.Omitted == nil || *a.Omitted != want.n || a.Position == nil || *a.Position != want.pos {
			t.Errorf("%s row %+v, want one standing for %d from byte %d", sev, a, want.n, want.pos)
		}
	}
	if len(got) != 3 {
		t.Errorf("rows %+v, want one per severity", fc.done.anomalies[2:])
	}
}
