package analysis

import (
	"slices"
	"testing"
)

// TestComparePartition: partitions sort by topic, then partition number,
// never as strings (t0-2 before t0-10), and the copies of one partition on
// several inputs sit together in the partition-first order.
func TestComparePartition(t *testing.T) {
	cs := []CopyOrder{{1, "t0", 10, "t0-10"}, {0, "t0", 2, "t0-2"}, {0, "t0", 10, "t0-10"}, {1, "t0", 2, "t0-2"}, {0, "a", 11, "a-11"}}
	slices.SortFunc(cs, CopyOrder.ComparePartitionFirst)
	want := []CopyOrder{{0, "a", 11, "a-11"}, {0, "t0", 2, "t0-2"}, {1, "t0", 2, "t0-2"}, {0, "t0", 10, "t0-10"}, {1, "t0", 10, "t0-10"}}
	if !slices.Equal(cs, want) {
		t.Errorf("partition-first order: %v, want %v", cs, want)
	}
	slices.SortFunc(cs, CopyOrder.Compare)
	want = []CopyOrder{{0, "a", 11, "a-11"}, {0, "t0", 2, "t0-2"}, {0, "t0", 10, "t0-10"}, {1, "t0", 2, "t0-2"}, {1, "t0", 10, "t0-10"}}
	if !slices.Equal(cs, want) {
		t.Errorf("input-first order: %v, want %v", cs, want)
	}
}
