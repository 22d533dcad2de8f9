package check_test

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

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
		file, msg   string
		sev         finding.Severity
		first, last int64
	}{
		{rolled.File, "in a rolled segment", finding.Error, rolled.Batches[len(rolled.Batches)-1].BaseOffset, p.Segments[1].BaseOffset - 1},
		{active.File, "active segment", finding.Warning, active.Batches[len(active.Batches)-1].BaseOffset, -1},
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

// TestZeroedSegmentGivenAlone: a segment of zeros given on its own is
// placed by the names beside it, as a torn one is: with a later segment
// beside it, it is a rolled segment whose batches the zeros replaced
// (the broker trims a preallocated segment when it rolls it), an error
// up to the later segment's base offset; without one it is the active
// segment, preallocated and not yet written, which loses nothing.
func TestZeroedSegmentGivenAlone(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	rolled, active := p.Segments[0], p.Segments[len(p.Segments)-1]
	for _, s := range []string{rolled.File, active.File} {
		mfs[s] = &fstest.MapFile{Data: make([]byte, len(mfs[s].Data))}
	}
	root := writeFS(t, mfs, "codecs-1")
	rep := runPaths(t, filepath.Join(root, filepath.FromSlash(rolled.File)))
	gs := rep.Gaps
	if len(gs) != 1 || gs[0].Cause != check.CauseDamaged || gs[0].Severity != finding.Error ||
		gs[0].FirstOffset != rolled.BaseOffset || lastOf(gs[0]) != p.Segments[1].BaseOffset-1 || !strings.Contains(gs[0].Explanation, "zero-filled rolled segment") {
		t.Errorf("rolled segment of zeros given alone: gaps %+v, want one damaged-batch error %d..%d", gs, rolled.BaseOffset, p.Segments[1].BaseOffset-1)
	}
	if len(rep.Verdicts) != 1 || rep.Verdicts[0].Intact {
		t.Errorf("rolled segment of zeros given alone: verdicts %+v, want a loss", rep.Verdicts)
	}
	rep = runPaths(t, filepath.Join(root, filepath.FromSlash(active.File)))
	for _, g := range rep.Gaps {
		if g.Severity != finding.Note {
			t.Errorf("active segment of zeros given alone: gap %+v", g)
		}
	}
}
