package segtest

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func partitionByDir(t *testing.T, m *Manifest, dir string) *PartitionManifest {
	t.Helper()
	for i := range m.Partitions {
		if m.Partitions[i].Dir == dir {
			return &m.Partitions[i]
		}
	}
	t.Fatalf("no partition %s", dir)
	return nil
}

// TestStateFilesFollowTheBroker checks the index, txnindex, snapshot and
// checkpoint files against rules stated independently of computeState.
func TestStateFilesFollowTheBroker(t *testing.T) {
	dir := t.TempDir()
	m, err := GenerateLogDir(dir, 1, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir)
	for _, p := range m.Partitions {
		for si, s := range p.Segments {
			stem := p.Dir + "/" + strings.TrimSuffix(filepath.Base(s.File), ".log")
			idx, tidx := tree[stem+".index"], tree[stem+".timeindex"]
			if idx == nil || tidx == nil {
				t.Fatalf("%s: no .index or .timeindex", stem)
			}
			if len(idx) != 8*len(s.IndexEntries) || len(tidx) != 12*len(s.TimeIndexEntries) {
				t.Errorf("%s: index files of %d and %d bytes are not trimmed to their %d and %d entries",
					stem, len(idx), len(tidx), len(s.IndexEntries), len(s.TimeIndexEntries))
			}
			// Offset entries: a batch start, spaced by more than the
			// interval from the previous entry, and the first batch past
			// the interval (no earlier one qualified).
			lastPos := int64(0)
			bi := 0
			for n := 0; n*8 < len(idx); n++ {
				rel := int64(binary.BigEndian.Uint32(idx[n*8:]))
				pos := int64(binary.BigEndian.Uint32(idx[n*8+4:]))
				for bi < len(s.Batches) && s.Batches[bi].Position < pos {
					if s.Batches[bi].Position-lastPos > m.IndexIntervalBytes && s.Batches[bi].Position > lastPos {
						t.Errorf("%s: batch at byte %d is past the interval but entry %d is at %d", stem, s.Batches[bi].Position, n, pos)
					}
					bi++
				}
				if bi == len(s.Batches) || s.Batches[bi].Position != pos || s.Batches[bi].LastOffset != s.BaseOffset+rel {
					t.Fatalf("%s: entry %d (%d, byte %d) is not a batch's last offset and start", stem, n, s.BaseOffset+rel, pos)
				}
				if pos-lastPos <= m.IndexIntervalBytes {
					t.Errorf("%s: entry %d at byte %d only %d bytes after the previous", stem, n, pos, pos-lastPos)
				}
				lastPos = pos
			}
			if s.Cleaned && len(idx) > 0 {
				t.Errorf("%s: a cleaned segment is one cleaner append and gets no offset entry", stem)
			}
			// Time entries rise; the last one is the segment's largest
			// timestamp at the last batch holding it (the closing entry).
			var maxTs, maxOff int64 = -1, -1
			for _, b := range s.Batches {
				if b.MaxTimestamp > maxTs {
					maxTs, maxOff = b.MaxTimestamp, b.LastOffset
				}
			}
			prev := int64(-1)
			for n := 0; n*12 < len(tidx); n++ {
				ts := int64(binary.BigEndian.Uint64(tidx[n*12:]))
				if ts <= prev {
					t.Errorf("%s: time entry %d timestamp %d does not rise", stem, n, ts)
				}
				prev = ts
			}
			if maxTs < 0 && len(tidx) > 0 {
				t.Errorf("%s: no timestamps (magic 0) but %d time entries", stem, len(tidx)/12)
			}
			if maxTs >= 0 {
				n := len(tidx) - 12
				if n < 0 || int64(binary.BigEndian.Uint64(tidx[n:])) != maxTs || s.BaseOffset+int64(binary.BigEndian.Uint32(tidx[n+8:])) != maxOff {
					t.Errorf("%s: last time entry is not (%d, %d)", stem, maxTs, maxOff)
				}
			}
			if _, ok := tree[stem+".txnindex"]; ok != (len(s.AbortedTxns) > 0) {
				t.Errorf("%s: .txnindex present %v with %d aborted transactions", stem, ok, len(s.AbortedTxns))
			}
			if si > 0 {
				if _, ok := tree[stem+".snapshot"]; !ok {
					t.Errorf("%s: no snapshot at the roll to this segment", stem)
				}
			}
		}
		end := fmt.Sprintf("%s/%020d.snapshot", p.Dir, p.LogEndOffset)
		if _, ok := tree[end]; !ok {
			t.Errorf("%s: no snapshot at the log end %d", p.Dir, p.LogEndOffset)
		}
		if len(p.Snapshots) != len(p.Segments) {
			t.Errorf("%s: %d snapshots for %d segments, want one per roll and one at close", p.Dir, len(p.Snapshots), len(p.Segments))
		}
	}

	// The transactions scenario, worked by hand: 2001 opens at 3 and is
	// aborted at 14 with no other transaction open; 2000 (after its epoch
	// bump) has 15..16 open and is aborted at 23 after 2001 committed at 20.
	txn := partitionByDir(t, m, "txn-0")
	want := []AbortedTxn{{2001, 3, 14, 15}, {2000, 15, 23, 24}}
	if got := txn.Segments[0].AbortedTxns; !slices.Equal(got, want) {
		t.Errorf("txn-0 aborted transactions %v, want %v", got, want)
	}
	last := txn.Snapshots[len(txn.Snapshots)-1]
	if len(last.Producers) != 3 || last.Producers[0] != (ProducerState{2000, 1, 2, 26, 0, last.Producers[0].Timestamp, 5, -1}) {
		t.Errorf("txn-0 log-end snapshot %+v", last.Producers)
	}

	// compacted-0: cleaner output rolled before the uncleaned tail.
	cp := partitionByDir(t, m, "compacted-0")
	if len(cp.Segments) != 2 || !cp.Segments[0].Cleaned || cp.Segments[1].Cleaned || cp.CleanerOffset != cp.Segments[1].BaseOffset {
		t.Errorf("compacted-0: segments %d, cleaner offset %d", len(cp.Segments), cp.CleanerOffset)
	}
	root := map[string]string{
		"cleaner-offset-checkpoint": fmt.Sprintf("0\n1\ncompacted 0 %d\n", cp.CleanerOffset),
		// Every log starts at its first segment: the broker writes none.
		"log-start-offset-checkpoint": "0\n0\n",
		".kafka_cleanshutdown":        "",
	}
	for name, w := range root {
		if got, ok := tree[name]; !ok || string(got) != w {
			t.Errorf("%s = %q, want %q", name, got, w)
		}
	}

	// The manifest lists every file with its size.
	if len(m.Files) != len(tree) {
		t.Errorf("manifest lists %d files, the dir holds %d", len(m.Files), len(tree))
	}
	for _, f := range m.Files {
		if data, ok := tree[f.Name]; !ok || int64(len(data)) != f.Size {
			t.Errorf("manifest file %s (%d bytes) not in the dir with that size", f.Name, f.Size)
		}
	}
}

// TestUncleanVariant checks the opt-in layout of a broker killed while
// running.
func TestUncleanVariant(t *testing.T) {
	dir := t.TempDir()
	m, err := GenerateLogDir(dir, 1, GenOptions{Unclean: true, IndexPreallocBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir)
	if _, ok := tree[".kafka_cleanshutdown"]; ok {
		t.Error("an unclean log dir has .kafka_cleanshutdown")
	}
	rp := string(tree["recovery-point-offset-checkpoint"])
	for _, p := range m.Partitions {
		active := p.Segments[len(p.Segments)-1]
		stem := strings.TrimSuffix(active.File, ".log")
		if n := len(tree[stem+".index"]); n != 1000 {
			t.Errorf("%s.index: %d bytes, want 1000 preallocated", stem, n)
		}
		if n := len(tree[stem+".timeindex"]); n != 996 {
			t.Errorf("%s.timeindex: %d bytes, want 996 (83 whole entries)", stem, n)
		}
		if _, ok := tree[fmt.Sprintf("%s/%020d.snapshot", p.Dir, p.LogEndOffset)]; ok {
			t.Errorf("%s: snapshot at the log end without a close", p.Dir)
		}
		if !strings.Contains(rp, fmt.Sprintf("%s %d %d\n", p.Topic, p.Partition, active.BaseOffset)) {
			t.Errorf("%s: recovery point is not the active segment's base %d:\n%s", p.Dir, active.BaseOffset, rp)
		}
		if len(p.Segments) > 1 {
			rolled := strings.TrimSuffix(p.Segments[0].File, ".log")
			if len(tree[rolled+".index"])%8 != 0 || len(tree[rolled+".index"]) == 1000 {
				t.Errorf("%s: rolled segment's index is not trimmed", rolled)
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "codecs-0", "00000000000000000000.log")); err != nil || len(data) == 0 {
		t.Errorf("segments missing: %v", err)
	}
}

// TestIndexFollowsAppends: a legacy uncompressed message set is one
// append, so an index entry names the set's last offset at the set's
// first byte, never a message inside it. In the legacy scenarios every
// run of plain messages between two compressed wrappers is one set.
func TestIndexFollowsAppends(t *testing.T) {
	m, err := GenerateLogDir(t.TempDir(), 1, GenOptions{IndexIntervalBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range m.Partitions {
		if !strings.HasPrefix(p.Topic, "legacy-") {
			continue
		}
		for _, s := range p.Segments {
			runOf := map[int64][2]int64{} // position of each plain message -> its run's first position and last offset
			for i := 0; i < len(s.Batches); {
				j := i
				for j < len(s.Batches) && s.Batches[j].Codec == CodecNone {
					j++
				}
				if j == i {
					runOf[s.Batches[i].Position] = [2]int64{s.Batches[i].Position, s.Batches[i].LastOffset}
					i++
					continue
				}
				for k := i; k < j; k++ {
					runOf[s.Batches[k].Position] = [2]int64{s.Batches[i].Position, s.Batches[j-1].LastOffset}
				}
				i = j
			}
			for _, e := range s.IndexEntries {
				run, ok := runOf[e.Position]
				if !ok || run[0] != e.Position || run[1] != e.Offset {
					t.Errorf("%s: entry (%d, byte %d) is not a whole append (starts at %d, ends at offset %d)", s.File, e.Offset, e.Position, run[0], run[1])
				}
				checked++
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d legacy index entries checked", checked)
	}
}
