package check_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// TestTornSegmentGivenAlone: a segment given on its own is graded by the
// live segments beside it in its dir, as dump grades it and as verify
// grades it in its partition dir: with a later segment beside it, a torn
// batch is lost data (an error) bounded by that segment's base offset;
// without one it is the active segment's torn tail (a warning).
func TestTornSegmentGivenAlone(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	rolled, active := p.Segments[0], p.Segments[len(p.Segments)-1]
	for _, s := range []string{rolled.File, active.File} {
		mfs[s].Data = mfs[s].Data[:len(mfs[s].Data)-5]
	}
	root := writeFS(t, mfs, "codecs-0")
	for _, c := range []struct {
		file, sev, msg string
		first, last    int64
	}{
		{rolled.File, finding.Error, "in a rolled segment", rolled.Batches[len(rolled.Batches)-1].BaseOffset, p.Segments[1].BaseOffset - 1},
		{active.File, finding.Warning, "active segment", active.Batches[len(active.Batches)-1].BaseOffset, -1},
	} {
		rep := runPaths(t, filepath.Join(root, filepath.FromSlash(c.file)))
		var torn []Finding
		for _, f := range rep.Findings {
			if f.Kind == finding.KindTruncated {
				torn = append(torn, f)
			}
		}
		if len(torn) != 1 || torn[0].Severity != c.sev || !strings.Contains(torn[0].Message, c.msg) {
			t.Errorf("%s given alone: torn batches %v, want one %s saying %q", c.file, torn, c.sev, c.msg)
		}
		// Below the file, only retention notes: the earlier segments
		// beside it are not read.
		var lost []analysis.GapRow
		for _, g := range rep.Gaps {
			if g.Severity != finding.Note {
				lost = append(lost, g)
			}
		}
		if len(lost) != 1 || lost[0].Cause != check.CauseTruncated || lost[0].Severity != c.sev ||
			lost[0].FirstOffset != c.first || lastOf(lost[0]) != c.last {
			t.Errorf("%s given alone: gaps %+v, want one %s gap %d..%d", c.file, rep.Gaps, c.sev, c.first, c.last)
		}
	}
}
