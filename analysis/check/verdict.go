package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// Verdict is the one-line answer for a partition copy: intact, or which
// offsets are lost and why.
type Verdict struct {
	analysis.Verdict

	// gaps and span are what the text is judged from, kept so that losses
	// found outside the checker (AddLosses) can join them.
	gaps []analysis.GapRow
	span string
	// transit is the state of a -delete, -future or -stray dir, "" for a
	// live one (transit.go).
	transit analysis.CopyState
}

// verdict sums up the partition's gaps; ok is false for a partition dir
// without live segments.
func (p *partition) verdict(gaps []analysis.GapRow) (Verdict, bool) {
	if len(p.segs) == 0 && len(gaps) == 0 {
		return Verdict{}, false
	}
	v := Verdict{Verdict: analysis.Verdict{Input: p.key.input, Source: p.c.source(p.key.input), Topic: p.topic, Partition: p.part,
		Dir: p.key.dir, FirstOffset: p.firstOffset(), LogEndOffset: p.logEnd()}, gaps: gaps, transit: analysis.DirCopyState(p.dirState)}
	v.span = "no batches"
	switch {
	case p.bare == bareEmpty:
		v.span = "no file (an empty dir)"
	case len(p.segs) == 0:
		v.span = "no segment on disk"
	}
	if v.FirstOffset >= 0 {
		v.span = fmt.Sprintf("offsets %d..%d", v.FirstOffset, v.LogEndOffset-1)
	}
	v.CrashSigns = p.crashSigns()
	v.Crashed = len(v.CrashSigns) > 0
	v.judge()
	return v, true
}

// judge sets the verdict's loss counts and text from its gaps.
func (v *Verdict) judge() {
	v.Intact, v.Lost, v.Unbounded, v.Unread = true, 0, false, false
	var bad []string
	var lostRanges []analysis.OffsetRange
	notes := map[string]int{}
	var remote []string
	// unreadOnly: every range counted is one the input failed to deliver,
	// which says nothing of whether the broker's data is lost.
	unreadOnly := true
	for _, g := range v.gaps {
		if !finding.Counts(g.Severity) {
			notes[g.Cause]++
			if g.Cause == CauseRemoteOnly && g.LastOffset != nil {
				remote = append(remote, fmt.Sprintf("%d..%d", g.FirstOffset, *g.LastOffset))
			}
			continue
		}
		v.Intact = false
		unreadOnly = unreadOnly && g.Cause == CauseUnread
		rng := fmt.Sprintf("%d..", g.FirstOffset)
		if g.LastOffset != nil {
			rng += fmt.Sprint(*g.LastOffset)
			lostRanges = append(lostRanges, analysis.OffsetRange{First: g.FirstOffset, Last: *g.LastOffset})
		} else {
			rng += "?"
			v.Unbounded = true
		}
		if len(bad) < 4 {
			bad = append(bad, fmt.Sprintf("%s %s (%s)", rng, g.Severity, g.Cause))
		} else if len(bad) == 4 {
			bad = append(bad, "…")
		}
	}
	// Two causes can name the same offsets (a batch damaged in this copy
	// and also missing from the reference's): each offset is lost once.
	v.Lost = unionSize(lostRanges)
	span := v.span
	if v.Crashed {
		span += " (" + crashedPhrase + ")"
	}
	if v.Intact && v.transit != "" {
		v.State = v.transit
		v.Text = transitHead[v.transit] + ": " + span
		var absent []string
		for _, g := range v.gaps {
			if g.Cause != CauseRetention && g.Cause != CauseCompaction && g.Cause != CauseDeleteRecords {
				absent = append(absent, rangeText(g.FirstOffset, g.LastOffset))
			}
		}
		if len(absent) > 0 {
			v.Text += "; not on disk: " + strings.Join(absent, ", ") + " (not a loss)"
		}
		return
	}
	if v.Intact {
		v.State = analysis.CopyIntact
		v.Text = "intact: " + span
		if len(notes) > 0 {
			var ns []string
			for _, c := range []string{CauseRetention, CauseDeleteRecords, CauseCompaction} {
				if notes[c] > 0 {
					ns = append(ns, fmt.Sprintf("%d %s", notes[c], c))
				}
			}
			if len(ns) > 0 {
				v.Text += " (absent by design: " + strings.Join(ns, ", ") + ")"
			}
		}
		if len(remote) > 0 {
			v.Text += "; remote-only: offsets " + strings.Join(remote, ", ") + " (held in remote storage, per __remote_log_metadata)"
		}
		return
	}
	lost := fmt.Sprintf("%d offset(s)", v.Lost)
	switch {
	case v.Unbounded && v.Lost == 0:
		lost = "offsets (how many is unknown)"
	case v.Unbounded:
		lost = "at least " + lost
	}
	v.State = analysis.CopyLost
	if v.Unread = unreadOnly; v.Unread {
		v.State = analysis.CopyUnread
	}
	head := strings.ToUpper(string(v.State))
	v.Text = fmt.Sprintf("%s %s: %s; on disk: %s", head, lost, strings.Join(bad, ", "), strings.TrimSuffix(span, " on disk"))
}

// UnreadCopy reports whether the verdict of the partition copy in dir of
// input is UNREAD: its input, a cut archive, ended before the rest of it.
func (r *Result) UnreadCopy(input int32, dir string) bool {
	if r.unread == nil {
		r.unread = map[partKey]bool{}
		for i := range r.Partitions {
			if v := &r.Partitions[i]; v.Unread {
				r.unread[partKey{v.Input, v.Dir}] = true
			}
		}
	}
	return r.unread[partKey{input, dir}]
}

// unionSize is the number of offsets the ranges cover together.
func unionSize(rs []analysis.OffsetRange) int64 {
	slices.SortFunc(rs, func(a, b analysis.OffsetRange) int { return cmp.Compare(a.First, b.First) })
	var n int64
	end := int64(-1) << 62 // the last offset counted so far
	for _, r := range rs {
		first := max(r.First, end+1)
		if r.Last >= first {
			n += r.Last - first + 1
			end = r.Last
		}
	}
	return n
}

// AddLosses adds loss-ledger rows found outside the checker (the replica
// comparison's) to the ledger and to the verdicts of their copies.
func (r *Result) AddLosses(gaps []analysis.GapRow) {
	if len(gaps) == 0 {
		return
	}
	for _, g := range gaps {
		for i := range r.Partitions {
			v := &r.Partitions[i]
			if v.Input == g.Input && v.Dir == g.Dir {
				v.gaps = append(v.gaps, g)
				v.judge()
			}
		}
	}
	for _, g := range gaps {
		// After the copy's own rows up to its offset; the order of the
		// others stays as the checker found them.
		at := len(r.Gaps)
		for i, h := range r.Gaps {
			if h.Input == g.Input && h.Dir == g.Dir {
				at = i + 1
				if h.FirstOffset > g.FirstOffset {
					at = i
					break
				}
			}
		}
		r.Gaps = slices.Insert(r.Gaps, at, g)
	}
}
