package replicas_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// batchOf encodes one producer batch of n records at base, in leader
// epoch epoch; tag makes its content its own.
func batchOf(base int64, n int, epoch int32, tag string) []byte {
	b := segtest.Batch{Magic: 2, BaseOffset: base, PartitionLeaderEpoch: epoch, FirstTimestamp: 1_700_000_000_000 + base, AutoDeltas: true}
	for i := range n {
		b.Records = append(b.Records, segtest.Record{TimestampDelta: int64(i), Key: fmt.Appendf(nil, "k%d", i),
			Value: fmt.Appendf(nil, "%s-%d-%d", tag, base, i)})
	}
	return b.Encode()
}

// moved rewrites a batch's base offset and partition leader epoch, the
// two header fields the CRC does not cover, as a broker does when it
// appends a batch as leader: the CRC stays valid.
func moved(raw []byte, base int64, epoch int32) []byte {
	out := slices.Clone(raw)
	binary.BigEndian.PutUint64(out[0:8], uint64(base))
	binary.BigEndian.PutUint32(out[12:16], uint32(epoch))
	return out
}

// broker writes a log dir of one partition t-0: meta.properties with the
// node id, the segment, the leader-epoch-checkpoint and the high watermark.
func broker(t *testing.T, root string, id int, segment []byte, epochs [][2]int64, hw int64) string {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprintf("broker-%d", id))
	part := filepath.Join(dir, "t-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	var ck strings.Builder
	fmt.Fprintf(&ck, "0\n%d\n", len(epochs))
	for _, e := range epochs {
		fmt.Fprintf(&ck, "%d %d\n", e[0], e[1])
	}
	files := map[string]string{
		"meta.properties":                  fmt.Sprintf("#\nversion=1\nnode.id=%d\ncluster.id=c1\n", id),
		"replication-offset-checkpoint":    fmt.Sprintf("0\n1\nt 0 %d\n", hw),
		"t-0/leader-epoch-checkpoint":      ck.String(),
		"t-0/00000000000000000000.log":     string(segment),
		"recovery-point-offset-checkpoint": "0\n1\nt 0 0\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func run(t testing.TB, o pipeline.Options, paths ...string) *pipeline.Result {
	t.Helper()
	inputs, err := source.Classify(paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(context.Background(), inputs, o, pipeline.Sinks{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func rowOf(t *testing.T, rows []analysis.ReplicaRow, id int32) analysis.ReplicaRow {
	t.Helper()
	for _, r := range rows {
		if r.Broker != nil && *r.Broker == id {
			return r
		}
	}
	t.Fatalf("no row for broker %d in %+v", id, rows)
	return analysis.ReplicaRow{}
}

// TestHandMadeDivergence: broker 1 led epoch 0 and wrote offsets 0..49 in
// ten batches; broker 3 followed it up to offset 29, a batch boundary,
// was elected in epoch 1 and appended other batches from offset 30 (other
// content, moved there by rewriting only base offset and leader epoch, so
// every CRC holds); broker 2 is a follower that stopped at offset 19.
// Truth: broker 3 is the reference, broker 1 diverged at 30 and loses
// 30..49, broker 2 lags and lacks 20..end.
func TestHandMadeDivergence(t *testing.T) {
	root := t.TempDir()
	var old, follower, leader []byte
	cut := 0 // byte position of offset 30 in broker 1's segment
	for i := range 10 {
		if i == 6 {
			cut = len(old)
		}
		b := batchOf(int64(i*5), 5, 0, "old")
		old = append(old, b...)
		if i < 6 {
			leader = append(leader, b...)
		}
		if i < 4 {
			follower = append(follower, b...)
		}
	}
	// Seven batches written elsewhere at offset 0 in epoch 0, moved to
	// 30, 34, ... in epoch 1: 28 offsets, 30..57.
	for i := range 7 {
		leader = append(leader, moved(batchOf(0, 4, 0, fmt.Sprintf("new%d", i)), int64(30+i*4), 1)...)
	}
	b1 := broker(t, root, 1, old, [][2]int64{{0, 0}}, 45)
	b2 := broker(t, root, 2, follower, [][2]int64{{0, 0}}, 20)
	b3 := broker(t, root, 3, leader, [][2]int64{{0, 0}, {1, 30}}, 58)
	// A broker of another cluster with a partition of the same name, in a
	// later epoch: not a copy of this one, so compared with nothing.
	other := broker(t, root, 9, moved(batchOf(0, 4, 0, "other"), 0, 7), [][2]int64{{7, 0}}, 4)
	if err := os.WriteFile(filepath.Join(other, "meta.properties"), []byte("version=1\nnode.id=9\ncluster.id=c2\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2, DecodeOnce: true}}, b1, b2, b3, other)
	rows := res.Replicas.Rows
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rows), rows)
	}
	ref := rowOf(t, rows, 3)
	if ref.Verdict != replicas.VerdictReference || ref.LogEndOffset != 58 || ref.LastEpoch != 1 ||
		!slices.Equal(ref.LeaderEpochs, []analysis.EpochStart{{Epoch: 0, StartOffset: 0}, {Epoch: 1, StartOffset: 30}}) {
		t.Errorf("reference row %+v", ref)
	}
	div := rowOf(t, rows, 1)
	if div.Verdict != replicas.VerdictDiverged || div.FirstDivergentOffset == nil || *div.FirstDivergentOffset != 30 ||
		*div.Epoch != 0 || *div.ReferenceEpoch != 1 || *div.ReferenceBroker != 3 {
		t.Errorf("diverged row %+v", div)
	}
	if !slices.Equal(div.ExtraRanges, []analysis.OffsetRange{{First: 30, Last: 49}}) || !slices.Equal(div.MissingRanges, []analysis.OffsetRange{{First: 30, Last: 57}}) {
		t.Errorf("diverged ranges extra %v missing %v", div.ExtraRanges, div.MissingRanges)
	}
	if div.AboveHighWatermark != 5 || *div.HighWatermark != 45 {
		t.Errorf("above high watermark %d (hw %v), want 5 above 45", div.AboveHighWatermark, div.HighWatermark)
	}
	want := "broker 1's offsets 30–49 (epoch 0) are not in the epoch-1 history led by broker 3 from offset 30: lost when broker 1 truncates"
	if !strings.HasPrefix(div.Explanation, want) {
		t.Errorf("sentence %q\nwant prefix %q", div.Explanation, want)
	}
	lag := rowOf(t, rows, 2)
	if lag.Verdict != replicas.VerdictLagging || lag.FirstDivergentOffset != nil || !slices.Equal(lag.MissingRanges, []analysis.OffsetRange{{First: 20, Last: 57}}) ||
		len(lag.ExtraRanges) != 0 {
		t.Errorf("lagging row %+v", lag)
	}

	// The loss flows into the ledger, the copy's verdict and the findings.
	var gaps []analysis.GapRow
	for _, g := range res.Check.Gaps {
		if g.Cause == replicas.CauseDivergence {
			gaps = append(gaps, g)
		}
	}
	if len(gaps) != 1 || gaps[0].Input != 0 || gaps[0].FirstOffset != 30 || *gaps[0].LastOffset != 49 || gaps[0].Severity != finding.Error ||
		gaps[0].File != "t-0/00000000000000000000.log" || gaps[0].Position == nil || *gaps[0].Position != int64(cut) ||
		gaps[0].ReferenceEpoch == nil || *gaps[0].ReferenceEpoch != 1 {
		t.Errorf("divergence gaps %+v", gaps)
	}
	for _, v := range res.Check.Partitions {
		lost := v.Input == 0
		if v.Input == 3 && !v.Intact {
			t.Errorf("the other cluster's partition: %+v", v)
		}
		if v.Intact == lost || lost && (v.Lost != 20 || !strings.Contains(v.Text, "replica-divergence")) {
			t.Errorf("verdict of input %d: %+v", v.Input, v)
		}
	}
	kinds := map[finding.Kind]int{}
	for _, a := range res.Scan.Anomalies {
		kinds[a.Kind]++
	}
	if kinds[finding.KindReplicaDivergence] != 1 || kinds[finding.KindReplicaLagging] != 1 || res.Scan.Errors != 1 {
		t.Errorf("findings %v, %d errors; want one divergence error and one lagging note", kinds, res.Scan.Errors)
	}
}

// TestIdenticalCopies: three brokers hold byte-identical copies of every
// partition of a generated log dir: all in-sync, no loss, and the
// duplicate detector counts each record once, as over one copy.
func TestIdenticalCopies(t *testing.T) {
	root := t.TempDir()
	one := filepath.Join(root, "one")
	m, err := segtest.GenerateLogDir(one, 7, segtest.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for id := 1; id <= 3; id++ {
		d := filepath.Join(root, fmt.Sprintf("broker-%d", id))
		if err := os.CopyFS(d, os.DirFS(one)); err != nil {
			t.Fatal(err)
		}
		props := fmt.Sprintf("version=1\nnode.id=%d\ncluster.id=c1\n", id)
		if err := os.WriteFile(filepath.Join(d, "meta.properties"), []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	detect := func(paths ...string) (*pipeline.Result, dups.Stats) {
		det, err := dups.New(dups.Options{TmpDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer det.Close()
		res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2, Records: true, Compact: true}, Detector: det, Hasher: dups.NewHasher(dups.MatchAll, nil)}, paths...)
		st, err := det.Finish(context.Background(), func([]analysis.DuplicateRow) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return res, st
	}
	_, single := detect(dirs[0])
	res, triple := detect(dirs...)
	if single.Groups == 0 || triple.Groups != single.Groups || triple.Members != single.Members || triple.Records != 3*single.Records {
		t.Errorf("duplicates over three copies %+v, over one %+v: want the same groups and members, from three times the records", triple, single)
	}
	parts := map[string]bool{}
	for _, r := range res.Replicas.Rows {
		parts[r.Dir] = true
		if r.Verdict != replicas.VerdictReference && r.Verdict != replicas.VerdictInSync || len(r.ExtraRanges)+len(r.MissingRanges) > 0 {
			t.Errorf("%s of broker %d: %s %v %v", r.Dir, *r.Broker, r.Verdict, r.MissingRanges, r.ExtraRanges)
		}
		if r.Verdict == replicas.VerdictReference && *r.Broker != 1 {
			t.Errorf("%s: reference is broker %d; on a full tie the first input", r.Dir, *r.Broker)
		}
	}
	if len(parts) != len(m.Partitions) || len(res.Replicas.Rows) != 3*len(m.Partitions) {
		t.Errorf("%d rows over %d partitions, want 3 for each of %d", len(res.Replicas.Rows), len(parts), len(m.Partitions))
	}
	for _, g := range res.Check.Gaps {
		if g.Cause == replicas.CauseDivergence {
			t.Errorf("identical copies give a divergence gap: %+v", g)
		}
	}

	// Decoding each batch once gives the same findings as decoding all.
	once := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2, DecodeOnce: true}}, dirs...)
	all := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2}}, dirs...)
	t.Logf("%d of %d batches decoded from another copy", once.Scan.DecodedElsewhere, once.Scan.Batches)
	if once.Scan.IdenticalFiles == 0 || all.Scan.IdenticalFiles != 0 {
		t.Errorf("%d segment files found byte-identical with DecodeOnce (want some), %d without (want none)", once.Scan.IdenticalFiles, all.Scan.IdenticalFiles)
	}
	if n := once.Scan.DecodedElsewhere; n < once.Scan.Batches/2 {
		t.Errorf("%d of %d batches decoded from another copy; want most of the second and third copies'", n, once.Scan.Batches)
	}
	if a, b := summary(once), summary(all); a != b {
		t.Errorf("findings with DecodeOnce:\n%s\nwithout:\n%s", a, b)
	}
}

func summary(r *pipeline.Result) string {
	var b bytes.Buffer
	for _, a := range r.Scan.Anomalies {
		fmt.Fprintf(&b, "%d %s %s %s\n", a.Input, a.File, a.Kind, a.Message)
	}
	for _, v := range r.Check.Partitions {
		fmt.Fprintf(&b, "%d %s %s\n", v.Input, v.Dir, v.Text)
	}
	return b.String()
}

// TestSameBrokerIDTwice: two inputs whose meta.properties both say node.id
// 1 (one broker's log dirs copied twice, or an id reused) are named by
// their inputs too, so that no sentence reads "broker 1 holds the same
// batches as broker 1". Truth: two identical copies, both of broker 1.
func TestSameBrokerIDTwice(t *testing.T) {
	var seg []byte
	for i := range 4 {
		seg = append(seg, batchOf(int64(i*5), 5, 0, "v")...)
	}
	a := broker(t, t.TempDir(), 1, seg, [][2]int64{{0, 0}}, 20)
	b := broker(t, t.TempDir(), 1, seg, [][2]int64{{0, 0}}, 20)
	res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 2, DecodeOnce: true}}, a, b)
	if len(res.Replicas.Rows) != 2 {
		t.Fatalf("rows %+v", res.Replicas.Rows)
	}
	for _, r := range res.Replicas.Rows {
		if !strings.Contains(r.Explanation, "broker 1 of ") || strings.Contains(r.Explanation, "as broker 1:") {
			t.Errorf("%s: %q does not name the inputs", r.Verdict, r.Explanation)
		}
	}
}
