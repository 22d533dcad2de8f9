package scan

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// TestSlicePoolRecycles: a slice put back is the one get returns next,
// emptied, and one too small for the request is not returned.
func TestSlicePoolRecycles(t *testing.T) {
	var sp slicePool[analysis.RecordEntry]
	sp.minCap, sp.maxCap = 8, 64
	s := sp.get(10)
	if len(s) != 0 || cap(s) < 10 {
		t.Fatalf("fresh slice: len %d cap %d", len(s), cap(s))
	}
	s = append(s, analysis.RecordEntry{Offset: 7})
	sp.put(s)
	// sync.Pool may drop what it holds; a slice it gives back must be s.
	if r := sp.get(5); cap(r) == cap(s) && len(r) != 0 {
		t.Fatalf("recycled slice has length %d", len(r))
	}
	sp.put(make([]analysis.RecordEntry, 0, 4))
	if r := sp.get(16); cap(r) < 16 {
		t.Fatalf("asked for 16, got capacity %d", cap(r))
	}
	sp.put(make([]analysis.RecordEntry, 0, 128)) // over maxCap: dropped
	if r := sp.get(0); cap(r) == 128 {
		t.Fatal("a slice over maxCap was kept")
	}
}

// BenchmarkSlicePool: a get and a put per batch, as the worker and the
// collector do them; it should allocate nothing once warm.
func BenchmarkSlicePool(b *testing.B) {
	var sp slicePool[analysis.RecordEntry]
	sp.minCap, sp.maxCap = 64, maxPrealloc
	b.ReportAllocs()
	for b.Loop() {
		sp.put(sp.get(16))
	}
}
