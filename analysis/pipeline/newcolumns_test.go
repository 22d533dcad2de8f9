package pipeline_test

import (
	"context"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// TestRecordsTimestampType: each row of the records table says who set
// its timestamp, from its batch's attributes: the sample's codecs-0 has
// LogAppendTime batches at offsets 57 and 58 among CreateTime ones, and
// legacy-v0 (magic 0) has no timestamps at all.
func TestRecordsTimestampType(t *testing.T) {
	t.Parallel()
	inputs, err := source.Classify([]string{sampleDir})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[int64]string{}
	sink := pipeline.Sinks{Records: func(rows []analysis.PayloadRecordRow) error {
		for _, r := range rows {
			if got[r.Dir] == nil {
				got[r.Dir] = map[int64]string{}
			}
			got[r.Dir][r.Offset] = r.TimestampType
		}
		return nil
	}}
	plan := pipeline.Plan{Command: pipeline.Scan, Records: true}
	if _, err := pipeline.Run(context.Background(), inputs, plan.Options(), sink); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		off  int64
		want string
	}{{"codecs-0", 0, "CreateTime"}, {"codecs-0", 57, "LogAppendTime"}, {"codecs-0", 58, "LogAppendTime"}, {"legacy-v0-0", 0, "NoTimestampType"},
		{"legacy-v1-0", 0, "CreateTime"}} {
		if g := got[c.dir][c.off]; g != c.want {
			t.Errorf("%s@%d: timestamp_type %q, want %q", c.dir, c.off, g, c.want)
		}
	}
}

// TestTransactionsSource: every row of transactions.parquet names the
// input it was read from, as every other table's source column does.
func TestTransactionsSource(t *testing.T) {
	t.Parallel()
	dir := attributionLogDir(t)
	res, _ := runDups(t, pipeline.Plan{Command: pipeline.Scan}, dir)
	inputs, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := pipeline.Sources(inputs)[0]
	txns := res.Transactions()
	if len(txns) == 0 {
		t.Fatal("no transactions: the test lost its subject")
	}
	for _, r := range txns {
		if r.Source != want {
			t.Errorf("transaction %s at %d: source %q, want %q", r.TransactionalID, r.Offset, r.Source, want)
		}
	}
}
