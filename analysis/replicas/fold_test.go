package replicas

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// soleBatches is a copy of n batches of 3 records each over segments of
// 1,000 batches, in leader epochs that rise every 7,000 batches, with a
// few batches that carry no epoch (-1, a magic 0 or 1 batch) and one
// epoch that goes back down (an epoch written behind a later one).
func soleBatches(n int) []analysis.BatchRow {
	rows := make([]analysis.BatchRow, n)
	for i := range rows {
		base := int64(i) * 3
		epoch := int32(i/7000) + 2
		switch {
		case i%5000 == 17:
			epoch = -1
		case i == n/2:
			epoch = 1
		}
		rows[i] = analysis.BatchRow{Topic: "t", Partition: 0, Segment: fmt.Sprintf("d/t-0/%020d.log", base-base%3000),
			Position: int64(i%1000) * 100, BaseOffset: base, LastOffset: base + 2, RecordCount: 3, CRCValid: true,
			DecodedRecords: 3, PartitionLeaderEpoch: epoch}
	}
	return rows
}

// fed is the only copy of a collector fed rows, in their order, as sole
// copies or not.
func fed(rows []analysis.BatchRow, sole bool) (*Collector, *replica) {
	c := New([]string{"in"})
	for i := range rows {
		b := rows[i]
		b.SoleCopy = sole
		c.Batch(&b)
	}
	return c, c.order[0]
}

// TestSoleCopyFolded: a sole copy keeps no batch header (64 bytes per
// batch, held to the end of the run), only a fold of a few entries per
// leader epoch, and its view (start, log end, epoch history) is the one
// its kept headers give, whatever order the batches come in: in offset
// order, reversed, shuffled, and with batches of the same base offset.
func TestSoleCopyFolded(t *testing.T) {
	rows := soleBatches(100_000)
	orders := map[string][]analysis.BatchRow{"offset order": rows, "reversed": slices.Clone(rows), "shuffled": slices.Clone(rows)}
	slices.Reverse(orders["reversed"])
	rng := rand.New(rand.NewPCG(43, 1))
	rng.Shuffle(len(rows), func(i, j int) {
		orders["shuffled"][i], orders["shuffled"][j] = orders["shuffled"][j], orders["shuffled"][i]
	})
	// Two batches at one base offset in other epochs: the one that came
	// first is first in view's stable sort.
	tied := slices.Clone(rows[:20])
	tied = append(tied, tied[9])
	tied[9].PartitionLeaderEpoch, tied[20].PartitionLeaderEpoch = 9, 5
	orders["tied"] = tied
	for name, in := range orders {
		c, sole := fed(in, true)
		if len(sole.batches) != 0 || cap(sole.batches) != 0 || len(sole.fold.firsts) > 20 {
			t.Errorf("%s: a sole copy of %d batches holds %d batch headers (capacity %d) and %d epoch entries, want none and at most 20",
				name, len(in), len(sole.batches), cap(sole.batches), len(sole.fold.firsts))
		}
		kc, kept := fed(in, false)
		if len(kept.batches) != len(in) {
			t.Fatalf("%s: a compared copy holds %d of %d batch headers", name, len(kept.batches), len(in))
		}
		got, want := c.view(sole), kc.view(kept)
		if got.start != want.start || got.leo != want.leo || got.lastEpoch != want.lastEpoch || !reflect.DeepEqual(got.hist, want.hist) {
			t.Errorf("%s: a sole copy's view is %d–%d, epoch %d, history %v; its kept headers give %d–%d, epoch %d, history %v",
				name, got.start, got.leo, got.lastEpoch, got.hist, want.start, want.leo, want.lastEpoch, want.hist)
		}
		if len(want.hist) < 2 {
			t.Errorf("%s: the history has %d epochs, want a test that has several: %v", name, len(want.hist), want.hist)
		}
		if !reflect.DeepEqual(c.Compare(), kc.Compare()) || !reflect.DeepEqual(sole.segs, kept.segs) {
			t.Errorf("%s: the comparison or the segments of a sole copy differ from those of its kept headers", name)
		}
	}
}

// BenchmarkSoleCopyBatch: the collector's cost per batch of a copy of
// 100,000 batches (B/op is per copy), sole (folded) and compared (headers
// kept).
func BenchmarkSoleCopyBatch(b *testing.B) {
	for _, sole := range []bool{true, false} {
		name := map[bool]string{true: "sole", false: "compared"}[sole]
		b.Run(name, func(b *testing.B) {
			rows := soleBatches(100_000)
			for i := range rows {
				rows[i].SoleCopy = sole
			}
			b.ReportAllocs()
			for b.Loop() {
				c := New([]string{"in"})
				for i := range rows {
					c.Batch(&rows[i])
				}
			}
		})
	}
}
