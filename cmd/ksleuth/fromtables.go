package main

import (
	"errors"
	"fmt"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

// runDupsFromTables is dups --from-tables DIR...: the detector fed from
// the records tables of earlier scans instead of the files.
func runDupsFromTables(cmd *cobra.Command, dirs []string, o *commonOptions, d *dupOptions, limit int) error {
	topic, err := o.topicFilter("dups")
	if err != nil {
		return err
	}
	d.terse = !o.json
	dopts, _, err := d.detectorOptions("dups")
	if err != nil {
		return err
	}
	var want *pipeline.FingerprintMeta
	if f := cmd.Flags(); f.Changed("match") || f.Changed("ignore-header") {
		m := pipeline.NewFingerprintMeta(d.match, d.ignoreHeaders)
		want = &m
	}
	shards, inputs, err := pipeline.OpenShards(dirs, want)
	var se *pipeline.ShardError
	if errors.As(err, &se) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	det, done, err := pipeline.NewTablesDetector(dopts)
	if err != nil {
		return err
	}
	defer done()
	findings, unreadable, err := pipeline.FeedShards(ctx, det, shards, topic)
	if err != nil {
		return interrupted(ctx, "dups", err)
	}
	if unreadable > 0 {
		// The scans behind the tables could not read everything.
		fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: dups: the tables list %s that could not be read\n", text.Count(unreadable, "input file"))
	}
	idx, err := pipeline.ShardCommits(ctx, shards)
	if err != nil {
		return interrupted(ctx, "dups", err)
	}
	return reportDups(ctx, cmd, o, det, d.tmp, limit, int(inputs), findings, nil, idx)
}
