package pipeline

import (
	"math"
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

// heapLimit counts the runs under way in the process, so that the limit
// set by the first is lifted when the last ends (tests run several at
// once).
var heapLimit struct {
	sync.Mutex
	runs int
	set  bool
	prev int64
}

// holdHeap sets HeapLimit unless a limit is already set, and returns the
// function that lifts it when the run ends.
func holdHeap() (release func()) {
	heapLimit.Lock()
	defer heapLimit.Unlock()
	if heapLimit.runs == 0 && debug.SetMemoryLimit(-1) == math.MaxInt64 {
		heapLimit.prev, heapLimit.set = debug.SetMemoryLimit(HeapLimit), true
	}
	heapLimit.runs++
	return func() {
		heapLimit.Lock()
		defer heapLimit.Unlock()
		if heapLimit.runs--; heapLimit.runs == 0 && heapLimit.set {
			debug.SetMemoryLimit(heapLimit.prev)
			heapLimit.set = false
		}
	}
}
