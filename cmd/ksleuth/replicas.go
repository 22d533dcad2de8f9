package main

import (
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

func newReplicasCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	cmd := &cobra.Command{
		Use:   "replicas PATH...",
		Short: "Compare the copies of each partition held by several brokers",
		Long: `replicas compares the copies of every partition that two or more of the
inputs hold (typically one log dir per broker), the way the brokers reconcile
them: by leader epoch. The copy with the highest last leader epoch (on a tie,
the highest log end offset) is the reference. Every other copy is

  in-sync   the same batches up to the same end;
  damaged   the same batches, but some are damaged in this copy (they
            fail their CRC, or, where records are decoded, do not decode)
            while the reference's are intact;
  lagging   a prefix of the reference (a follower behind, or copied earlier);
  unread    a prefix of the reference read from an archive that ended
            inside it: the rest was not read, which says nothing of the
            broker;
  diverged  it holds offsets outside the reference's leader-epoch history
            (an unclean election, a leader that lost its tail): the broker
            truncates them when it follows again, and their records are lost;
  ahead     it goes on past the reference's end in the reference's own
            last epoch.

Each copy shows its log start and end offsets, its high watermark
(replication-offset-checkpoint), recovery point and leader-epoch history
(leader-epoch-checkpoint and the batches' partitionLeaderEpoch). Batches
are compared by base offset, last offset, CRC and leader epoch, and every
CRC is checked; no data batch's records are decoded (verify decodes them).
--json gives one object per copy (type "replica") and per comparison (type
"divergence"). Diverged copies are findings (replica-divergence), and their
lost offsets are in scan's gaps.parquet; --fail-on-findings exits 3 for
them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplicas(cmd, args, &o)
		},
	}
	addCommonFlags(cmd, &o)
	addAllFlag(cmd.Flags(), &o.all)
	return cmd
}

func runReplicas(cmd *cobra.Command, args []string, o *commonOptions) error {
	topic, inputs, err := o.prepare("replicas", args)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	res, err := analyze(ctx, cmd, "replicas", o, inputs, pipeline.Plan{Command: pipeline.Replicas, Topic: topic}, pipeline.Sinks{})
	if err != nil {
		return err
	}
	if o.json {
		err = jsonl.Replicas(cmd.OutOrStdout(), res.Replicas.Rows)
	} else {
		err = text.Replicas(cmd.OutOrStdout(), res.Replicas.Rows, res.Summarize(), o.all)
	}
	if err != nil {
		return err
	}
	return exitStatus(res, o.failOnFindings)
}
