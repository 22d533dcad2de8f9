package check

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// TestBatchLog: the batches come back in the order added, across chunk
// boundaries, and a reset log starts empty with its chunks reused.
func TestBatchLog(t *testing.T) {
	var l batchLog
	for round, n := range []int{2*logChunk + 7, logChunk, 3} {
		for i := range n {
			l.add(analysis.ProducerBatch{BaseOffset: int64(i), LastOffset: int64(round)})
		}
		if l.len() != n {
			t.Fatalf("round %d: %d batches, want %d", round, l.len(), n)
		}
		next := 0
		l.each(func(b *analysis.ProducerBatch) bool {
			if b.BaseOffset != int64(next) || b.LastOffset != int64(round) {
				t.Fatalf("round %d: batch %d is %+v", round, next, b)
			}
			next++
			return next < n-1 // stop before the last
		})
		if next != n-1 {
			t.Errorf("round %d: each went over %d batches, want %d (stopped)", round, next, n-1)
		}
		l.reset()
		if l.len() != 0 {
			t.Errorf("round %d: %d batches after reset", round, l.len())
		}
	}
}
