package pipeline

import (
	"context"
	"regexp"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// remoteMetaTopic selects the partitions of __remote_log_metadata only.
var remoteMetaTopic = regexp.MustCompile("^" + regexp.QuoteMeta(topics.RemoteLogMetadata.String()) + "$")

// readMetadata reads the records of __remote_log_metadata alone, for a
// run whose scan decodes no records (Options.RemoteMetadata without
// Attribution): the loss ledger judges a tiered partition's offsets below
// its local log by the remote segments they name, so that one input gives
// the same verdicts whichever command reads it. The topic filter keeps
// every other topic's files unopened, so this costs a listing of the dirs
// and the reading of that small topic. An archive (or standard input) is
// read once, by the scan: with one among the inputs nothing is read here.
func (st *remoteStores) readMetadata(ctx context.Context, inputs []*source.Input, o *Options) error {
	if !o.RemoteMetadata || o.Attribution {
		return nil
	}
	for _, in := range inputs {
		if in.Kind == source.Archive || in.Reader != nil {
			return nil
		}
	}
	cfg := scan.Config{Jobs: o.Scan.Jobs, TmpDir: o.Scan.TmpDir, HeldBudget: o.Scan.HeldBudget, Topic: remoteMetaTopic,
		Records: true, KeepPayload: internalTopic}
	t := &attributor{remote: cluster.NewRemoteSegments()}
	out := scan.Output{Records: func(rs []analysis.PayloadRecordRow) error {
		for i := range rs {
			if r := &rs[i]; !r.IsControl && topics.TopicOf(r.Topic) == topics.RemoteLogMetadata {
				// Its decode problems are findings of the main scan's
				// commands that decode records, not of this one.
				t.remoteRecord(r)
			}
		}
		return nil
	}}
	if _, err := scan.Run(ctx, inputs, cfg, out); err != nil {
		return err
	}
	st.meta = t.remote.Rows(nil)
	return nil
}
