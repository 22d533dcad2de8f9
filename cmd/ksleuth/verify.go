package main

import (
	"bufio"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

type verifyOptions struct {
	commonOptions
	noNotes  bool
	recovery bool
}

func newVerifyCmd(set *settings) *cobra.Command {
	o := verifyOptions{commonOptions: commonOptions{set: set}}
	cmd := &cobra.Command{
		Use:   "verify PATH...",
		Short: "Check the integrity of Kafka log dirs, partition dirs, files or archives",
		Long: `verify runs the same analysis as scan, without writing tables, over log
dirs, partition dirs, single files and archives (.tar, .tar.gz/.tgz,
.tar.zst), and prints what it found:

  - every batch's framing and CRC, torn tails and zero-filled ranges;
  - offsets rising within and across segments, each segment's name against
    its first batch;
  - .index and .timeindex entries against the batches in the .log, and
    .txnindex entries against the ABORT markers in it;
  - every producer .snapshot against the producer state rebuilt from the
    batches below its offset, the way the broker rebuilds it;
  - the recovery-point, replication (high watermark), log-start and cleaner
    checkpoints against the offsets on disk;
  - producer sessions (sequence and epoch regressions);
  - the loss ledger: per partition, "intact" or which offsets are lost and
    why (retention, DeleteRecords, compaction, a torn or damaged batch, a
    missing segment, data a checkpoint says was written).

Findings are printed grouped by file, then a verdict per partition, then
one summary line. Severities: error (damage, lost data or contradiction),
warning (a state a healthy broker does not leave, with innocent
explanations such as a copy taken while it ran), note (normal, worth
knowing). Exit status: 0 when nothing worse than notes was found, 3 when
errors or warnings were (verify always fails on findings), 1 when no input
holds Kafka data or a path cannot be read at all.

--recovery prints instead what a broker started on this copy would do
with each partition dir as it loads its logs, and why, without writing
anything: a clean or unclean start (.kafka_cleanshutdown and the
recovery-point checkpoint), the segments it recovers and where it
truncates them, the indexes it rebuilds or creates, the segments, leftover
(.deleted, .cleaned, .swap) and orphaned index files it deletes or renames,
the producer snapshots it deletes, and the log start, log end and high
watermark afterwards (--json: one object per partition dir, type
"recovery"). Exit status 0 unless an input could not be read in full. See
docs/recovery.md.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd, args, &o)
		},
	}
	addCommonFlags(cmd, &o.commonOptions)
	// verify always fails on findings: the flag is accepted, for scripts, but not listed.
	_ = cmd.Flags().MarkHidden("fail-on-findings")
	cmd.Flags().BoolVar(&o.noNotes, "no-notes", false, "do not list notes (they are still counted in the summary)")
	addAllFlag(cmd.Flags(), &o.all)
	cmd.Flags().BoolVar(&o.recovery, "recovery", false, "print what a broker would do with each partition at startup (read-only), not the findings")
	return cmd
}

func runVerify(cmd *cobra.Command, args []string, o *verifyOptions) error {
	topic, inputs, err := o.prepare("verify", args)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	res, err := analyze(ctx, cmd, "verify", &o.commonOptions, inputs, pipeline.Plan{Command: pipeline.Verify, Topic: topic, Recovery: o.recovery},
		pipeline.Sinks{})
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	defer out.Flush()
	switch {
	case o.recovery && o.json:
		err = jsonl.Recovery(out, res.Recovery)
	case o.recovery:
		err = text.Recovery(out, inputs, res.Recovery, o.all)
	case o.json:
		err = jsonl.Verify(out, res, res.Summarize(), o.noNotes)
	default:
		err = text.Verify(out, inputs, res, res.Summarize(), o.noNotes, o.all)
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		return err
	}
	return exitStatus(res, !o.recovery)
}

// exitStatus is the exit code every analysis command derives from a run:
// 3 when some input could not be read in full, or, with fail (verify
// always), when an error or warning was found.
func exitStatus(res *pipeline.Result, fail bool) error {
	if res.Incomplete() || fail && res.Failed() {
		return errFindings
	}
	return nil
}
