package scan

import (
	"sync"

	"github.com/ksleuth/ksleuth/segment"
)

// onceKey names a batch independently of the file it is read from: what
// two replicas of it share. The topic and partition are a number given
// per file (fileCtx.onceID): hashing the topic's name at every batch was
// a third of the set's cost.
type onceKey struct {
	part       int32
	epoch      int32
	crc        uint32
	base, last int64
}

type topicPartition struct {
	topic     string
	partition int32
}

// onceSet holds the batches whose records decoded cleanly (Config.
// DecodeOnce), shared by the workers.
type onceSet struct {
	mu    sync.Mutex
	m     map[onceKey]struct{}
	ids   map[topicPartition]int32
	parts []oncePart // by partition number
	n     int64      // batches skipped
}

// oncePart is what the set knows of one partition. Its batches are kept
// in a list, not the map, until a file other than the one that decoded
// them looks one up: when the later copies of a file are byte-identical
// they take its rows over and look nothing up, and filling and searching
// the map for the first copy would cost a tenth of replicas over three
// uncompressed 1 GiB copies.
type oncePart struct {
	inMap   bool      // the partition's batches go to the map
	pending []onceKey // decoded, not in the map yet
	by      *fileCtx  // the file that decoded them all, nil when several did
	several bool
}

// part returns partition id's entry, under o.mu.
func (o *onceSet) part(id int32) *oncePart {
	if int(id) >= len(o.parts) {
		o.parts = append(o.parts, make([]oncePart, int(id)+1-len(o.parts))...)
	}
	return &o.parts[id]
}

// idOf returns fc's topic and partition's number, under o.mu.
func (o *onceSet) idOf(fc *fileCtx) int32 {
	if fc.onceID == 0 {
		tp := topicPartition{fc.topic, fc.partition}
		id, ok := o.ids[tp]
		if !ok {
			if o.ids == nil {
				o.ids = map[topicPartition]int32{}
			}
			id = int32(len(o.ids)) + 1
			o.ids[tp] = id
		}
		fc.onceID = id
	}
	return fc.onceID
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

// skip reports whether b is a copy of a batch that decoded cleanly: a
// data batch (markers are decoded for their type) whose CRC holds.
func (o *onceSet) skip(fc *fileCtx, b *segment.Batch) bool {
	if o == nil || !b.CRCValid || b.IsControl() || b.Streamed() || fc.partition < 0 {
		return false
	}
	o.mu.Lock()
	id := o.idOf(fc)
	p := o.part(id)
	if !p.inMap {
		if len(p.pending) == 0 || (p.by == fc && !p.several) {
			// Nothing decoded from another file.
			o.mu.Unlock()
			return false
		}
		for _, k := range p.pending {
			o.m[k] = struct{}{}
		}
		p.inMap, p.pending = true, nil
	}
	_, ok := o.m[onceKey{part: id, epoch: b.PartitionLeaderEpoch, crc: b.CRC, base: b.BaseOffset, last: b.LastOffset()}]
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
	o.mu.Lock()
	id := o.idOf(j.fc)
	k := onceKey{part: id, epoch: r.PartitionLeaderEpoch, crc: uint32(r.CRC), base: r.BaseOffset, last: r.LastOffset}
	if p := o.part(id); p.inMap {
		o.m[k] = struct{}{}
	} else {
		p.pending = append(p.pending, k)
		if p.by == nil && !p.several {
			p.by = j.fc
		} else if p.by != j.fc {
			p.by, p.several = nil, true
		}
	}
	o.mu.Unlock()
}
