package main

// The duplicate-detection flags of scan, dups, consumers and report, and
// the detector they open.

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/source"
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
	retryDistance                        int64
	pipelines                            []string
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
	f.Int64Var(&o.retryDistance, "retry-distance", dups.DefaultRetryDistance,
		"strong evidence of a retry: its copies landed at most this many offsets after their first (0: no bound)")
	f.StringArrayVar(&o.pipelines, "pipeline", nil, "GROUP:INPUT_TOPIC:OUTPUT_TOPIC: the group writes that output (repeatable)")
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
	mem, err := pipeline.ParseSize(o.mem)
	if err != nil || mem <= 0 {
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --mem %q: want a size such as 512MiB or 2GiB", cmdName, o.mem)}
	}
	if o.restartWindow < 0 || o.resendInFlight < 0 || o.retryDistance < 0 {
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --restart-window, --resend-in-flight and --retry-distance must not be negative", cmdName)}
	}
	if o.resendHead < 0 || o.resendTail < 0 || o.resendMinRun < 1 {
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --resend-head and --resend-tail must not be negative, --resend-min-run at least 1", cmdName)}
	}
	pipes, err := dups.ParsePipelines(o.pipelines)
	if err != nil {
		return dups.Options{}, nil, usageError{fmt.Errorf("%s: --pipeline %w", cmdName, err)}
	}
	return dups.Options{Scope: scope, SamePID: o.samePID, RestartWindow: o.restartWindow, MemBudget: mem, TmpDir: o.tmp, NoExplanations: o.terse,
			ResendHead: dups.Threshold(o.resendHead), ResendTail: dups.Threshold(o.resendTail), ResendMinRun: o.resendMinRun,
			ResendInFlight: cmp.Or(o.resendInFlight, -1), RetryDistance: cmp.Or(o.retryDistance, -1), Pipelines: pipes},
		dups.NewHasher(match, o.ignoreHeaders), nil
}

// openDetector builds the duplicate detector the dup flags describe, after
// refusing a --tmp inside an input, for scan, dups and report alike, with
// room reserved for the records the inputs probably hold.
func (o *dupOptions) openDetector(cmdName string, inputs []*source.Input) (*dups.Detector, *dups.Hasher, error) {
	dopts, hasher, err := o.detectorOptions(cmdName)
	if err != nil {
		return nil, nil, err
	}
	det, err := pipeline.OpenDetector(dopts, inputs)
	var into *source.IntoInputError
	if errors.As(err, &into) {
		return nil, nil, usageError{err}
	}
	if err != nil {
		return nil, nil, err
	}
	return det, hasher, nil
}
