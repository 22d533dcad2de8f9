package scan

import (
	"sync"

	"github.com/ksleuth/ksleuth/segment"
)

// onceKey names a batch independently of the file it is read from: what
// two replicas of it share.
type onceKey struct {
	topic      string
	partition  int32
	epoch      int32
	crc        uint32
	base, last int64
}

// onceSet holds the batches whose records decoded cleanly (Config.
// DecodeOnce), shared by the workers.
type onceSet struct {
	mu sync.Mutex
	m  map[onceKey]struct{}
	n  int64 // batches skipped
}

func (o *onceSet) skipped() int64 {
	if o == nil {
		return 0
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// add counts n batches not decoded because a copy of them had been.
func (o *onceSet) add(n int64) {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.n += n
	o.mu.Unlock()
}

func keyOf(fc *fileCtx, b *segment.Batch) onceKey {
	return onceKey{topic: fc.topic, partition: fc.partition, epoch: b.PartitionLeaderEpoch, crc: b.CRC,
		base: b.BaseOffset, last: b.LastOffset()}
}

// skip reports whether b is a copy of a batch that decoded cleanly: a
// data batch (markers are decoded for their type) whose CRC holds.
func (o *onceSet) skip(fc *fileCtx, b *segment.Batch) bool {
	if o == nil || !b.CRCValid || b.IsControl() || b.Streamed() || fc.partition < 0 {
		return false
	}
	o.mu.Lock()
	_, ok := o.m[keyOf(fc, b)]
	if ok {
		o.n++
	}
	o.mu.Unlock()
	return ok
}

// done records a batch whose records all decoded.
func (o *onceSet) done(j *decodeJob) {
	r := &j.row
	if o == nil || !r.CRCValid || r.IsControl || j.err != nil || j.n != r.RecordCount || r.Partition < 0 {
		return
	}
	k := onceKey{topic: r.Topic, partition: r.Partition, epoch: r.PartitionLeaderEpoch, crc: uint32(r.CRC),
		base: r.BaseOffset, last: r.LastOffset}
	o.mu.Lock()
	o.m[k] = struct{}{}
	o.mu.Unlock()
}
