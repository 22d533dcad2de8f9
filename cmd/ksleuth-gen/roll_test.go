package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/segment/segtest/bench"
)

// TestRollSegment cuts a realistic partition into segments and checks
// them as the broker would have written them: the segments put together
// are the input, each is named by its first offset and stays under the
// roll size, every .index entry names the batch at its position by its
// last offset, and the .timeindex grows and ends at the segment's largest
// timestamp.
func TestRollSegment(t *testing.T) {
	seg := bench.ShapeJava.Segment(segtest.CodecNone, 3<<20, 7)
	dir := t.TempDir()
	const roll = 512 << 10
	n, err := rollSegment(dir, seg, roll)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	sort.Strings(logs)
	if n < 5 || len(logs) != n {
		t.Fatalf("%d segments written, %d .log files", n, len(logs))
	}
	var all []byte
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data...)
		if len(data) > roll {
			t.Errorf("%s: %d bytes, over the roll size", l, len(data))
		}
		base := int64(-1)
		batchAt := map[int64]*segment.Batch{}
		var maxTS int64 = -1
		r := segment.NewReaderBytes(data, segment.Options{Path: l})
		for r.Next() {
			if r.Finding() != nil {
				t.Fatalf("%s: %v", l, r.Finding())
			}
			b := r.Batch()
			if base < 0 {
				base = b.BaseOffset
			}
			batchAt[b.Position] = b.Clone()
			maxTS = max(maxTS, b.MaxTimestamp)
		}
		r.Close()
		if want := segtest.SegmentFileName(base); filepath.Base(l) != want {
			t.Errorf("%s: first offset %d", l, base)
		}
		stem := strings.TrimSuffix(l, ".log")
		idx, _ := os.ReadFile(stem + ".index")
		oi, fs := segment.ParseOffsetIndex(stem+".index", idx, base)
		if len(fs) != 0 || len(oi.Entries) < len(data)/(64<<10) {
			t.Errorf("%s.index: %d entries, findings %v", stem, len(oi.Entries), fs)
		}
		for _, e := range oi.Entries {
			if b := batchAt[int64(e.Position)]; b == nil || b.LastOffset() != e.Offset {
				t.Errorf("%s.index: entry %v names no batch ending there", stem, e)
			}
		}
		ti, _ := os.ReadFile(stem + ".timeindex")
		tix, fs := segment.ParseTimeIndex(stem+".timeindex", ti, base)
		if len(fs) != 0 || len(tix.Entries) == 0 || tix.Entries[len(tix.Entries)-1].Timestamp != maxTS {
			t.Errorf("%s.timeindex: findings %v, entries %d, does not end at %d", stem, fs, len(tix.Entries), maxTS)
		}
		for i := 1; i < len(tix.Entries); i++ {
			if tix.Entries[i].Timestamp <= tix.Entries[i-1].Timestamp {
				t.Errorf("%s.timeindex: entry %d does not grow", stem, i)
			}
		}
	}
	if !bytes.Equal(all, seg) {
		t.Errorf("the segments put together are not the input (%d vs %d bytes)", len(all), len(seg))
	}
}
