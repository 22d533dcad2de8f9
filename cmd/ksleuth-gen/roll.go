package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// indexIntervalBytes is the broker's default index.interval.bytes: an
// index entry at the first batch after this many bytes since the last.
const indexIntervalBytes = 4096

// rolled is one segment being cut from a partition's bytes.
type rolled struct {
	start, base int64 // byte position in the partition's bytes, base offset
	end         int64
	index, time []byte
	sinceEntry  int64
	maxTS       int64
	maxTSOffset int64
	lastTS      int64 // timestamp of the last time index entry
}

// rollSegment writes the batches of seg into dir as segments of about
// rollBytes each, cut at batch boundaries, with the .index and .timeindex
// a broker writes as it appends: an entry (last offset, position) at
// the first batch past index.interval.bytes, a time entry (largest
// timestamp so far, its offset) with it when the timestamp grew, and a
// last time entry when the segment rolls.
func rollSegment(dir string, seg []byte, rollBytes int64) (int, error) {
	r := segment.NewReaderBytes(seg, segment.Options{})
	defer r.Close()
	var cur *rolled
	n := 0
	flush := func() error {
		if cur == nil {
			return nil
		}
		cur.timeEntry()
		name := filepath.Join(dir, segtest.SegmentFileName(cur.base))
		for _, f := range []struct {
			suffix string
			data   []byte
		}{{".log", seg[cur.start:cur.end]}, {".index", cur.index}, {".timeindex", cur.time}} {
			if err := os.WriteFile(name[:len(name)-len(".log")]+f.suffix, f.data, 0o644); err != nil {
				return err
			}
		}
		n++
		return nil
	}
	for r.Next() {
		if f := r.Finding(); f != nil {
			return n, fmt.Errorf("generated segment is damaged: %v", f)
		}
		b := r.Batch()
		if cur == nil || b.Position-cur.start+b.Size() > rollBytes && b.Position > cur.start {
			if err := flush(); err != nil {
				return n, err
			}
			cur = &rolled{start: b.Position, base: b.BaseOffset, maxTS: -1, lastTS: -1}
		}
		if b.MaxTimestamp > cur.maxTS {
			cur.maxTS, cur.maxTSOffset = b.MaxTimestamp, b.LastOffset()
		}
		if cur.sinceEntry > indexIntervalBytes {
			cur.index = binary.BigEndian.AppendUint32(cur.index, uint32(b.LastOffset()-cur.base))
			cur.index = binary.BigEndian.AppendUint32(cur.index, uint32(b.Position-cur.start))
			cur.timeEntry()
			cur.sinceEntry = 0
		}
		cur.sinceEntry += b.Size()
		cur.end = b.Position + b.Size()
	}
	if err := r.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// timeEntry appends the largest timestamp so far when it grew.
func (c *rolled) timeEntry() {
	if c.maxTS <= c.lastTS {
		return
	}
	c.time = binary.BigEndian.AppendUint64(c.time, uint64(c.maxTS))
	c.time = binary.BigEndian.AppendUint32(c.time, uint32(c.maxTSOffset-c.base))
	c.lastTS = c.maxTS
}
