package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// dupOptions are the duplicate-detection flags shared by dups and scan.
type dupOptions struct {
	match         string
	ignoreHeaders []string
	scope         string
	samePID       bool
	restartWindow time.Duration
	// resendHead, resendTail, resendMinRun: the evidence thresholds.
	resendHead, resendTail, resendMinRun int
	resendInFlight                       time.Duration
	mem                                  string
	tmp                                  string
	// terse: the command shows no explanations (dups without --json),
	// so the detector does not write them.
	terse bool
}

func addDupFlags(f *pflag.FlagSet, o *dupOptions) {
	f.StringVar(&o.match, "match", "key,value,headers", "record parts the fingerprint covers: any of key, value, headers")
	f.StringArrayVar(&o.ignoreHeaders, "ignore-header", nil, "drop this header before fingerprinting (repeatable), e.g. a per-send trace id")
	f.StringVar(&o.scope, "scope", "topic", "where duplicates are looked for: topic, partition or all")
	f.BoolVar(&o.samePID, "same-pid", false, "also report content repeated by a single producer ID")
	f.DurationVar(&o.restartWindow, "restart-window", dups.DefaultRestartWindow, "a new PID starting within this long after the earlier PID's last write is a restart")
	f.IntVar(&o.resendHead, "resend-head", dups.DefaultResendHead, "strong evidence: records of the later session that may precede a resend in its partition")
	f.IntVar(&o.resendTail, "resend-tail", dups.DefaultResendTail, "strong evidence: records of the earlier session that may follow the resent run, never resent")
	f.IntVar(&o.resendMinRun, "resend-min-run", dups.DefaultResendMinRun, "strong evidence: the fewest consecutive records a resend is shown by")
	f.DurationVar(&o.resendInFlight, "resend-in-flight", dups.DefaultResendInFlight,
		"strong evidence: a resent record was created at most this long before the earlier session's last write anywhere (0: none)")
	f.StringVar(&o.mem, "mem", "512MiB", "memory budget for duplicate detection; beyond it records are spilled to --tmp")
	f.StringVar(&o.tmp, "tmp", "", "directory for spill files (default: the system temp dir); never next to the inputs")
}

// detectorOptions validates the flags.
func (o *dupOptions) detectorOptions(cmdName string) (dups.Options, *dups.Hasher, error) {
	match, err := dups.ParseMatch(o.match)
	var me *dups.MatchError
	switch {
	case errors.As(err, &me) && me.Part == "":
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --match: choose at least one of key, value, headers", cmdName)}
	case errors.As(err, &me):
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --match: %q is not key, value or headers", cmdName, me.Part)}
	}
	scope, err := dups.ParseScope(o.scope)
	if err != nil {
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --scope must be topic, partition or all, not %q", cmdName, o.scope)}
	}
	mem, err := parseSize(o.mem)
	if err != nil || mem <= 0 {
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --mem %q: want a size such as 512MiB or 2GiB", cmdName, o.mem)}
	}
	if o.restartWindow < 0 || o.resendInFlight < 0 {
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --restart-window and --resend-in-flight must not be negative", cmdName)}
	}
	if o.resendHead < 0 || o.resendTail < 0 || o.resendMinRun < 1 {
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --resend-head and --resend-tail must not be negative, --resend-min-run at least 1", cmdName)}
	}
	return dups.Options{Scope: scope, SamePID: o.samePID, RestartWindow: o.restartWindow, MemBudget: mem, TmpDir: o.tmp, NoExplanations: o.terse,
			ResendHead: dups.Threshold(o.resendHead), ResendTail: dups.Threshold(o.resendTail), ResendMinRun: o.resendMinRun,
			ResendInFlight: cmp.Or(o.resendInFlight, -1)},
		dups.NewHasher(match, o.ignoreHeaders), nil
}

// parseSize reads 123, 64KiB, 512MiB, 2GiB (also KB, MB, GB as powers of
// 1000, and K, M, G as powers of 1024).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if len(s) > len(u.suffix) && strings.HasSuffix(strings.ToLower(s), strings.ToLower(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	return int64(n * float64(mult)), nil
}

// The text says how to print what it leaves out.
func init() {
	text.WideHint, text.JSONHint, text.RunsHint = "; --wide prints them", "; --json lists them", "; --limit 0 shows all, --json every group"
	text.AllHint = " (--all lists them)"
}

// addAllFlag is the one --all of the commands that lead with what needs
// action and count the rest.
func addAllFlag(f *pflag.FlagSet, all *bool) {
	f.BoolVar(all, "all", false, "list every partition copy, intact ones too (default: what needs action, and a count of the rest)")
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
	switch o.progress {
	case "auto", "always", "never":
	default:
		return nil, nil, usageError{fmt.Errorf("%s: --progress must be auto, always or never, not %q", name, o.progress)}
	}
	if o.jobs < 0 {
		return nil, nil, usageError{fmt.Errorf("%s: --jobs must be positive", name)}
	}
	o.jobs = clampJobs(o.jobs)
	var topic *regexp.Regexp
	if o.topic != "" {
		re, err := regexp.Compile(o.topic)
		if err != nil {
			return nil, nil, usageError{fmt.Errorf("%s: --topic: %w", name, err)}
		}
		topic = re
	}
	inputs, err := source.Classify(args)
	if err != nil {
		return nil, nil, err
	}
	if err := overlapping(inputs); err != nil {
		return nil, nil, usageError{fmt.Errorf("%s: %w", name, err)}
	}
	return topic, inputs, nil
}

// overlapping refuses inputs that name the same files twice: the same
// path, or a path inside a dir input. Their records would be counted
// twice, and compared with themselves as two brokers' copies.
func overlapping(inputs []*source.Input) error {
	inside := func(a, b *source.Input) bool {
		return b.Kind == source.Dir && strings.HasPrefix(a.Abs, b.Abs+string(filepath.Separator))
	}
	for i, a := range inputs {
		for _, b := range inputs[i+1:] {
			switch {
			case a.Abs == "-" || b.Abs == "-":
			case a.Abs == b.Abs:
				return fmt.Errorf("%s and %s are the same input: give each once", a.Path, b.Path)
			case inside(b, a):
				return fmt.Errorf("%s is inside the input %s: its files would be read twice", b.Path, a.Path)
			case inside(a, b):
				return fmt.Errorf("%s is inside the input %s: its files would be read twice", a.Path, b.Path)
			}
		}
	}
	return nil
}

// analyze runs the pipeline with a progress bar on stderr. ctx should come
// from signalContext, so that Ctrl-C unwinds normally (and spill files are
// removed) instead of killing the process.
func analyze(ctx context.Context, cmd *cobra.Command, name string, o *commonOptions, inputs []*source.Input, plan pipeline.Plan,
	sinks pipeline.Sinks) (*pipeline.Result, error) {
	prog := newProgress(cmd.ErrOrStderr(), o.progress, progressTotal(inputs), inputs)
	defer prog.finish()
	plan.Jobs, plan.Progress, plan.HeldBudget = o.jobs, prog.add, o.set.heldBudget
	res, err := pipeline.Run(ctx, inputs, plan.Options(), sinks)
	prog.finish()
	if err != nil {
		return nil, interrupted(ctx, name, err)
	}
	return res, nil
}

// progressTotal is the bytes the progress bar counts to: unknown (-1) for
// archives, whose entries are only known as they are read; 0 lets the bar
// add up the directory inputs.
func progressTotal(inputs []*source.Input) int64 {
	for _, in := range inputs {
		if in.Kind == source.Archive {
			return -1
		}
	}
	return 0
}

// signalContext is cmd's context, cancelled by SIGINT and SIGTERM.
func signalContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
}

// interrupted marks err as the result of a cancelled run, which exits 130.
func interrupted(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s interrupted: %w (%w)", name, errInterrupted, context.Cause(ctx))
	}
	return err
}

// openDetector builds the duplicate detector the dup flags describe, after
// refusing a --tmp inside an input, for scan, dups and report alike, with
// room reserved for the records the inputs probably hold.
func (o *dupOptions) openDetector(cmdName string, inputs []*source.Input) (*dups.Detector, *dups.Hasher, error) {
	dopts, hasher, err := o.detectorOptions(cmdName)
	if err != nil {
		return nil, nil, err
	}
	if err := checkTmp(dopts.TmpDir, inputs); err != nil {
		return nil, nil, err
	}
	det, err := dups.New(dopts)
	if err != nil {
		return nil, nil, err
	}
	// Reserve the detector's entries from the input size: a record rarely
	// takes less than 256 bytes of segment on disk.
	var size int64
	for _, in := range inputs {
		size += dirSize(in.Abs) // a file's own size for a file or an archive
	}
	det.Reserve(int(min(size/256, 1<<30)))
	return det, hasher, nil
}

// checkTmp refuses a spill dir inside a directory input.
func checkTmp(tmp string, inputs []*source.Input) error {
	if err := source.CheckOutput(tmp, source.SpillDir, inputs); err != nil {
		return usageError{err}
	}
	return nil
}
