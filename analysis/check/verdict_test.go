package check

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// TestVerdictCountsOverlapsOnce: two causes can name the same offsets (a
// batch damaged in this copy that the replica comparison also finds
// missing). Truth: the count is the size of the ranges' union, and each
// range is still named with its cause.
func TestVerdictCountsOverlapsOnce(t *testing.T) {
	last := func(n int64) *int64 { return &n }
	gap := func(first int64, l *int64, cause string, sev finding.Severity) analysis.GapRow {
		return analysis.GapRow{FirstOffset: first, LastOffset: l, Cause: cause, Severity: sev}
	}
	for _, c := range []struct {
		gaps []analysis.GapRow
		lost int64
		text string
	}{
		{[]analysis.GapRow{gap(1, last(1), "damaged-batch", finding.Error), gap(1, last(910), "replica-divergence", finding.Error)},
			910, "LOST 910 offset(s): 1..1 error (damaged-batch), 1..910 error (replica-divergence); on disk: offsets 0..910"},
		{[]analysis.GapRow{gap(20, last(29), "replica-divergence", finding.Error), gap(5, last(9), "damaged-batch", finding.Error), gap(25, last(34), "missing-segment", finding.Warning)},
			20, "LOST 20 offset(s): 20..29 error (replica-divergence), 5..9 error (damaged-batch), 25..34 warning (missing-segment); on disk: offsets 0..910"},
		{[]analysis.GapRow{gap(3, last(4), "damaged-batch", finding.Error), gap(0, last(2), "retention", finding.Note), gap(4, nil, "missing-segment", finding.Warning)},
			2, "LOST at least 2 offset(s): 3..4 error (damaged-batch), 4..? warning (missing-segment); on disk: offsets 0..910"},
	} {
		v := Verdict{gaps: c.gaps, span: "offsets 0..910"}
		v.judge()
		if v.Lost != c.lost || v.Text != c.text || v.Intact {
			t.Errorf("lost %d, intact %v, %q; want %d, %q", v.Lost, v.Intact, v.Text, c.lost, c.text)
		}
	}
}
