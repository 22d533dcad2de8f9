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
one left open), and what the newest producer-state .snapshot holds for it.
Open transactions come first: the last stable offset (LSO) they hold back,
how long each had been open, whether its coordinator still tracks it
(ongoing) or not (hanging), and the kafka-transactions.sh commands an
operator would run (ksleuth never runs them; docs/transactions.md).

Then the sessions that need action (a finding names their producer, a
transaction of theirs aborted or is open, a batch is damaged, their copy
lost offsets), a count of the others (--all lists them), the findings about
producers (sequence gaps and regressions, epochs going back, snapshots
against the log) and a count of the other findings, which verify lists.
With __transaction_state or __cluster_metadata in the inputs, sessions gain
TXN ID and PID BROKER (the broker its PID block was allocated to; not the
copy's broker, scan's BROKER). Last, the cluster events of the metadata log
and broker logs (server.log, ...) that bear on loss (unclean elections,
leaders from the eligible leader replicas, truncations) and a count of the
others by kind (--all lists them; cluster_events.parquet holds all).

--json: per session an object of type "session", per finding "finding",
per open transaction "open_transaction", per partition with transactions
"lso".`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProducers(cmd, args, &o)
		},
	}
	addCommonFlags(cmd, &o)
	addWideFlag(cmd.Flags(), &o.wide)
	addAllOfFlag(cmd.Flags(), &o.all, "session and cluster event")
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
		err = text.Producers(cmd.OutOrStdout(), res, res.Summarize(), snapOnly, len(inputs) > 1, o.wide, o.all)
	}
	if err != nil {
		return err
	}
	return exitStatus(res, o.failOnFindings)
}
