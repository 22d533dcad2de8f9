package main

import (
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

func newProducersCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	cmd := &cobra.Command{
		Use:   "producers PATH...",
		Short: "List producer sessions per partition",
		Long: `producers lists one session per (topic, partition, producer ID, epoch):
offsets, times, sequences, batches, records, transactions (commits, aborts,
one left open), and what the newest producer-state .snapshot of the
partition holds for it. Sequence gaps, regressions (including repeated
sequence numbers) and epochs going backwards are listed after the table
(--json: one object per session, type "session", and per anomaly a
finding, type "finding", with the columns of anomalies.parquet).

When the inputs hold __transaction_state or __cluster_metadata, each
session gains the transactional id that held its PID and the broker the
controller allocated its PID block to (transactional_id,
allocated_by_broker; TXN ID and BROKER columns in the text), as scan
writes them to producers.parquet; records of those topics that do not
decode are listed as anomalies.

Transactions open at the end of the input come first: per partition the
last stable offset (LSO) they hold back, how long each had been open at
the partition's last write, whether __transaction_state shows its
coordinator still tracking it (ongoing) or not (hanging), the
__transaction_state partition that coordinates its transactional id, and
the kafka-transactions.sh find-hanging and abort commands an operator would
run (ksleuth never runs them). --json adds one object per open
transaction (type "open_transaction") and per partition with transactions
(type "lso"). See docs/transactions.md.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProducers(cmd, args, &o)
		},
	}
	addCommonFlags(cmd, &o)
	addWideFlag(cmd.Flags(), &o.wide)
	return cmd
}

func runProducers(cmd *cobra.Command, args []string, o *commonOptions) error {
	topic, inputs, err := o.prepare("producers", args)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	res, err := analyze(ctx, cmd, "producers", o, inputs, pipeline.Plan{Command: pipeline.Producers, Topic: topic}, pipeline.Sinks{})
	if err != nil {
		return err
	}
	snapOnly := res.SnapshotOnly(inputs)
	if o.json {
		err = jsonl.Producers(cmd.OutOrStdout(), res, res.Summarize(), snapOnly)
	} else {
		err = text.Producers(cmd.OutOrStdout(), res, res.Summarize(), snapOnly, len(inputs) > 1, o.wide)
	}
	if err != nil {
		return err
	}
	return exitStatus(res, o.failOnFindings)
}
