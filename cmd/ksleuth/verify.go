package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
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
	cmd.Flags().BoolVar(&o.noNotes, "no-notes", false, "do not list notes (they are still counted in the summary)")
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
	prog := newProgress(cmd.ErrOrStderr(), o.progress, progressTotal(inputs), inputs)
	defer prog.finish()
	res, err := pipeline.Run(ctx, inputs, pipeline.Options{
		Scan:        scan.Config{Jobs: o.jobs, Records: true, Compact: true, Topic: topic, Progress: prog.add, HeldBudget: o.set.heldBudget},
		Attribution: true, Recovery: o.recovery,
	}, pipeline.Sinks{})
	prog.finish()
	if err != nil {
		return interrupted(ctx, "verify", err)
	}
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	defer out.Flush()
	switch {
	case o.recovery && o.json:
		err = writeRecoveryJSON(out, res.Recovery)
	case o.recovery:
		err = writeRecoveryText(out, inputs, res.Recovery)
	case o.json:
		err = writeVerifyJSON(out, res, o)
	default:
		err = writeVerifyText(out, inputs, res, o)
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

// displayPath names a finding's file the way the user can find it: below
// the input as given, or inside the archive.
func displayPath(inputs []*source.Input, input int32, file string) string {
	if int(input) >= len(inputs) || file == "" {
		return file
	}
	in := inputs[input]
	switch in.Kind {
	case source.Dir:
		return filepath.ToSlash(filepath.Join(in.Path, file))
	case source.Archive:
		return in.Path + ":" + file
	}
	return in.Path
}

func writeVerifyText(out *bufio.Writer, inputs []*source.Input, res *pipeline.Result, o *verifyOptions) error {
	last := ""
	for i := range res.Scan.Anomalies {
		a := &res.Scan.Anomalies[i]
		if o.noNotes && !finding.Counts(a.Severity) {
			continue
		}
		if p := displayPath(inputs, a.Input, a.File); p != last {
			fmt.Fprintf(out, "%s\n", p)
			last = p
		}
		fmt.Fprintf(out, "  %s\n", finding.Text(a))
	}
	sum := res.Summarize()
	if len(sum.Verdicts) > 0 {
		fmt.Fprintln(out, "partitions:")
		for _, v := range sum.Verdicts {
			fmt.Fprintf(out, "  %s: %s\n", displayPath(inputs, v.Input, v.Dir), v.Text)
		}
	}
	writeChecked(out, sum.Checked)
	writeSkipped(out, inputs, sum.Skipped)
	status := ""
	if s := lossStatus(sum); s != "" {
		status = "; " + s
	}
	if sum.Incomplete {
		status += " (INCOMPLETE: some input could not be read in full)"
	}
	// Segments are the live segments read, as the "checked:" line counts
	// them: also a segment given on its own, outside a partition dir.
	_, err := fmt.Fprintf(out, "verified %d files, %d segments, %d batches, %d records: %d findings%s, %d notes%s%s\n",
		sum.CheckedFiles, sum.Segments, sum.Batches, sum.Records, sum.Counted, byKind(sum.CountedByKind), sum.Notes, byKind(sum.NotesByKind), status)
	return err
}

// lossStatus says how many partition copies lost offsets and, apart, how
// many are only unread (an archive that ended before their data says
// nothing of whether the broker lost them); "" for none.
func lossStatus(sum *pipeline.Summary) string {
	unread := sum.UnreadCopies
	lost := sum.LossCopies - unread
	switch {
	case unread == 0 && lost == 0:
		return ""
	case unread == 0:
		return fmt.Sprintf("%d partition copy(ies) lost offsets", lost)
	case lost == 0:
		return fmt.Sprintf("%d partition copy(ies) unread: %s", unread, unreadWhy(unread))
	}
	return fmt.Sprintf("%d partition copy(ies) lost offsets, %d unread: %s", lost, unread, unreadWhy(unread))
}

// unreadWhy says why n partition copies are unread.
func unreadWhy(n int) string {
	return "the archive ended before " + pluralS(int64(n), "its", "their") + " data"
}

// writeChecked says what the checks read (pipeline.Checked), so that no
// check is claimed that had nothing to run on, and which files were read
// only in part.
func writeChecked(out io.Writer, kinds []analysis.CheckedKind) {
	var parts []string
	for _, c := range kinds {
		if c.What == analysis.CheckedOther {
			continue
		}
		part := fmt.Sprintf("%d %s", c.Files, c.What)
		if c.Partial > 0 {
			part += fmt.Sprintf(" (%d read only in part: the input failed inside it)", c.Partial)
			if c.Partial > 1 {
				part = strings.Replace(part, "inside it)", "inside them)", 1)
			}
		}
		parts = append(parts, part)
	}
	fmt.Fprintf(out, "checked: %s\n", strings.Join(parts, ", "))
}

// writeSkipped lists the files that are not Kafka files, a few by name.
func writeSkipped(out *bufio.Writer, inputs []*source.Input, sk []analysis.SkippedFile) {
	if len(sk) == 0 {
		return
	}
	names := make([]string, 0, 5)
	for _, s := range sk[:min(len(sk), 5)] {
		names = append(names, displayPath(inputs, s.Input, s.Path))
	}
	more := ""
	if len(sk) > 5 {
		more = fmt.Sprintf(", … (%d in all)", len(sk))
	}
	fmt.Fprintf(out, "skipped %d file(s) that are not Kafka files: %s%s\n", len(sk), strings.Join(names, ", "), more)
}

type findingLine struct {
	Type string `json:"type"`
	analysis.AnomalyRow
}

type gapLine struct {
	Type string `json:"type"`
	analysis.GapRow
}

type verdictLine struct {
	Type string `json:"type"`
	analysis.Verdict
}

type skippedLine struct {
	Type   string `json:"type"`
	Input  int32  `json:"input"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func writeVerifyJSON(out *bufio.Writer, res *pipeline.Result, o *verifyOptions) error {
	enc := json.NewEncoder(out)
	for i := range res.Scan.Anomalies {
		a := res.Scan.Anomalies[i]
		if o.noNotes && !finding.Counts(a.Severity) {
			continue
		}
		if err := enc.Encode(findingLine{"finding", a}); err != nil {
			return err
		}
	}
	sum := res.Summarize()
	for _, g := range res.Check.Gaps {
		if err := enc.Encode(gapLine{"gap", g}); err != nil {
			return err
		}
	}
	for _, v := range sum.Verdicts {
		if err := enc.Encode(verdictLine{"partition", v}); err != nil {
			return err
		}
	}
	for _, s := range sum.Skipped {
		if err := enc.Encode(skippedLine{"skipped", s.Input, s.Path, s.Reason}); err != nil {
			return err
		}
	}
	return enc.Encode(map[string]any{"type": "summary", "files": sum.Files, "checked_files": sum.CheckedFiles, "batches": sum.Batches,
		"records": sum.Records, "bytes": sum.Bytes, "findings": sum.Counted, "findings_by_kind": sum.CountedByKind, "notes": sum.Notes,
		"notes_by_kind": sum.NotesByKind, "errors": sum.Errors, "warnings": sum.Warnings, "partitions": len(sum.Verdicts),
		"skipped_files": len(sum.Skipped), "complete": !sum.Incomplete, "partitions_with_loss": sum.LossCopies - sum.UnreadCopies,
		"partitions_unread": sum.UnreadCopies})
}

// byKind renders " (2 crc-mismatch, 1 offset-gap)", kinds sorted by name.
func byKind(m map[string]int64) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
