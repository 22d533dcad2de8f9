package pipeline

import "testing"

// TestTablesBudgetLeavesTheProcessItsShare checks that dups --from-tables
// splits its budget so that the entries, the heap limit and the process's
// own memory add up to no more than the budget: a 10^8-record join at
// 1 GiB peaked above it when the entries and the heap took all of it.
func TestTablesBudgetLeavesTheProcessItsShare(t *testing.T) {
	for _, mem := range []int64{256 << 20, 512 << 20, 1 << 30, 8 << 30} {
		entries, heap := TablesBudget(mem)
		if heap != tablesHeap {
			t.Errorf("budget %d: heap limit %d, want %d", mem, heap, tablesHeap)
		}
		if entries+heap+tablesProcess != mem {
			t.Errorf("budget %d: entries %d + heap %d + process %d do not make the budget", mem, entries, heap, tablesProcess)
		}
	}
	// A budget too small to split goes to the entries whole, with no heap
	// limit, rather than a limit that keeps the collector running.
	if entries, heap := TablesBudget(128 << 20); entries != 128<<20 || heap != 0 {
		t.Errorf("128 MiB: entries %d, heap %d; want all to the entries", entries, heap)
	}
	if entries, _ := TablesBudget(0); entries <= 0 {
		t.Errorf("no budget: entries %d, want the default's share", entries)
	}
}
