package scan

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/segment"
)

// TestOnceSetAcrossFiles: a batch that decoded cleanly from one file is
// not decoded again from another file of the same partition, whether the
// set still holds it in the partition's list or already in the map; a
// file never skips the batches it decoded itself, another partition's
// file skips none, and a batch that failed to decode is not held.
// Truth: the keys each file decoded.
func TestOnceSetAcrossFiles(t *testing.T) {
	o := &onceSet{m: map[onceKey]struct{}{}}
	a := &fileCtx{topic: "t", partition: 0}
	b := &fileCtx{topic: "t", partition: 0}
	other := &fileCtx{topic: "u", partition: 0}
	batch := func(base int64) *segment.Batch {
		return &segment.Batch{Magic: 2, BaseOffset: base, LastOffsetDelta: 4, CRC: uint32(base) * 7, CRCValid: true, PartitionLeaderEpoch: 1}
	}
	done := func(fc *fileCtx, base int64, clean bool) {
		j := &decodeJob{fc: fc, row: analysis.BatchRow{Topic: fc.topic, Partition: fc.partition, BaseOffset: base, LastOffset: base + 4,
			CRC: int64(uint32(base) * 7), CRCValid: true, PartitionLeaderEpoch: 1, RecordCount: 5}, n: 5}
		if !clean {
			j.n = 3
		}
		o.done(j)
	}
	for base := int64(0); base < 50; base += 5 {
		done(a, base, base != 45)
	}
	for base := int64(0); base < 50; base += 5 {
		if o.skip(a, batch(base)) {
			t.Errorf("file a skips its own batch at %d", base)
		}
		if o.skip(other, batch(base)) {
			t.Errorf("another partition's file skips the batch at %d", base)
		}
	}
	if p := o.parts[a.onceID]; p.inMap || len(p.pending) != 9 || len(o.m) != 0 {
		t.Errorf("before another file looks: in the map %v, %d listed, %d in the map; want 9 listed only", p.inMap, len(p.pending), len(o.m))
	}
	for base := int64(0); base < 55; base += 5 {
		want := base < 45
		if got := o.skip(b, batch(base)); got != want {
			t.Errorf("file b skips the batch at %d: %v, want %v", base, got, want)
		}
	}
	// Now held in the map: a later clean batch of b's is found by a.
	done(b, 100, true)
	if !o.skip(a, batch(100)) {
		t.Error("file a decodes again the batch b decoded at 100")
	}
	if got, want := o.skipped(), int64(10); got != want {
		t.Errorf("%d batches skipped, want %d", got, want)
	}
}
