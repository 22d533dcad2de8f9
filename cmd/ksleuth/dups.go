package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

func newDupsCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	var d dupOptions
	var limit int
	var fromTables bool
	cmd := &cobra.Command{
		Use:   "dups PATH... | dups --from-tables DIR...",
		Short: "Report records written again under another producer ID",
		Long: `dups finds records whose content (key, value and headers; see --match and
--ignore-header) was written again under a different producer ID, within a
topic by default (--scope), and explains each later copy by its cause:
restart-resend (a replaced producer resent what the broker had persisted,
its session beginning within --restart-window of the earlier one's end),
reprocess (a consumer group restarted between the two producers' sessions and
re-read its input from its last commit), rebalance (two live members of a
group wrote the outputs of one input after the group moved it), txn-retry
(the earlier copy was aborted), retry and dedup-failure (one producer's
batch appended twice), repeat (anything else, e.g. constant heartbeats).

Every copy but a repeat is graded "strong" when the bytes show its cause in
full (a resend: a run of --resend-min-run records or more, the earlier
session's tail within --resend-tail, the later's head within --resend-head;
a reprocess or rebalance: the group's link checked), else "possible", with
the reasons. The text report prints the totals per class and per topic,
then the runs of later copies, the largest first (at most --limit), and a
count of the runs of repeats (--all lists them). --json writes one JSON
object per duplicate group, then a summary. Memory is bounded by --mem:
beyond it records are spilled to --tmp, and the result is the same.

With --from-tables the arguments are output dirs of earlier
"ksleuth scan --records" runs (e.g. one per machine, each over its share
of the archives): the groups are computed from their records tables,
without the original files, and are exactly those one scan of all the
inputs would give (inputs numbered in the order of the DIRs). The
fingerprints were computed at scan time, so --match and --ignore-header
must be those the scans used (they are read from the tables).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if fromTables {
				return runDupsFromTables(cmd, args, &o, &d, limit)
			}
			return runDups(cmd, args, &o, &d, limit)
		},
	}
	addCommonFlags(cmd, &o)
	addWideFlag(cmd.Flags(), &o.wide)
	addDupFlags(cmd.Flags(), &d)
	addAllOfFlag(cmd.Flags(), &o.all, "run, repeats too, and all of them unless --limit is given")
	cmd.Flags().IntVar(&limit, "limit", 20, "text: list at most this many runs, the largest first (0: all; --json lists every group)")
	cmd.Flags().BoolVar(&fromTables, "from-tables", false, "the arguments are scan --records output dirs: merge their records tables")
	return cmd
}

func runDups(cmd *cobra.Command, args []string, o *commonOptions, d *dupOptions, limit int) error {
	topic, inputs, err := o.prepare("dups", args)
	if err != nil {
		return err
	}
	d.terse = !o.json // the text report's run lines need no explanations
	det, hasher, err := d.openDetector("dups", inputs)
	if err != nil {
		return err
	}
	defer det.Close()
	ctx, stop := signalContext(cmd)
	defer stop()
	res, err := analyze(ctx, cmd, "dups", o, inputs, pipeline.Plan{Command: pipeline.Dups, Topic: topic, TmpDir: d.tmp,
		Detector: det, Hasher: hasher}, pipeline.Sinks{})
	if err != nil {
		return err
	}
	return reportDups(ctx, cmd, o, det, d.tmp, limit, len(inputs), res.Scan.Errors+res.Warnings, res, res.Consumed())
}

// reportDups finishes the detector and prints the report; findings
// counts the inputs' damage findings; res is the run that fed the
// detector, nil when it was fed from tables, whose commits idx holds.
func reportDups(ctx context.Context, cmd *cobra.Command, o *commonOptions, det *dups.Detector, tmp string, limit, inputs int, findings int64,
	res *pipeline.Result, idx pipeline.Consumed) (err error) {
	w := cmd.OutOrStdout()
	enc := json.NewEncoder(w)
	var group func([]analysis.DuplicateRow) error
	if o.json {
		group = func(rows []analysis.DuplicateRow) error {
			return enc.Encode(jsonl.DupGroup{Type: "group", GroupID: rows[0].GroupID, Fingerprint: rows[0].Fingerprint, Members: rows})
		}
	}
	rb, sum, err := pipeline.DupRuns(ctx, det, res, idx, tmp, o.set.runBudget, findings, group)
	if err != nil {
		return interrupted(ctx, "dups", err)
	}
	defer func() { err = errors.Join(err, rb.Close()) }()
	if o.json {
		err = enc.Encode(sum)
	} else {
		if o.all && !cmd.Flags().Changed("limit") {
			limit = 0
		}
		err = text.Dups(ctx, w, &sum, rb, idx, limit, inputs, o.wide, o.all)
	}
	if err != nil {
		return interrupted(ctx, "dups", err)
	}
	if res == nil { // from tables: their findings were counted
		if o.failOnFindings && findings > 0 {
			return errFindings
		}
		return nil
	}
	return exitStatus(res, o.failOnFindings)
}
