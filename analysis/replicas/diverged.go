package replicas

import (
	"fmt"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// diverged fills the row of a copy that holds what the reference does
// not, and adds its losses: each range of v's offsets outside the
// reference's history is a gap, and one finding names the first.
func (c *Collector) diverged(res *Result, row *analysis.ReplicaRow, v, ref *view, d split, w finding.Where, pos int64) {
	at := d.first()
	e, re := epochAt(v.hist, at), epochAt(ref.hist, at)
	if at >= ref.leo {
		re = ref.lastEpoch
	}
	row.FirstDivergentOffset, row.Epoch, row.ReferenceEpoch = &at, &e, &re
	row.Verdict = VerdictDiverged
	extra := append([]analysis.OffsetRange(nil), d.ranges...)
	row.MissingRanges = append(row.MissingRanges, d.ranges...)
	var sentences []string
	if len(d.ranges) > 0 {
		// Both copies hold these offsets in one epoch, with other batches:
		// truncation by leader epoch finds nothing to remove, so each
		// copy keeps its own records there.
		s := fmt.Sprintf("%s's offsets %s hold other batches than %s's in the same leader epoch (%d), with valid CRCs: "+
			"a copy altered or written outside replication, which leader-epoch truncation does not repair", v.name, rangesText(d.ranges), ref.name, e)
		if d.tail < 0 {
			s += "; the batches around them agree"
		}
		sentences = append(sentences, s)
	}
	if t := d.tail; t >= 0 {
		te, tre := epochAt(v.hist, t), epochAt(ref.hist, t)
		if t >= ref.leo {
			tre = ref.lastEpoch
		}
		if t < v.leo {
			extra = append(extra, analysis.OffsetRange{First: t, Last: v.leo - 1})
		}
		if t < ref.leo {
			row.MissingRanges = append(row.MissingRanges, analysis.OffsetRange{First: t, Last: ref.leo - 1})
		}
		from := max(epochStart(ref.hist, tre), t)
		sentences = append(sentences, fmt.Sprintf("%s's offsets %d–%d (epoch %d) are not in the epoch-%d history led by %s from offset %d: lost when %s truncates",
			v.name, t, v.leo-1, te, tre, ref.name, from, v.name))
	} else if v.leo < ref.leo {
		row.MissingRanges = append(row.MissingRanges, analysis.OffsetRange{First: v.leo, Last: ref.leo - 1})
		sentences = append(sentences, fmt.Sprintf("it lacks %d–%d, which it fetches when it follows again", v.leo, ref.leo-1))
	}
	row.ExtraRanges = append(row.ExtraRanges, extra...)
	row.Explanation = sentences[0]
	for _, s := range sentences[1:] {
		row.Explanation += "; " + s
	}
	if hw := row.HighWatermark; hw != nil && len(extra) > 0 {
		first, last := extra[0].First, extra[len(extra)-1].Last
		switch {
		case *hw <= first:
			row.Explanation += fmt.Sprintf(" (all above its high watermark %d: no consumer read them from it)", *hw)
		case *hw <= last:
			row.Explanation += fmt.Sprintf(" (%d–%d were below its high watermark %d: consumers may have read them)", first, *hw-1, *hw)
		default:
			row.Explanation += fmt.Sprintf(" (below its high watermark %d: consumers may have read them)", *hw)
		}
	}
	row.ExtraFirstTime, row.ExtraLastTime = v.times(extra)
	for _, r := range extra {
		g := analysis.GapRow{Input: v.r.key.input, Source: c.source(v.r.key.input), Topic: v.r.topic, Partition: v.r.part, Dir: v.r.key.dir,
			FirstOffset: r.First, LastOffset: &r.Last, Cause: CauseDivergence, Severity: finding.Error, File: w.File, Explanation: row.Explanation}
		if b := v.batchAt(r.First); b != nil {
			p := b.pos
			g.File, g.Position = v.r.segs[b.seg], &p
		}
		gre := epochAt(ref.hist, r.First)
		if r.First >= ref.leo {
			gre = ref.lastEpoch
		}
		if v.lastEpoch < gre {
			// Every lost record of the range is of an epoch before the
			// one the reference holds these offsets in: a consumer commit
			// of that epoch or later read the reference's records here.
			g.ReferenceEpoch = &gre
		}
		res.Gaps = append(res.Gaps, g)
	}
	res.Findings = append(res.Findings, finding.New(w, KindDivergence, pos, at, "%s", row.Explanation))
}

// held is what the copy's own state files say it held: the log dir's
// high watermark and recovery point, the start of the last epoch of its
// leader-epoch-checkpoint.
func (c *Collector) held(v *view) analysis.HeldFacts {
	t := tp{v.r.topic, v.r.part}
	h := analysis.HeldFacts{HighWatermark: -1, RecoveryPoint: -1, LastEpochStart: -1}
	if hw, ok := v.ld.hw[t]; ok {
		h.HighWatermark = hw
	}
	if rp, ok := v.ld.rp[t]; ok {
		h.RecoveryPoint = rp
	}
	if n := len(v.r.ckpt); n > 0 {
		h.LastEpochStart = v.r.ckpt[n-1].StartOffset
	}
	return h
}

// heldPast reports whether the copy's own state files show it held
// offsets past its end.
func (c *Collector) heldPast(v *view) bool {
	end, _ := c.held(v).Held()
	return end > v.leo
}

// lostTail judges a prefix of the reference that held more than it has:
// lost, as its own verdict says, not lagging. The loss ledger holds its
// cause already (a torn batch, a checkpoint ahead), so no finding is
// added here.
func (c *Collector) lostTail(row *analysis.ReplicaRow, v, ref *view) {
	end, what := c.held(v).Held()
	row.Verdict = VerdictLost
	row.MissingRanges = append(row.MissingRanges, analysis.OffsetRange{First: v.leo, Last: ref.leo - 1})
	row.Explanation = fmt.Sprintf("%s %s; %s holds %s", v.name, analysis.LostPhrase(v.leo, min(end, ref.leo)-1, end, what),
		ref.name, offsets(v.leo, ref.leo))
}
