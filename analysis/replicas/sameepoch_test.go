package replicas_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
)

// rewritten is ten batches of five records at 0, 5, ..., 45 in epoch 0,
// the batches at the indexes in other with other content (valid CRCs),
// up to batch n; at is the byte position of the first rewritten batch.
func rewritten(n int, other ...int) (seg []byte, at int) {
	at = -1
	for i := range n {
		tag := "x"
		if slices.Contains(other, i) {
			tag = "rewritten"
			if at < 0 {
				at = len(seg)
			}
		}
		seg = append(seg, batchOf(int64(i*5), 5, 0, tag)...)
	}
	return seg, at
}

func divergenceGaps(res *pipeline.Result) []analysis.GapRow {
	var out []analysis.GapRow
	for _, g := range res.Check.Gaps {
		if g.Cause == replicas.CauseDivergence {
			out = append(out, g)
		}
	}
	return out
}

// TestSameEpochRewrittenBatch: a copy whose one batch holds other
// content in the same leader epoch, with a valid CRC (so no damage),
// differs from the reference at that batch's offsets only: the batches
// after it are the same. Truth: brokers 1 and 2 hold the same ten batches
// in epoch 0 but for broker 2's batch at 20–24.
func TestSameEpochRewrittenBatch(t *testing.T) {
	root := t.TempDir()
	ref, _ := rewritten(10)
	alt, at := rewritten(10, 4)
	b1 := broker(t, root, 1, ref, [][2]int64{{0, 0}}, 50)
	b2 := broker(t, root, 2, alt, [][2]int64{{0, 0}}, 50)
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2}}, b1, b2)
	// The tie on epoch and end goes to the earlier input.
	if r := rowOf(t, res.Replicas.Rows, 1); r.Verdict != replicas.VerdictReference {
		t.Fatalf("reference row %+v", r)
	}
	div := rowOf(t, res.Replicas.Rows, 2)
	want := []analysis.OffsetRange{{First: 20, Last: 24}}
	if div.Verdict != replicas.VerdictDiverged || div.FirstDivergentOffset == nil || *div.FirstDivergentOffset != 20 ||
		*div.Epoch != 0 || *div.ReferenceEpoch != 0 || !slices.Equal(div.ExtraRanges, want) || !slices.Equal(div.MissingRanges, want) {
		t.Errorf("row %+v, want diverged at 20 with extra and missing 20–24", div)
	}
	if !strings.Contains(div.Explanation, "offsets 20–24 hold other batches than broker 1's in the same leader epoch (0)") ||
		!strings.Contains(div.Explanation, "the batches around them agree") {
		t.Errorf("sentence %q", div.Explanation)
	}
	gs := divergenceGaps(res)
	if len(gs) != 1 || gs[0].Input != 1 || gs[0].FirstOffset != 20 || *gs[0].LastOffset != 24 || gs[0].Position == nil ||
		*gs[0].Position != int64(at) || gs[0].ReferenceEpoch != nil {
		t.Errorf("divergence gaps %+v, want 20..24 at byte %d", gs, at)
	}
	for _, v := range res.Check.Partitions {
		if v.Input == 1 && (v.Intact || v.Lost != 5 || !strings.Contains(v.Text, "LOST 5 offset(s): 20..24 error (replica-divergence)")) {
			t.Errorf("verdict %+v", v)
		}
	}
	if res.Scan.Errors != 1 {
		t.Errorf("%d errors, want the one divergence", res.Scan.Errors)
	}
}

// TestSameEpochRewrittenBatchesLagging: rewritten batches apart from each
// other are ranges of their own, and a copy that also stops early lacks
// the rest, which is no loss of its own. Truth: broker 2 holds eight of
// the ten batches, those at 10–14 and 25–29 with other content.
func TestSameEpochRewrittenBatchesLagging(t *testing.T) {
	root := t.TempDir()
	ref, _ := rewritten(10)
	alt, _ := rewritten(8, 2, 5)
	b1 := broker(t, root, 1, ref, [][2]int64{{0, 0}}, 50)
	b2 := broker(t, root, 2, alt, [][2]int64{{0, 0}}, 40)
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2}}, b1, b2)
	div := rowOf(t, res.Replicas.Rows, 2)
	extra := []analysis.OffsetRange{{First: 10, Last: 14}, {First: 25, Last: 29}}
	missing := append(slices.Clone(extra), analysis.OffsetRange{First: 40, Last: 49})
	if div.Verdict != replicas.VerdictDiverged || *div.FirstDivergentOffset != 10 || !slices.Equal(div.ExtraRanges, extra) ||
		!slices.Equal(div.MissingRanges, missing) {
		t.Errorf("row %+v, want extra %v and missing %v", div, extra, missing)
	}
	if !strings.Contains(div.Explanation, "it lacks 40–49, which it fetches when it follows again") {
		t.Errorf("sentence %q", div.Explanation)
	}
	gs := divergenceGaps(res)
	if len(gs) != 2 || gs[0].FirstOffset != 10 || *gs[0].LastOffset != 14 || gs[1].FirstOffset != 25 || *gs[1].LastOffset != 29 {
		t.Errorf("divergence gaps %+v", gs)
	}
	for _, a := range res.Scan.Anomalies {
		if a.Kind == finding.KindReplicaDivergence && (a.Offset == nil || *a.Offset != 10) {
			t.Errorf("finding %+v, want it at offset 10", a)
		}
	}
}

// TestSameEpochDifferenceThenDivergence: a batch rewritten in the shared
// epoch, and a tail the reference's later epoch replaced, are a range and
// the tail. Truth: broker 1 holds ten batches of epoch 0, the one at 5–9
// rewritten; broker 3 the same first six (the one at 5–9 as written),
// then epoch 1 from offset 30.
func TestSameEpochDifferenceThenDivergence(t *testing.T) {
	root := t.TempDir()
	old, _ := rewritten(10, 1)
	leader, _ := rewritten(6)
	for i := range 4 {
		leader = append(leader, moved(batchOf(0, 5, 0, "new"), int64(30+i*5), 1)...)
	}
	b1 := broker(t, root, 1, old, [][2]int64{{0, 0}}, 50)
	b3 := broker(t, root, 3, leader, [][2]int64{{0, 0}, {1, 30}}, 50)
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2}}, b1, b3)
	div := rowOf(t, res.Replicas.Rows, 1)
	extra := []analysis.OffsetRange{{First: 5, Last: 9}, {First: 30, Last: 49}}
	if div.Verdict != replicas.VerdictDiverged || *div.FirstDivergentOffset != 5 || !slices.Equal(div.ExtraRanges, extra) ||
		!slices.Equal(div.MissingRanges, extra) {
		t.Errorf("row %+v, want extra and missing %v", div, extra)
	}
	if !strings.Contains(div.Explanation, "offsets 30–49 (epoch 0) are not in the epoch-1 history led by broker 3 from offset 30") {
		t.Errorf("sentence %q", div.Explanation)
	}
	gs := divergenceGaps(res)
	if len(gs) != 2 || gs[0].FirstOffset != 5 || gs[0].ReferenceEpoch != nil || gs[1].FirstOffset != 30 ||
		gs[1].ReferenceEpoch == nil || *gs[1].ReferenceEpoch != 1 {
		t.Errorf("divergence gaps %+v", gs)
	}
}

// TestDamagedCRCField: a batch whose stored CRC itself rotted fails its
// CRC and differs from the reference's by it: damage, not another batch.
// Truth: broker 2's batch at 20–24 has one bit of its CRC field flipped.
func TestDamagedCRCField(t *testing.T) {
	root := t.TempDir()
	ref, _ := rewritten(10)
	alt := slices.Clone(ref)
	at := 0
	for i := range 4 {
		at += len(batchOf(int64(i*5), 5, 0, "x"))
	}
	alt[at+17] ^= 0x01 // the first byte of the fifth batch's CRC
	b1 := broker(t, root, 1, ref, [][2]int64{{0, 0}}, 50)
	b2 := broker(t, root, 2, alt, [][2]int64{{0, 0}}, 50)
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2}}, b1, b2)
	if r := rowOf(t, res.Replicas.Rows, 2); r.Verdict != replicas.VerdictDamaged || !strings.Contains(r.Explanation, "offsets 20–24 are damaged in this copy") {
		t.Errorf("row %+v, want damaged at 20–24", r)
	}
	if gs := divergenceGaps(res); len(gs) != 0 {
		t.Errorf("divergence gaps %+v", gs)
	}
}
