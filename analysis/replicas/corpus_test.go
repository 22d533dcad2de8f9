package replicas_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// realOffsets is a __consumer_offsets partition of the real-broker corpus
// (shared/corpus/real, see its MANIFEST.md) with two segments, written by
// a real broker.
var realOffsets = filepath.Join("..", "..", "..", "shared", "corpus", "real", "NikhilDighe9975__kafka_setup", "kafka-logs", "__consumer_offsets-12")

// TestCleanerDifferenceRealData: two brokers' copies of a real
// __consumer_offsets partition; on broker 2 a data batch of the rolled
// first segment is gone, as its log cleaner leaves it when a later record
// of every key the batch held supersedes it, and its
// cleaner-offset-checkpoint says it cleaned up to the active segment.
// Truth: broker 2 is in-sync with broker 1, with that batch's records as
// cleaner differences; without the checkpoint (the removed batch above
// broker 2's cleaned point, the active segment's base) it diverges there.
func TestCleanerDifferenceRealData(t *testing.T) {
	if _, err := os.Stat(realOffsets); errors.Is(err, fs.ErrNotExist) {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus %s absent", realOffsets)
		}
		t.Skipf("\n\n*** SKIPPING: corpus %s absent ***\n", realOffsets)
	}
	root := t.TempDir()
	copyDir := func(id int) string {
		d := filepath.Join(root, fmt.Sprintf("broker-%d", id))
		if err := os.CopyFS(filepath.Join(d, "__consumer_offsets-12"), os.DirFS(realOffsets)); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d, "meta.properties"), fmt.Sprintf("version=0\nbroker.id=%d\ncluster.id=XB4QhweWTe-kZwMNW25y1A\n", id))
		return d
	}
	b1 := copyDir(1)
	// The batches of the first segment, and the active segment's base.
	inputs, err := source.Classify([]string{b1})
	if err != nil {
		t.Fatal(err)
	}
	var rows, first []analysis.BatchRow
	sinks := pipeline.Sinks{Batches: func(bs []analysis.BatchRow) error { rows = append(rows, bs...); return nil }}
	if _, err := pipeline.Run(context.Background(), inputs, pipeline.Options{Scan: scan.Config{Jobs: 1}}, sinks); err != nil {
		t.Fatal(err)
	}
	segs := map[string]bool{}
	for _, r := range rows {
		segs[r.Segment] = true
	}
	names := make([]string, 0, len(segs))
	for s := range segs {
		names = append(names, s)
	}
	slices.Sort(names)
	if len(names) != 2 {
		t.Fatalf("segments %v, want 2 (corpus changed?)", names)
	}
	var active int64 = -1
	for _, r := range rows {
		if r.Segment == names[0] {
			first = append(first, r)
		} else if active < 0 || r.BaseOffset < active {
			active = r.BaseOffset
		}
	}
	// A data batch inside the first segment, with neighbours of its epoch.
	pick := -1
	for i := 1; i+1 < len(first); i++ {
		b := first[i]
		if !b.IsControl && b.RecordCount > 0 && b.CRCValid && first[i-1].PartitionLeaderEpoch == b.PartitionLeaderEpoch &&
			first[i+1].PartitionLeaderEpoch == b.PartitionLeaderEpoch {
			pick = i
			break
		}
	}
	if pick < 0 {
		t.Fatalf("no data batch between two of its epoch in %d batches of %s", len(first), names[0])
	}
	gone := first[pick]

	b2 := copyDir(2)
	seg := filepath.Join(b2, filepath.FromSlash(names[0]))
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	data = slices.Delete(data, int(gone.Position), int(gone.Position+gone.SizeBytes))
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	verdict := func() analysis.ReplicaRow {
		res := run(t, pipeline.Options{Scan: scan.Config{Jobs: 1, DecodeOnce: true, HeadersOnly: true}}, b1, b2)
		return rowOf(t, res.Replicas.Rows, 2)
	}
	// Without a checkpoint broker 2's cleaned point is its active
	// segment's base offset: the batch lies below it.
	r := verdict()
	if r.Verdict != replicas.VerdictInSync || r.CleanerDifferences != int64(gone.RecordCount) {
		t.Errorf("batch %d–%d (%d records) removed: %s, %d cleaner differences: %s", gone.BaseOffset, gone.LastOffset, gone.RecordCount,
			r.Verdict, r.CleanerDifferences, r.Explanation)
	}
	// A checkpoint below the batch: broker 2 had not cleaned that far, so
	// the batch it lacks is not the cleaner's doing.
	writeFile(t, filepath.Join(b2, "cleaner-offset-checkpoint"), fmt.Sprintf("0\n1\n__consumer_offsets 12 %d\n", gone.BaseOffset))
	r = verdict()
	if r.Verdict != replicas.VerdictLagging && r.Verdict != replicas.VerdictDiverged || r.FirstDivergentOffset != nil && *r.FirstDivergentOffset != gone.BaseOffset {
		t.Errorf("with the cleaned point at %d: %s at %v: %s", gone.BaseOffset, r.Verdict, r.FirstDivergentOffset, r.Explanation)
	}
	t.Logf("removed batch %d–%d of %s (%d records); active segment from %d; then: %s", gone.BaseOffset, gone.LastOffset, names[0], gone.RecordCount, active, r.Explanation)
}
