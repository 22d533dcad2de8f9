package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
)

// writeRecordsPart writes a records part file of n rows over three
// partitions of two topics and two inputs: batches of 1-8 records,
// control records, null timestamps, every transaction state, and content
// repeated across partitions and PIDs so that there are groups.
func writeRecordsPart(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "part-x-00000.parquet")
	sink, err := export.NewParquet[analysis.RecordRow](path, "test", &export.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	dirs := []struct {
		in    int32
		topic string
		part  int32
	}{{0, "orders", 0}, {0, "orders", 1}, {1, "audit", 0}}
	txns := []string{"none", "committed", "aborted", "open"}
	var rows []analysis.RecordRow
	for d, p := range dirs {
		pos := int64(0)
		for off := int64(0); off < int64(n/len(dirs)); {
			size := 1 + rng.IntN(8)
			pid := int64(1000 + rng.IntN(4))
			if rng.IntN(10) == 0 {
				pid = -1
			}
			for i := 0; i < size; i++ {
				r := analysis.RecordRow{Input: p.in, Source: fmt.Sprint("in", p.in), Topic: p.topic, Partition: p.part,
					Segment: fmt.Sprintf("%s-%d/%020d.log", p.topic, p.part, off/100*100), Dir: fmt.Sprintf("%s-%d", p.topic, p.part),
					BatchPosition: pos, Offset: off, ProducerID: pid, ProducerEpoch: int32(rng.IntN(2)), Sequence: int32(off),
					TxnState: txns[rng.IntN(len(txns))], IsControl: rng.IntN(50) == 0, Damaged: rng.IntN(40) == 0,
					Fingerprint: fmt.Sprintf("%032x", rng.IntN(n/3)+d)}
				if rng.IntN(6) != 0 {
					ts := 1_700_000_000_000 + off*10
					r.Timestamp = &ts
				}
				if r.IsControl {
					r.Fingerprint = ""
				}
				rows = append(rows, r)
				off++
			}
			pos += 100
		}
	}
	if err := sink.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func groupsOf(t *testing.T, feed func(*shardFeed) error, topic *regexp.Regexp) []string {
	t.Helper()
	det, err := dups.New(dups.Options{TmpDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer det.Close()
	if err := feed(newShardFeed(det, &Shard{sources: []string{"in0", "in1"}}, topic)); err != nil {
		t.Fatal(err)
	}
	var out []string
	_, err = det.Finish(context.Background(), func(g []analysis.DuplicateRow) error {
		for _, r := range g {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			out = append(out, string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestColumnsFeedMatchesRows: the detector fed a records part by columns
// finds exactly the groups, members, classes and explanations it finds
// fed row by row (the path for tables of another layout), with and
// without a topic filter.
func TestColumnsFeedMatchesRows(t *testing.T) {
	path := writeRecordsPart(t, 30_000)
	for _, topic := range []*regexp.Regexp{nil, regexp.MustCompile("^orders$")} {
		byCols := groupsOf(t, func(f *shardFeed) error {
			done, err := f.part(context.Background(), path)
			if err == nil && !done {
				err = fmt.Errorf("not read by columns")
			}
			return err
		}, topic)
		byRows := groupsOf(t, func(f *shardFeed) error { return addPartRows(context.Background(), f, path) }, topic)
		if len(byRows) < 1000 {
			t.Fatalf("topic %v: only %d member rows", topic, len(byRows))
		}
		if len(byCols) != len(byRows) {
			t.Fatalf("topic %v: %d member rows by columns, %d by rows", topic, len(byCols), len(byRows))
		}
		for i := range byRows {
			if byCols[i] != byRows[i] {
				t.Fatalf("topic %v: member %d by columns\n%s\nby rows\n%s", topic, i, byCols[i], byRows[i])
			}
		}
	}
}
