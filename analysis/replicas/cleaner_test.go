package replicas_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// cleanedBatch is batchOf(base, n, epoch, tag) as the log cleaner leaves
// it when it keeps only the records at keep (offset deltas): the same
// base and last offsets and epoch, fewer records, another CRC.
func cleanedBatch(base int64, n int, epoch int32, tag string, keep ...int) []byte {
	b := segtest.Batch{Magic: 2, BaseOffset: base, PartitionLeaderEpoch: epoch, FirstTimestamp: 1_700_000_000_000 + base, LastOffsetDelta: int32(n - 1)}
	for _, i := range keep {
		b.Records = append(b.Records, segtest.Record{OffsetDelta: int32(i), TimestampDelta: int64(i), Key: fmt.Appendf(nil, "k%d", i),
			Value: fmt.Appendf(nil, "%s-%d-%d", tag, base, i)})
	}
	return b.Encode()
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCleanerDifferences: three copies of a compacted partition in leader
// epoch 0, offsets 0..49 in ten batches of five. Broker 1 never cleaned;
// broker 2's cleaner (cleaned to 40) removed the whole batch 10..14 and
// rewrote batch 20..24 keeping 20, 22 and 24; broker 3's cleaner (cleaned
// to 30) removed batch 5..9. Truth: all three hold the same records where
// they overlap: in-sync, with 5+2 and 5+5+2 cleaner differences against
// the reference (broker 1 by its higher end offset: the same last epoch,
// and broker 1 keeps one more batch in the active segment).
func TestCleanerDifferences(t *testing.T) {
	root := t.TempDir()
	var full, two, three []byte
	for i := range 10 {
		base := int64(i * 5)
		b := batchOf(base, 5, 0, "v")
		full = append(full, b...)
		switch i {
		case 2:
		case 4:
			two = append(two, cleanedBatch(base, 5, 0, "v", 0, 2, 4)...)
		default:
			two = append(two, b...)
		}
		if i != 1 {
			three = append(three, b...)
		}
	}
	b1 := broker(t, root, 1, full, [][2]int64{{0, 0}}, 50)
	b2 := broker(t, root, 2, two, [][2]int64{{0, 0}}, 50)
	b3 := broker(t, root, 3, three, [][2]int64{{0, 0}}, 50)
	writeFile(t, filepath.Join(b2, "cleaner-offset-checkpoint"), "0\n1\nt 0 40\n")
	writeFile(t, filepath.Join(b3, "cleaner-offset-checkpoint"), "0\n1\nt 0 30\n")
	writeFile(t, filepath.Join(b1, "cleaner-offset-checkpoint"), "0\n1\nt 0 0\n")

	for _, c := range []struct {
		cfg scan.Config
		// fps: the scan hands on record fingerprints, so the records of
		// broker 2's rewritten batch are compared with the reference's.
		fps bool
	}{
		{scan.Config{Jobs: 2, DecodeOnce: true, HeadersOnly: true}, false}, // what replicas runs
		{scan.Config{Jobs: 2, DecodeOnce: true}, false},
		{scan.Config{Jobs: 2, DecodeOnce: true, Compact: true}, true},
		{scan.Config{Jobs: 2, Records: true, Compact: true}, true}, // verify
		{scan.Config{Jobs: 2, Records: true}, true},                // scan with record rows
	} {
		res := run(t, pipeline.Options{Scan: c.cfg}, b1, b2, b3)
		rows := res.Replicas.Rows
		if len(rows) != 3 {
			t.Fatalf("%d rows: %+v", len(rows), rows)
		}
		if r := rowOf(t, rows, 1); r.Verdict != replicas.VerdictReference {
			t.Errorf("broker 1: %+v", r)
		}
		for id, want := range map[int32]int64{2: 7, 3: 5} {
			r := rowOf(t, rows, id)
			if r.Verdict != replicas.VerdictInSync || r.CleanerDifferences != want || len(r.MissingRanges)+len(r.ExtraRanges) > 0 {
				t.Errorf("broker %d: %s, %d cleaner differences (want %d), missing %v extra %v: %s", id, r.Verdict, r.CleanerDifferences, want,
					r.MissingRanges, r.ExtraRanges, r.Explanation)
			}
			unchecked := id == 2 && !c.fps // only broker 2 has a rewritten batch
			if !strings.Contains(r.Explanation, "log cleaner compacts on its own schedule") || strings.Contains(r.Explanation, "were not compared") != unchecked {
				t.Errorf("broker %d's sentence (%+v): %s", id, c.cfg, r.Explanation)
			}
		}
		for _, g := range res.Check.Gaps {
			if g.Cause == replicas.CauseDivergence {
				t.Errorf("a cleaner difference in the loss ledger: %+v", g)
			}
		}
	}
}

// TestCleanerDifferenceRecordsDisagree: a batch of the same offsets and
// epoch, fewer records, but a surviving record other than the
// reference's: that is not the cleaner's doing, the copy diverges there.
func TestCleanerDifferenceRecordsDisagree(t *testing.T) {
	root := t.TempDir()
	var full, other []byte
	for i := range 6 {
		base := int64(i * 5)
		full = append(full, batchOf(base, 5, 0, "v")...)
		if i == 2 {
			other = append(other, cleanedBatch(base, 5, 0, "changed", 1, 3)...)
		} else {
			other = append(other, batchOf(base, 5, 0, "v")...)
		}
	}
	b1 := broker(t, root, 1, full, [][2]int64{{0, 0}}, 30)
	b2 := broker(t, root, 2, other, [][2]int64{{0, 0}}, 30)
	writeFile(t, filepath.Join(b2, "cleaner-offset-checkpoint"), "0\n1\nt 0 25\n")
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true, Compact: true}}, b1, b2)
	r := rowOf(t, res.Replicas.Rows, 2)
	if r.Verdict != replicas.VerdictDiverged || r.FirstDivergentOffset == nil || *r.FirstDivergentOffset != 11 {
		t.Errorf("broker 2: %s at %v: %s", r.Verdict, r.FirstDivergentOffset, r.Explanation)
	}
}

// TestCompactedTrueDivergence: on a compacted partition (both copies
// cleaned far past the point), broker 1 wrote offsets 30..49 in epoch 0
// and broker 3 led epoch 1 from 30 with other batches: a later epoch over
// other data is divergence, whatever the cleaner did.
func TestCompactedTrueDivergence(t *testing.T) {
	root := t.TempDir()
	var old, leader []byte
	for i := range 10 {
		b := batchOf(int64(i*5), 5, 0, "old")
		old = append(old, b...)
		if i < 6 && i != 3 { // broker 3's cleaner removed 15..19
			leader = append(leader, b...)
		}
	}
	for i := range 7 {
		leader = append(leader, moved(batchOf(0, 4, 0, fmt.Sprintf("new%d", i)), int64(30+i*4), 1)...)
	}
	b1 := broker(t, root, 1, old, [][2]int64{{0, 0}}, 45)
	b3 := broker(t, root, 3, leader, [][2]int64{{0, 0}, {1, 30}}, 58)
	for _, d := range []string{b1, b3} {
		writeFile(t, filepath.Join(d, "cleaner-offset-checkpoint"), "0\n1\nt 0 1000\n")
	}
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true, Compact: true}}, b1, b3)
	r := rowOf(t, res.Replicas.Rows, 1)
	if r.Verdict != replicas.VerdictDiverged || r.FirstDivergentOffset == nil || *r.FirstDivergentOffset != 30 || r.CleanerDifferences != 5 {
		t.Errorf("broker 1: %s at %v, %d cleaner differences (want diverged at 30, 5): %s", r.Verdict, r.FirstDivergentOffset, r.CleanerDifferences, r.Explanation)
	}
	n := 0
	for _, g := range res.Check.Gaps {
		if g.Cause == replicas.CauseDivergence {
			n++
			if g.FirstOffset != 30 || *g.LastOffset != 49 {
				t.Errorf("divergence gap %+v", g)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d divergence gaps, want 1", n)
	}
}
