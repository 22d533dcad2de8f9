package main

// Where the commands write: the tables of --out and the page of --html,
// locked for the run, and what they say of the leftovers of killed runs.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/html"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkOut refuses an output dir inside a directory input, the
// directory holding a file input, and one that would hold the --html
// page (the set is replaced as a whole, and the page is not part of it).
func checkOut(o scanOptions, inputs []*source.Input) error {
	if o.html != "" && source.Within(o.out, o.html) {
		return usageError{fmt.Errorf("scan: --html %s is inside --out %s, whose table set the next scan replaces as a whole; "+
			"write the page beside it", o.html, o.out)}
	}
	if err := source.CheckOutput(o.out, source.OutputDir, inputs); err != nil {
		return usageError{fmt.Errorf("scan: --out %w", err)}
	}
	return nil
}

// openOut locks --out for this run (a second run into it is refused),
// says what leftovers of killed runs it removed, and refuses an --out
// that holds tables (without --force) or files ksleuth did not write.
func openOut(cmd *cobra.Command, dir string, force bool) (*export.Out, error) {
	out, err := export.OpenOut(dir, force)
	var refused *export.RefusedError
	switch {
	case errors.As(err, &refused):
		return nil, usageError{fmt.Errorf("scan: --out %w", err)}
	case err != nil:
		return nil, fmt.Errorf("scan: --out: %w", err)
	}
	if out.Restored != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: scan: restored the table set of %s from %s, left by a run killed while it replaced the set\n", dir, out.Restored)
	}
	noteLeftovers(cmd, "scan", out.Removed)
	return out, nil
}

// noteLeftovers says on stderr which leftovers of killed runs were removed.
func noteLeftovers(cmd *cobra.Command, name string, removed []string) {
	if len(removed) == 0 {
		return
	}
	more := ""
	if len(removed) > 3 {
		more, removed = fmt.Sprintf(" and %d more", len(removed)-3), removed[:3]
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: %s: removed what an interrupted run left: %s%s\n", name, strings.Join(removed, ", "), more)
}

func commandLine(cmd *cobra.Command, args []string) string {
	parts := []string{cmd.CommandPath()}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		parts = append(parts, "--"+f.Name+"="+f.Value.String())
	})
	for _, a := range args {
		parts = append(parts, strconv.Quote(a))
	}
	return strings.Join(parts, " ")
}

// checkHTML refuses a report file inside a directory input or in the
// directory of a file input: ksleuth never writes next to its inputs. It
// locks the file for this run (a second run writing it is refused) and
// removes the temporary files of killed runs.
func checkHTML(cmd *cobra.Command, name, page string, inputs []*source.Input, force bool) (*export.Lock, error) {
	if err := source.CheckOutput(page, source.OutputFile, inputs); err != nil {
		return nil, usageError{fmt.Errorf("%s: --html %w", name, err)}
	}
	lock, removed, err := export.OpenFile(page, force)
	noteLeftovers(cmd, name, removed)
	var refused *export.RefusedError
	switch {
	case errors.As(err, &refused):
		return nil, usageError{fmt.Errorf("%s: --html %w", name, err)}
	case err != nil:
		return nil, fmt.Errorf("%s: --html: %w", name, err)
	}
	return lock, nil
}

// writeScanReport writes the report of scan --html.
func writeScanReport(ctx context.Context, cmd *cobra.Command, set *settings, args []string, page string, inputs []*source.Input, res *pipeline.Result,
	st dups.Stats, rc *html.Collector, hash bool) error {
	ins, err := html.HashInputs(ctx, inputs, hash)()
	if err != nil {
		return fmt.Errorf("scan: --html: %w", err)
	}
	if err := rc.Finish(ctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("scan interrupted: %w; tables written, no --html report", context.Cause(ctx))
		}
		return fmt.Errorf("scan: --html: %w", err)
	}
	m := buildPage(cmd, set, args, res, res.Summarize(), ins, st, rc)
	if err := html.WriteFile(page, m); err != nil {
		return fmt.Errorf("scan: --html: %w", err)
	}
	return nil
}

// buildPage is the page's model of a run.
func buildPage(cmd *cobra.Command, set *settings, args []string, res *pipeline.Result, sum *pipeline.Summary, ins []html.Input,
	st dups.Stats, rc *html.Collector) *html.Model {
	run := html.NewRun(res, sum)
	run.Version, run.Generated, run.CommandLine, run.Inputs = ksleuthVersion(), set.now(), commandLine(cmd, args), ins
	run.DupStats, run.Collected = st, rc
	return html.Build(run)
}
