package replicas_test

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
)

// TestUndecodableBatchIsDamage: a copy whose batch at 20–24 was damaged
// and then given a fresh CRC (its first record's length made impossible)
// holds the same batches as the intact copy by offsets and epoch, but not
// by stored CRC. Its records do not decode, so it is damage in that copy,
// not a divergence of either copy. Truth, in both input orders, with the
// records decoded as verify decodes them: the damaged copy loses 20–24 as
// a damaged batch and nothing by divergence; the intact copy loses
// nothing; no row is diverged, and the damaged copy's row (or the intact
// one's, when the damaged copy is the reference) names 20–24.
func TestUndecodableBatchIsDamage(t *testing.T) {
	root := t.TempDir()
	_, at := rewritten(10, 4) // at: where the batch at 20–24 starts
	intact, _ := rewritten(10)
	damaged := slices.Clone(intact)
	damaged[at+61] = 0x01 // the first record's length: -1
	binary.BigEndian.PutUint32(damaged[at+17:], crc32.Checksum(damaged[at+21:at+int(binary.BigEndian.Uint32(intact[at+8:]))+12], crc32.MakeTable(crc32.Castagnoli)))
	b1 := broker(t, root, 1, intact, [][2]int64{{0, 0}}, 50)
	b2 := broker(t, root, 2, damaged, [][2]int64{{0, 0}}, 50)
	verify := pipeline.Options{Scan: scan.Config{Jobs: 1, Records: true, Compact: true}, Attribution: true}
	for _, order := range [][]string{{b1, b2}, {b2, b1}} {
		res := run(t, verify, order...)
		if gs := divergenceGaps(res); len(gs) != 0 {
			t.Errorf("order %v: divergence gaps %+v", order, gs)
		}
		for _, r := range res.Replicas.Rows {
			if r.Verdict == replicas.VerdictDiverged || r.Verdict != replicas.VerdictReference && !strings.Contains(r.Explanation, "20–24 are damaged") {
				t.Errorf("order %v: broker %d: %s: %s", order, *r.Broker, r.Verdict, r.Explanation)
			}
		}
		for _, v := range res.Check.Partitions {
			damagedCopy := order[v.Input] == b2
			if damagedCopy != !v.Intact || damagedCopy && (v.Lost != 5 || !strings.Contains(v.Text, "20..24 error (damaged-batch)")) {
				t.Errorf("order %v: %s: %s", order, v.Dir, v.Text)
			}
		}
	}
}
