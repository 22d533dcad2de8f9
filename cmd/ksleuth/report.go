package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/html"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

func newReportCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	var d dupOptions
	var page string
	var force bool
	cmd := &cobra.Command{
		Use:   "report PATH... --html FILE",
		Short: "Write a self-contained HTML post-mortem page with the producer timeline",
		Long: `report analyses the inputs like scan (integrity, producer sessions,
duplicates; see ksleuth dups --help for the duplicate flags) and writes one
self-contained HTML file to FILE: no external assets and no network access,
so it can be attached to an incident ticket and opened anywhere.

The page has what was analysed (every input with a SHA-256), the integrity
findings with file and byte position and the damaged ranges of each file,
the producer timeline of every partition (one lane per producer session,
a link from the original records to every run of copies written again,
coloured by class; offsets or time on the x axis, zoom and pan), the
duplicate runs table and per-topic totals. The data behind the page is
embedded in it as JSON (script #ksleuth-data); --json also prints it.

FILE is written under a temporary name and renamed when complete. It may
not be inside an input or next to a file input.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, args, &o, &d, page, force)
		},
	}
	addCommonFlags(cmd, &o)
	addDupFlags(cmd.Flags(), &d)
	cmd.Flags().StringVar(&page, "html", "", "write the report to this file (required)")
	cmd.Flags().BoolVar(&force, "force", false, "replace the file --html names if it exists")
	return cmd
}

func runReport(cmd *cobra.Command, args []string, o *commonOptions, d *dupOptions, page string, force bool) error {
	if page == "" {
		return usageError{errors.New("report: --html FILE is required")}
	}
	topic, inputs, err := o.prepare("report", args)
	if err != nil {
		return err
	}
	lock, err := checkHTML(cmd, "report", page, inputs, force)
	if err != nil {
		return err
	}
	defer lock.Release()
	det, hasher, err := d.openDetector("report", inputs)
	if err != nil {
		return err
	}
	defer det.Close()
	ctx, stop := signalContext(cmd)
	defer stop()
	rc := html.NewCollector(d.tmp)
	defer rc.Close()
	hashes := html.HashInputs(ctx, inputs, true)
	res, err := analyze(ctx, cmd, "report", o, inputs, pipeline.Plan{Command: pipeline.Report, Topic: topic, TmpDir: d.tmp,
		Detector: det, Hasher: hasher}, rc.Sinks())
	if err != nil {
		return err
	}
	st, err := det.Finish(ctx, res.AnnotateDuplicates(rc.Duplicates))
	if err == nil {
		err = rc.Finish(ctx)
	}
	if err != nil {
		return interrupted(ctx, "report", err)
	}
	ins, err := hashes()
	if err != nil {
		return err
	}
	sum := res.Summarize()
	m := buildPage(cmd, o.set, args, res, sum, ins, st, rc)
	if err := html.WriteFile(page, m); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	out := cmd.OutOrStdout()
	if o.json {
		// One JSON line of type "report": the page's data section.
		err = json.NewEncoder(out).Encode(struct {
			Type string `json:"type"`
			*html.Model
		}{"report", m})
	} else {
		// Findings are errors and warnings, notes are said apart: verify's
		// words, and the page's Integrity counts.
		c := func(n int, noun string) string { return text.Count(int64(n), noun) }
		_, err = fmt.Fprintf(out, "wrote %s: %s, %s, %s, %s, %s, %s\n", page, c(len(ins), "input"), c(m.Partitions, "partition"),
			c(m.Sessions, "producer session"), c(m.RunsTotal, "duplicate run"), text.Count(sum.Counted, "finding"), text.Count(sum.Notes, "note"))
	}
	if err != nil {
		return err
	}
	return exitStatus(res, o.failOnFindings)
}
