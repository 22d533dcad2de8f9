package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// TestKRaftSnapshotRecords: the records of a KRaft .checkpoint snapshot
// have their own offsets from 0; they are not records of
// __cluster_metadata-0, so the records a scan streams never hold an
// offset twice and the duplicate detector never sees them (nor the
// metadata log's NoOps, which no producer wrote), even with same-pid.
// The summary's record count says so: less those in snapshots and
// segments in transit, it is the records' rows.
func TestKRaftSnapshotRecords(t *testing.T) {
	t.Parallel()
	src := filepath.Join(corpusDir, "Danielowo2000__BigDataTechnologies-Version-2")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("corpus: %v", err)
	}
	inputs, err := source.Classify([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	det, hasher := newDetectorWith(t, func(o *dups.Options) { o.SamePID = true })
	plan := pipeline.Plan{Command: pipeline.Scan, Records: true, Detector: det, Hasher: hasher}
	seen := map[string]bool{}
	meta, rows := 0, int64(0)
	records := func(rs []analysis.PayloadRecordRow) error {
		rows += int64(len(rs))
		for _, r := range rs {
			if strings.HasSuffix(r.Segment, ".checkpoint") {
				return fmt.Errorf("a snapshot record among the records: %+v", r.RecordRow)
			}
			k := fmt.Sprint(r.Input, r.Segment[:strings.LastIndexByte(r.Segment, '/')], r.Offset)
			if seen[k] {
				return fmt.Errorf("offset twice among the records: %s", k)
			}
			seen[k] = true
			if r.Topic == "__cluster_metadata" {
				meta++
			}
		}
		return nil
	}
	res, err := pipeline.Run(context.Background(), inputs, plan.Options(), pipeline.Sinks{Records: records})
	if err != nil {
		t.Fatal(err)
	}
	if meta == 0 {
		t.Fatalf("no __cluster_metadata records: the test lost its subject")
	}
	if sum := res.Summarize(); sum.RecordsElsewhere == 0 || sum.Records-sum.RecordsElsewhere != rows {
		t.Errorf("summary: %d records, %d of them elsewhere; %d rows", sum.Records, sum.RecordsElsewhere, rows)
	}
	_, err = det.Finish(context.Background(), res.AnnotateDuplicates(func(g []analysis.DuplicateRow) error {
		for _, d := range g {
			if d.Topic == "__cluster_metadata" {
				return fmt.Errorf("a metadata record in a duplicate group: %+v", d)
			}
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
}
