package check

import (
	"sync"

	"github.com/ksleuth/ksleuth/analysis"
)

// batchLog holds the producer batches of the segment being replayed, for
// a snapshot that turns out to lie inside it. They are kept in chunks of
// a fixed size, reused from one segment and partition to the next: one
// slice grown by append copied every batch again at each doubling into
// fresh memory, whose page faults made keeping them a seventh of the CPU
// of replicas over three copies of a 1 GiB segment.
type batchLog struct {
	chunks [][]analysis.ProducerBatch
	n      int
}

// logChunk is the batches of one chunk (256 KiB).
const logChunk = 4096

var logChunks = sync.Pool{New: func() any { return new([logChunk]analysis.ProducerBatch) }}

func (l *batchLog) add(b analysis.ProducerBatch) {
	if l.n%logChunk == 0 {
		l.chunks = append(l.chunks, logChunks.Get().(*[logChunk]analysis.ProducerBatch)[:0])
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, b)
	l.n++
}

func (l *batchLog) len() int { return l.n }

// each calls fn with the batches in the order added, until it returns
// false.
func (l *batchLog) each(fn func(*analysis.ProducerBatch) bool) {
	for _, c := range l.chunks {
		for i := range c {
			if !fn(&c[i]) {
				return
			}
		}
	}
}

// reset empties the log and gives its chunks back for reuse.
func (l *batchLog) reset() {
	for _, c := range l.chunks {
		logChunks.Put((*[logChunk]analysis.ProducerBatch)(c[:logChunk]))
	}
	l.chunks, l.n = l.chunks[:0], 0
}
