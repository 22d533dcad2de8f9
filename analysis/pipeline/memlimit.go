package pipeline

import (
	"os"
	"runtime/debug"
	"sync"
)

// HeapLimit is the soft limit a run holds the Go heap to
// (docs/performance.md "Many partitions"). The heap a run keeps grows with
// the number of partitions (a few KB each: the checks' verdicts, the
// producer sessions, the batch headers the replica comparison needs), and
// the collector's default lets the heap reach twice what it keeps before
// it collects: on a log dir of 50,000 partitions that doubling was most of
// the peak. Past the limit the collector runs more often instead (at most
// half the CPU, the runtime's own bound), so a run that must keep more
// than the limit still completes. The duplicate detector's record buffer
// lies outside the heap and is bounded by dups.Options.MemBudget. A limit
// the environment sets (GOMEMLIMIT) is left as it is.
const HeapLimit = 300 << 20

// holdHeap sets HeapLimit, once, unless a limit is already set. It
// stays for the rest of the process: the outputs are built from a run's
// Result after the run returns, and that is when its heap is largest.
func holdHeap() {
	heapOnce.Do(func() {
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(HeapLimit)
		}
	})
}

var heapOnce sync.Once

// holdHeapTo holds the Go heap to limit until the returned function puts
// back the limit before; a limit the environment sets is left as it is.
// It is for a stage that does nothing but one bounded job (the join of
// dups --from-tables) and so can be held tighter than a run.
func holdHeapTo(limit int64) (restore func()) {
	if limit <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}
