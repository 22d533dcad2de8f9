package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/verify"
	"github.com/spf13/cobra"
)

type verifyOptions struct {
	json    bool
	noNotes bool
	jobs    int
}

func newVerifyCmd() *cobra.Command {
	var o verifyOptions
	cmd := &cobra.Command{
		Use:   "verify PATH...",
		Short: "Check the integrity of Kafka log dirs, partition dirs or files",
		Long: `verify checks files, partition dirs and whole log dirs (a directory that
is neither is searched for them):

  - every batch's framing and CRC, torn tails and zero-filled ranges;
  - offsets rising within and across segments, each segment's name against
    its first batch; gaps (compaction) are notes, overlaps are findings;
  - .index and .timeindex entries against the batches in the .log, and
    .txnindex entries against the ABORT markers in it;
  - every producer .snapshot against the producer state rebuilt from the
    batches below its offset, the way the broker rebuilds it;
  - the recovery-point, replication (high watermark), log-start and cleaner
    checkpoints against the offsets on disk.

Findings are printed grouped by file, then one summary line. Severities:
error (damage or contradiction), warning (a state a healthy broker does not
leave, with innocent explanations such as a copy taken while it ran), note
(normal, worth knowing). Exit status: 0 when nothing worse than notes was
found, 3 when errors or warnings were, 1 when a path could not be read.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.jobs < 0 {
				return usageError{fmt.Errorf("--jobs must be positive, not %d", o.jobs)}
			}
			if o.jobs == 0 {
				o.jobs = runtime.GOMAXPROCS(0)
			}
			return runVerify(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "write JSON lines: one object per finding, then a summary object")
	f.BoolVar(&o.noNotes, "no-notes", false, "do not list notes (they are still counted in the summary)")
	f.IntVar(&o.jobs, "jobs", 0, "partitions verified at once (default: all cores)")
	return cmd
}

func runVerify(cmd *cobra.Command, paths []string, o verifyOptions) error {
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	defer out.Flush()
	fsys := verify.OSFS{}
	opts := verify.Options{Jobs: o.jobs}
	total := &verify.Report{}
	failed := 0
	for _, p := range paths {
		targets, err := verify.Discover(fsys, p)
		if err == nil && len(targets) == 0 {
			err = fmt.Errorf("%s: no Kafka log dir, partition dir or file found", p)
		}
		if err != nil {
			failed++
			out.Flush()
			fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: %v\n", err)
			continue
		}
		for _, t := range targets {
			rep, err := verify.Verify(fsys, t, opts)
			if err != nil {
				failed++
				out.Flush()
				fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: %s: %v\n", t.Path, err)
				continue
			}
			writeFindings(out, rep.Findings, o)
			total.Findings = append(total.Findings, rep.Findings...)
			total.Stats.Files += rep.Stats.Files
			total.Stats.Segments += rep.Stats.Segments
			total.Stats.Batches += rep.Stats.Batches
			total.Stats.Records += rep.Stats.Records
			total.Stats.Bytes += rep.Stats.Bytes
		}
	}
	findings, notes := total.Counts()
	nf, nn := sum(findings), sum(notes)
	if o.json {
		b, _ := json.Marshal(map[string]any{"type": "summary", "files": total.Stats.Files, "segments": total.Stats.Segments,
			"batches": total.Stats.Batches, "records": total.Stats.Records, "bytes": total.Stats.Bytes,
			"findings": nf, "findingsByKind": findings, "notes": nn, "notesByKind": notes, "complete": failed == 0})
		out.Write(b)
		out.WriteByte('\n')
	} else {
		status := ""
		if failed > 0 {
			status = fmt.Sprintf(" (INCOMPLETE: %d paths could not be read)", failed)
		}
		fmt.Fprintf(out, "verified %d files, %d segments, %d batches, %d records: %d findings%s, %d notes%s%s\n",
			total.Stats.Files, total.Stats.Segments, total.Stats.Batches, total.Stats.Records,
			nf, byKind(findings), nn, byKind(notes), status)
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d paths could not be verified", failed, len(paths))
	}
	if nf > 0 {
		return errFindings
	}
	return nil
}

func writeFindings(out *bufio.Writer, fs []verify.Finding, o verifyOptions) {
	last := ""
	for _, f := range fs {
		if o.noNotes && !f.Counts() {
			continue
		}
		if o.json {
			m := map[string]any{"type": "finding", "kind": f.Kind, "severity": f.Severity, "file": f.File,
				"position": f.Position, "offset": f.Offset, "producerId": f.ProducerID, "message": f.Message}
			if f.Line > 0 {
				m["line"] = f.Line
			}
			b, _ := json.Marshal(m)
			out.Write(b)
			out.WriteByte('\n')
			continue
		}
		if f.File != last {
			fmt.Fprintf(out, "%s\n", f.File)
			last = f.File
		}
		fmt.Fprintf(out, "  %s\n", f)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// byKind renders " (2 crc-mismatch, 1 offset-gap)", kinds sorted by name.
func byKind(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
