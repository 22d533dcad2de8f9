package analysis_test

import (
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// TestCopyStatePhrases: every state has its own wording, and only the
// lagging one says the copy fetches what it lacks.
func TestCopyStatePhrases(t *testing.T) {
	seen := map[string]analysis.CopyState{}
	for _, s := range analysis.CopyStates {
		p := s.Phrase()
		if p == string(s) || p == "" {
			t.Errorf("%s: no wording", s)
		}
		if o, dup := seen[p]; dup {
			t.Errorf("%s and %s share %q", s, o, p)
		}
		seen[p] = s
		if strings.Contains(p, "fetches") != (s == analysis.CopyLagging) {
			t.Errorf("%s: %q", s, p)
		}
	}
}

// TestHeldFacts: the furthest of the copy's own records wins, and says
// which file it is; none known is -1.
func TestHeldFacts(t *testing.T) {
	end, what := analysis.HeldFacts{HighWatermark: 85, RecoveryPoint: 70, LastEpochStart: 60}.Held()
	if end != 85 || what != "high watermark" {
		t.Errorf("held %d by %q", end, what)
	}
	end, what = analysis.HeldFacts{HighWatermark: -1, RecoveryPoint: -1, LastEpochStart: 90}.Held()
	if end != 90 || what != "leader-epoch checkpoint" {
		t.Errorf("held %d by %q", end, what)
	}
	if end, _ := (analysis.HeldFacts{HighWatermark: -1, RecoveryPoint: -1, LastEpochStart: -1}).Held(); end != -1 {
		t.Errorf("nothing known: %d", end)
	}
}
