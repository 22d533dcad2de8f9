package replicas

import (
	"fmt"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// On a compacted topic the log cleaner of each broker runs on its own
// schedule: one copy may have removed records, or whole batches, that
// another still holds. For a v2 batch the cleaner keeps the batch's base
// and last offsets and its leader epoch and rewrites only its records
// (fewer records, a new CRC); a batch left with no record goes, unless it
// is kept empty for its producer's state. None of that is divergence:
// the copies agree on every record both still hold.
//
// cleaner judges the batches one copy of a pair lacks, or holds rewritten
// differently, on a partition that the evidence says is compacted.
type cleaner struct {
	a, b *view
	// cleaned is each copy's cleaned point: its cleaner-offset-checkpoint
	// entry, or else the base offset of its last segment, which the
	// cleaner never touches (the active segment).
	cleanedA, cleanedB int64
	// differences counts the offsets one copy holds and the other's
	// cleaner removed; unchecked the rewritten batches whose records were
	// not compared (no fingerprints).
	differences int64
	unchecked   int
	evidence    string
}

// cleanerOf is the cleaner of the pair (v, ref), nil when nothing says
// the partition is compacted.
func (c *Collector) cleanerOf(v, ref *view) *cleaner {
	ev := c.compactionEvidence(v, ref)
	if ev == "" {
		return nil
	}
	return &cleaner{a: v, b: ref, cleanedA: cleanedPoint(v), cleanedB: cleanedPoint(ref), evidence: ev}
}

// compactionEvidence says why the pair's partition is compacted, "" when
// nothing does.
func (c *Collector) compactionEvidence(vs ...*view) string {
	t := tp{vs[0].r.topic, vs[0].r.part}
	if c.compacted[t.topic] {
		return "the cluster metadata sets cleanup.policy=compact"
	}
	switch topics.TopicOf(t.topic) {
	case topics.ConsumerOffsets, topics.TransactionState:
		return "the broker always compacts " + t.topic
	}
	for _, v := range vs {
		if _, ok := v.ld.cleaned[t]; ok {
			return v.name + "'s cleaner-offset-checkpoint has an entry for it"
		}
		if v.r.leftover != "" {
			return v.name + "'s partition dir holds the cleaner's " + v.r.leftover
		}
	}
	for _, v := range vs {
		bs := v.r.batches
		for i := range bs {
			if int64(bs[i].records) < bs[i].span() {
				return fmt.Sprintf("%s's batch at offset %d holds fewer records than its offsets, as the cleaner leaves it", v.name, bs[i].base)
			}
			if i > 0 && bs[i].seg == bs[i-1].seg && bs[i].epoch == bs[i-1].epoch && bs[i].base > bs[i-1].last+1 {
				return fmt.Sprintf("%s's offsets jump from %d to %d inside leader epoch %d, as only the cleaner leaves them", v.name, bs[i-1].last, bs[i].base, bs[i].epoch)
			}
		}
	}
	return ""
}

func cleanedPoint(v *view) int64 {
	if ck, ok := v.ld.cleaned[tp{v.r.topic, v.r.part}]; ok {
		return ck
	}
	last := int32(len(v.r.segs) - 1)
	for i := range v.r.batches {
		if v.r.batches[i].seg == last {
			return v.r.batches[i].base
		}
	}
	return v.leo
}

// removed reports whether batch x of copy xv, which the other copy ov
// lacks, is a cleaner difference: both histories give its offsets x's
// leader epoch and ov has cleaned past it. Counted when it is.
func (cl *cleaner) removed(x *batch, xv *view) bool {
	ov, cleaned := cl.b, cl.cleanedB
	if xv == cl.b {
		ov, cleaned = cl.a, cl.cleanedA
	}
	for _, h := range [][]analysis.EpochStart{xv.hist, ov.hist} {
		if epochAt(h, x.base) != x.epoch || epochAt(h, x.last) != x.epoch {
			return false
		}
	}
	if x.last >= cleaned {
		return false
	}
	cl.differences += int64(x.records)
	return true
}

// rewritten compares two batches of the same offsets and epoch but other
// CRCs: a cleaner difference when one holds fewer records than its span,
// the records both hold agree, and a copy lacks only offsets below its
// cleaned point. It returns the first offset where they disagree.
func (cl *cleaner) rewritten(x, y *batch) (int64, bool) {
	if int64(x.records) == x.span() && int64(y.records) == y.span() {
		return x.base, true // both whole: other data under the same offsets
	}
	rx, ry := cl.a.r.recsOf(x), cl.b.r.recsOf(y)
	if rx == nil && x.records > 0 || ry == nil && y.records > 0 {
		// No fingerprints: judged by offsets and epoch alone.
		if x.records < y.records && x.last >= cl.cleanedA || y.records < x.records && y.last >= cl.cleanedB {
			return x.base, true
		}
		cl.unchecked++
		cl.differences += int64(max(x.records, y.records) - min(x.records, y.records))
		return 0, false
	}
	i, j := 0, 0
	var diff int64
	for i < len(rx) || j < len(ry) {
		switch {
		case j == len(ry) || i < len(rx) && rx[i].off < ry[j].off:
			if rx[i].off >= cl.cleanedB { // y's copy lacks it above its cleaned point
				return rx[i].off, true
			}
			diff++
			i++
		case i == len(rx) || ry[j].off < rx[i].off:
			if ry[j].off >= cl.cleanedA {
				return ry[j].off, true
			}
			diff++
			j++
		default:
			if rx[i].fp != ry[j].fp {
				return rx[i].off, true
			}
			i++
			j++
		}
	}
	cl.differences += diff
	return 0, false
}

// sentence is what the explanation adds for the cleaner differences.
func (cl *cleaner) sentence(overBudget bool) string {
	if cl == nil || cl.differences == 0 && cl.unchecked == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "; %d record(s) below the cleaned point are in one copy and not the other, in the same leader epoch: "+
		"each broker's log cleaner compacts on its own schedule, which is not divergence (%s", cl.differences, cl.evidence)
	if cl.unchecked > 0 {
		fmt.Fprintf(&b, "; the records of %d rewritten batch(es) were not compared, only their offsets and epoch", cl.unchecked)
		if overBudget {
			b.WriteString(", past the fingerprints kept")
		} else {
			b.WriteString(": scan compares them")
		}
	}
	b.WriteString(")")
	return b.String()
}
