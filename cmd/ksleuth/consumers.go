package main

import (
	"fmt"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

func newConsumersCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	var d dupOptions
	var group string
	cmd := &cobra.Command{
		Use:   "consumers PATH...",
		Short: "Show what consumer groups committed, and which flagged records they consumed",
		Long: `consumers reads __consumer_offsets and names the consumer groups. Then,
for every run of later duplicate copies, every loss-ledger gap and every
aborted transaction, the groups that committed past it (a commit of N means
the records below N were processed), with the first such commit; aborted
records reach only read_uncommitted consumers. --topic chooses the data
partitions; __consumer_offsets is read whatever it says (docs/consumers.md).

Last, the commit timelines (a group and a partition: commits, committed
offsets, resets, lag, and the flagged ranges the lag holds, FLAGGED AHEAD)
that need action (a flagged range consumed or ahead, a reset, damaged
commits, a commit past the end) and a count of the others (--all: every one).

--json prints one object per line with a type: "commit" (the columns of
commits.parquet), "group" (groups.parquet), "timeline", "consumed" (a group
that committed past a flagged range) and a last "summary".`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConsumers(cmd, args, &o, &d, group)
		},
	}
	addCommonFlags(cmd, &o)
	addDupFlags(cmd.Flags(), &d)
	addWideFlag(cmd.Flags(), &o.wide)
	addAllOfFlag(cmd.Flags(), &o.all, "group's commits to a partition, and every group by name")
	cmd.Flags().StringVar(&group, "group", "", "only consumer groups whose id matches this regular expression")
	return cmd
}

func runConsumers(cmd *cobra.Command, args []string, o *commonOptions, d *dupOptions, group string) error {
	groupRE, err := pipeline.Pattern(group)
	if err != nil {
		return usageError{fmt.Errorf("consumers: --group: %w", err)}
	}
	topic, inputs, err := o.prepare("consumers", args)
	if err != nil {
		return err
	}
	d.terse = true // only the classes and offsets of the copies are used
	det, hasher, err := d.openDetector("consumers", inputs)
	if err != nil {
		return err
	}
	defer det.Close()
	ctx, stop := signalContext(cmd)
	defer stop()
	res, err := analyze(ctx, cmd, "consumers", o, inputs, pipeline.Plan{Command: pipeline.Consumers, Topic: topic, TmpDir: d.tmp,
		Detector: det, Hasher: hasher}, pipeline.Sinks{})
	if err != nil {
		return err
	}
	rep, err := res.Consumers(ctx, det, inputs, topic, groupRE)
	if err != nil {
		return interrupted(ctx, "consumers", err)
	}
	if o.json {
		err = jsonl.Consumers(cmd.OutOrStdout(), rep)
	} else {
		err = text.Consumers(cmd.OutOrStdout(), rep, o.wide, o.all)
	}
	if err != nil {
		return err
	}
	return exitStatus(res, o.failOnFindings)
}
