package realcheck

import (
	"slices"
	"testing"
)

// mergeSpans joins a partition's touching runs and keeps partitions and
// holes apart, so a loss verify reports in two causes compares as one.
func TestMergeSpans(t *testing.T) {
	in := []tieredSpan{
		{Topic: "a", First: 69, Last: 74, Why: "x"}, {Topic: "a", First: 23, Last: 43, Why: "y"},
		{Topic: "a", First: 75, Last: 88, Why: "z"}, {Topic: "a", Partition: 1, First: 89, Last: 90, Why: "w"},
	}
	got := mergeSpans(in)
	want := []tieredSpan{{Topic: "a", First: 23, Last: 43}, {Topic: "a", First: 69, Last: 88}, {Topic: "a", Partition: 1, First: 89, Last: 90}}
	if !slices.EqualFunc(got, want, sameSpan) {
		t.Errorf("merged %v, want %v", got, want)
	}
}
