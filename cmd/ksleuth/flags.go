package main

// The flags every analysis command shares, and how they become the
// inputs, the topic filter and the workers of a run.

import (
	"fmt"
	"regexp"
	"runtime"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The text says how to print what it leaves out.
func init() {
	text.WideHint, text.JSONHint, text.RunsHint = "; --wide prints them", "; --json lists them", "; --limit 0 shows all, --json every group"
	text.AllHint = " (--all lists them)"
}

// addAllFlag is the one --all of the commands that lead with what needs
// action and count the rest; -v is its short form, as a more verbose
// listing.
func addAllFlag(f *pflag.FlagSet, all *bool) {
	f.BoolVarP(all, "all", "v", false, "list every partition copy, intact ones too (default: what needs action, and a count of the rest)")
}

// addAllOfFlag is --all of a command that lists other things than
// partition copies: every one of what.
func addAllOfFlag(f *pflag.FlagSet, all *bool, what string) {
	f.BoolVarP(all, "all", "v", false, "list every "+what+" (default: what needs action, and a count of the rest)")
}

func addWideFlag(f *pflag.FlagSet, wide *bool) {
	f.BoolVar(wide, "wide", false, "print tables with every column and every name whole, however wide (default: fit 120 columns)")
}

// commonOptions are the flags every analysis command shares.
type commonOptions struct {
	topic          string
	jobs           int
	json           bool
	progress       string
	failOnFindings bool
	set            *settings // not flags: see settings
	wide           bool      // --wide, where the command prints tables
	all            bool      // --all, where the command leads with what needs action
}

// failOnFindingsHelp is the one help text of --fail-on-findings: every
// command counts the same findings (finding.Counts).
const failOnFindingsHelp = "exit 3 when an error or a warning was found (notes never fail)"

func addCommonFlags(cmd *cobra.Command, o *commonOptions) {
	f := cmd.Flags()
	f.StringVar(&o.topic, "topic", "", "only partitions whose topic matches this regular expression")
	f.IntVar(&o.jobs, "jobs", 0, "parallel workers (default: all cores)")
	f.BoolVar(&o.json, "json", false, "JSON lines instead of text")
	f.StringVar(&o.progress, "progress", "auto", "progress bar on stderr: auto (when a terminal), always, never")
	f.BoolVar(&o.failOnFindings, "fail-on-findings", false, failOnFindingsHelp)
}

// clampJobs turns --jobs into a worker count: all cores for 0, and never
// more than four per core, past which workers only cost memory.
func clampJobs(n int) int {
	if n == 0 {
		return runtime.NumCPU()
	}
	return min(n, 4*runtime.NumCPU())
}

// prepare validates the common flags and classifies the inputs.
func (o *commonOptions) prepare(name string, args []string) (*regexp.Regexp, []*source.Input, error) {
	if err := o.validate(name); err != nil {
		return nil, nil, err
	}
	return o.open(name, args)
}

// open compiles --topic and classifies the inputs, refusing overlapping
// ones.
func (o *commonOptions) open(name string, args []string) (*regexp.Regexp, []*source.Input, error) {
	topic, err := o.topicFilter(name)
	if err != nil {
		return nil, nil, err
	}
	inputs, err := source.Classify(args)
	if err != nil {
		return nil, nil, err
	}
	if err := pipeline.Overlapping(inputs); err != nil {
		return nil, nil, usageError{fmt.Errorf("%s: %w", name, err)}
	}
	return topic, inputs, nil
}

// validate checks --progress and --jobs, and turns --jobs into workers.
func (o *commonOptions) validate(name string) error {
	switch o.progress {
	case "auto", "always", "never":
	default:
		return usageError{fmt.Errorf("%s: --progress must be auto, always or never, not %q", name, o.progress)}
	}
	if o.jobs < 0 {
		return usageError{fmt.Errorf("%s: --jobs must be positive", name)}
	}
	o.jobs = clampJobs(o.jobs)
	return nil
}

// topicFilter is the --topic expression (nil: every topic).
func (o *commonOptions) topicFilter(name string) (*regexp.Regexp, error) {
	re, err := pipeline.Pattern(o.topic)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: --topic: %w", name, err)}
	}
	return re, nil
}
