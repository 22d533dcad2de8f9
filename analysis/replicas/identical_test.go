package replicas_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
)

// TestIdenticalSegmentsTakenOver: brokers 1 and 2 hold byte-identical
// copies of a segment with one damaged batch (a record byte flipped, so
// its CRC fails); broker 3 holds the segment undamaged, the same size.
// Truth: broker 2's copy is compared byte for byte and not read again, and
// it has broker 1's finding at the same position, saying it shares the
// bytes; broker 3's copy differs, is read in full and has no finding.
func TestIdenticalSegmentsTakenOver(t *testing.T) {
	root := t.TempDir()
	var seg []byte
	damagedAt := 0
	for i := range 10 {
		if i == 3 {
			damagedAt = len(seg)
		}
		seg = append(seg, batchOf(int64(i*5), 5, 0, "v")...)
	}
	bad := slices.Clone(seg)
	bad[damagedAt+70] ^= 0xff // inside the records, which the CRC covers
	b1 := broker(t, root, 1, bad, [][2]int64{{0, 0}}, 50)
	b2 := broker(t, root, 2, bad, [][2]int64{{0, 0}}, 50)
	b3 := broker(t, root, 3, seg, [][2]int64{{0, 0}}, 50)

	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2, DecodeOnce: true}}, b1, b2, b3)
	if res.Scan.IdenticalFiles != 1 {
		t.Errorf("%d files found identical, want 1 (broker 2's segment)", res.Scan.IdenticalFiles)
	}
	crc := map[int32][]string{}
	for _, a := range res.Scan.Anomalies {
		if a.Kind == "crc-mismatch" {
			if a.Position == nil || *a.Position != int64(damagedAt) {
				t.Errorf("crc finding at %v, want %d: %+v", a.Position, damagedAt, a)
			}
			crc[a.Input] = append(crc[a.Input], a.Message)
		}
	}
	if len(crc[0]) != 1 || len(crc[1]) != 1 || len(crc[2]) != 0 {
		t.Fatalf("crc findings per input %v: want one each for brokers 1 and 2, none for broker 3", crc)
	}
	if strings.Contains(crc[0][0], "byte-identical") || !strings.Contains(crc[1][0], "byte-identical to t-0/00000000000000000000.log of input 0") ||
		!strings.HasPrefix(crc[1][0], crc[0][0]) {
		t.Errorf("broker 1's finding %q\nbroker 2's %q", crc[0][0], crc[1][0])
	}
	// The batch headers agree, the stored CRC included (the damage is in
	// the records): both copies are in-sync with the reference, broker 1
	// (the first of the tie).
	for _, r := range res.Replicas.Rows {
		want := map[int32]string{1: replicas.VerdictReference, 2: replicas.VerdictInSync, 3: replicas.VerdictInSync}[*r.Broker]
		if r.Verdict != want {
			t.Errorf("broker %d: %s, want %s: %s", *r.Broker, r.Verdict, want, r.Explanation)
		}
	}
	var files []int64
	for _, f := range res.Scan.Files {
		if f.Kind == "log" {
			files = append(files, f.Batches)
		}
	}
	if !slices.Equal(files, []int64{10, 10, 10}) {
		t.Errorf("batches per segment file %v, want 10 each", files)
	}
}
