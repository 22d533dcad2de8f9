package replicas_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestIdenticalSegmentsTakenOver: brokers 1 and 2 hold byte-identical
// copies of a segment with one damaged batch (a record byte flipped, so
// its CRC fails); broker 3 holds the segment undamaged, the same size.
// Truth: broker 2's copy is compared byte for byte and not read again, and
// it has broker 1's finding at the same position, saying it shares the
// bytes; broker 3's copy differs, is read in full and has no finding.
func TestIdenticalSegmentsTakenOver(t *testing.T) {
	root := t.TempDir()
	seg, bad, damagedAt := flippedSegment(10)
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
		// Broker 3 holds intact what the reference's copy damaged.
		if hint := "broker 1's batch(es) at offsets 15–19 are damaged (they fail their CRC or their records do not decode), and this copy holds them intact"; (*r.Broker == 3) != strings.Contains(r.Explanation, hint) {
			t.Errorf("broker %d: %s", *r.Broker, r.Explanation)
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

// TestIdenticalCopiesInOnePass: the later copies of a file are compared
// with the first in one pass (scan/samepass.go). Truth, with a damaged
// batch in the copies that agree: when broker 2's copy differs (the
// undamaged segment) and broker 3's is broker 1's bytes, broker 3's is
// found identical in the pass that found broker 2's different, and only
// broker 2's is read in full; when all three agree, both later copies are
// taken over, each with broker 1's finding.
func TestIdenticalCopiesInOnePass(t *testing.T) {
	var seg []byte
	damagedAt := 0
	for i := range 10 {
		if i == 6 {
			damagedAt = len(seg)
		}
		seg = append(seg, batchOf(int64(i*5), 5, 0, "w")...)
	}
	bad := slices.Clone(seg)
	bad[damagedAt+70] ^= 0xff
	for _, c := range []struct {
		name      string
		second    []byte
		identical int64
		crc       []int // inputs with the crc finding
	}{
		{"second differs", seg, 1, []int{0, 2}},
		{"all agree", bad, 2, []int{0, 1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			b1 := broker(t, root, 1, bad, [][2]int64{{0, 0}}, 50)
			b2 := broker(t, root, 2, c.second, [][2]int64{{0, 0}}, 50)
			b3 := broker(t, root, 3, bad, [][2]int64{{0, 0}}, 50)
			res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true}}, b1, b2, b3)
			if res.Scan.IdenticalFiles != c.identical {
				t.Errorf("%d files found identical, want %d", res.Scan.IdenticalFiles, c.identical)
			}
			var inputs []int
			for _, a := range res.Scan.Anomalies {
				if a.Kind != "crc-mismatch" {
					continue
				}
				inputs = append(inputs, int(a.Input))
				if a.Position == nil || *a.Position != int64(damagedAt) {
					t.Errorf("crc finding at %v, want %d: %+v", a.Position, damagedAt, a)
				}
				if shared := strings.Contains(a.Message, "byte-identical to t-0/00000000000000000000.log of input 0"); shared != (a.Input != 0) {
					t.Errorf("input %d's finding: %s", a.Input, a.Message)
				}
			}
			slices.Sort(inputs)
			if !slices.Equal(inputs, c.crc) {
				t.Errorf("crc findings in inputs %v, want %v", inputs, c.crc)
			}
			for _, r := range res.Replicas.Rows {
				if r.Verdict != replicas.VerdictReference && r.Verdict != replicas.VerdictInSync {
					t.Errorf("broker %d: %s: %s", *r.Broker, r.Verdict, r.Explanation)
				}
			}
		})
	}
}

// TestHeadersOnly: replicas compares batches, and decodes no data batch
// whose CRC holds (scan.Config.HeadersOnly). Truth: a batch whose header
// counts 6 records while its records area holds 5, with its CRC
// recomputed, is a record-count-mismatch in both copies when the records
// are decoded, and is not looked into with HeadersOnly, which counts the 10 batches of
// the first copy as not decoded (the second copy's file is byte-identical
// and taken over); a flipped byte under the CRC is still a crc-mismatch.
func TestHeadersOnly(t *testing.T) {
	var seg []byte
	for i := range 10 {
		b := batchOf(int64(i*5), 5, 0, "v")
		if i == 4 {
			binary.BigEndian.PutUint32(b[57:], 6)
			if err := segtest.FixCRC(b); err != nil {
				t.Fatal(err)
			}
		}
		seg = append(seg, b...)
	}
	kinds := func(res *pipeline.Result) map[string]int {
		out := map[string]int{}
		for _, a := range res.Scan.Anomalies {
			out[string(a.Kind)]++
		}
		return out
	}
	for _, c := range []struct {
		name        string
		cfg         scan.Config
		notDecoded  int64
		countErrors int
	}{
		{"decoded", scan.Config{Jobs: 1, DecodeOnce: true}, 0, 2},
		{"headers only", scan.Config{Jobs: 1, DecodeOnce: true, HeadersOnly: true}, 10, 0},
	} {
		root := t.TempDir()
		b1 := broker(t, root, 1, seg, [][2]int64{{0, 0}}, 50)
		b2 := broker(t, root, 2, seg, [][2]int64{{0, 0}}, 50)
		res := run(t, pipeline.Options{Scan: c.cfg}, b1, b2)
		k := kinds(res)
		if res.Scan.NotDecoded != c.notDecoded || k["record-count-mismatch"] != c.countErrors {
			t.Errorf("%s: %d batches not decoded, findings %v; want %d not decoded, %d record-count-mismatch", c.name, res.Scan.NotDecoded, k,
				c.notDecoded, c.countErrors)
		}
		for _, r := range res.Replicas.Rows {
			if r.Verdict != replicas.VerdictReference && r.Verdict != replicas.VerdictInSync {
				t.Errorf("%s: broker %d %s: %s", c.name, *r.Broker, r.Verdict, r.Explanation)
			}
		}
	}
	bad := slices.Clone(seg)
	bad[70] ^= 0xff
	root := t.TempDir()
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true, HeadersOnly: true}},
		broker(t, root, 1, bad, [][2]int64{{0, 0}}, 50), broker(t, root, 2, seg, [][2]int64{{0, 0}}, 50))
	if k := kinds(res); k["crc-mismatch"] != 1 {
		t.Errorf("headers only, a flipped byte: findings %v, want one crc-mismatch", k)
	}
}

// TestDamagedCopy: a copy whose batch fails its CRC where the reference's
// is intact agrees with it by header (offsets, epoch, stored CRC) but not
// by content. Truth: broker 2's batch at offsets 15–19 has a record byte
// flipped; broker 1 (the reference, first of the tie) holds it intact, and
// broker 1's own row is the reference; seen from broker 1's side the same
// pair says broker 2's batch is the damaged one.
func TestDamagedCopy(t *testing.T) {
	root := t.TempDir()
	seg, bad, _ := flippedSegment(6)
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true, HeadersOnly: true}},
		broker(t, root, 1, seg, [][2]int64{{0, 0}}, 30), broker(t, root, 2, bad, [][2]int64{{0, 0}}, 30))
	var got []string
	for _, r := range res.Replicas.Rows {
		got = append(got, fmt.Sprintf("%d %s", *r.Broker, r.Verdict))
		if *r.Broker == 2 && !strings.Contains(r.Explanation, "at offsets 15–19 are damaged in this copy (they fail their CRC or their records do not decode), where broker 1's are intact") {
			t.Errorf("broker 2: %s", r.Explanation)
		}
	}
	if !slices.Equal(got, []string{"1 reference", "2 damaged"}) {
		t.Errorf("verdicts %v, want broker 1 reference, broker 2 damaged", got)
	}
}

// TestNoClusterID: log dirs written before Kafka 2.4 name no cluster.id,
// and their partition dirs have no topic id. Truth: two brokers' copies of
// t-0, the same bytes; without OneCluster nothing says they are one
// cluster's and they are not compared (verify over unrelated dirs must not
// compare their __consumer_offsets-0); with it (replicas) they are, and
// the reference's row says on what assumption.
func TestNoClusterID(t *testing.T) {
	root := t.TempDir()
	seg := batchOf(0, 5, 0, "v")
	var dirs []string
	for id := 1; id <= 2; id++ {
		d := broker(t, root, id, seg, [][2]int64{{0, 0}}, 5)
		if err := os.WriteFile(filepath.Join(d, "meta.properties"), fmt.Appendf(nil, "version=0\nbroker.id=%d\n", id), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	if rows := run(t, pipeline.Options{Scan: scan.Config{Jobs: 1}}, dirs...).Replicas.Rows; len(rows) != 0 {
		t.Errorf("compared without OneCluster: %+v", rows)
	}
	rows := run(t, pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true, HeadersOnly: true}, OneCluster: true}, dirs...).Replicas.Rows
	if len(rows) != 2 || rows[0].Verdict != replicas.VerdictReference || rows[1].Verdict != replicas.VerdictInSync ||
		!strings.Contains(rows[0].Explanation, "taken as one cluster's") {
		t.Errorf("with OneCluster: %+v", rows)
	}
}

// flippedSegment is n batches of 5 records, and the same with a byte
// flipped inside the records of the fourth (offsets 15–19), which its
// CRC covers; at is that batch's position.
func flippedSegment(n int) (seg, bad []byte, at int) {
	for i := range n {
		if i == 3 {
			at = len(seg)
		}
		seg = append(seg, batchOf(int64(i*5), 5, 0, "v")...)
	}
	bad = slices.Clone(seg)
	bad[at+70] ^= 0xff
	return seg, bad, at
}
