package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/bundlecmd"
	"github.com/spf13/cobra"
)

// Exit codes: every command uses the same ones (README "Exit codes").
const (
	exitOK       = 0 // done and clean
	exitFailed   = 1 // could not complete: I/O error, unreadable input
	exitUsage    = 2 // bad flags or arguments
	exitFindings = 3 // completed, but findings were reported
)

// usageError marks a bad command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errFindings is returned by a command that completed but reported
// findings and was asked to say so in its exit code.
var errFindings = errors.New("findings reported")

// errInterrupted marks a run stopped by SIGINT or SIGTERM: it exits 130,
// as a shell reports a process ended by Ctrl-C.
var errInterrupted = errors.New("interrupted")

const exitInterrupted = 130

// settings are what a run depends on beyond its command line: memory
// budgets, the clock and a hook after each scanned file. Every command
// tree has its own, so that tests turn them (to make a scan spill, pin the
// report's time or stop a scan midway) without touching a package
// variable, and run in parallel.
type settings struct {
	heldBudget int64 // pipeline.Plan.HeldBudget; 0 is the scan's default
	runBudget  int64 // the memory a dups.RunBuilder may hold
	now        func() time.Time
	fileDone   func(ctx context.Context, path string) // after each file's rows are written; may be nil
}

func defaultSettings() *settings {
	return &settings{runBudget: dups.DefaultRunBudget, now: time.Now}
}

func newRootCmd(set *settings) *cobra.Command {
	root := &cobra.Command{
		Use:   "ksleuth",
		Short: "Offline forensic analyzer for Apache Kafka log directories",
		Long: `ksleuth reads the files of copied Kafka log directories (segments,
indexes, producer snapshots, checkpoints) without a broker, checks them, and
explains what producers wrote, including records written twice under a new
producer ID. Inputs are only ever opened read-only.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newVersionCmd(), newDumpCmd(), newRecordsCmd(), newScanCmd(set), newVerifyCmd(set), newDupsCmd(set), newProducersCmd(set),
		newConsumersCmd(set), newReplicasCmd(set), newReportCmd(set), bundlecmd.New(bundlecmd.Hooks{Usage: func(err error) error { return usageError{err} },
			Differs: errFindings, FailOnFindingsHelp: failOnFindingsHelp, Version: ksleuthVersion, CommandLine: commandLine, Now: set.now,
			WindowFlags: windowFlagError}))
	return root
}

// run executes the command line and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(defaultSettings(), args, stdout, stderr)
}

// runWith is run with the given settings.
func runWith(set *settings, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(set)
	root.SetArgs(args)
	out := &text.SafeWriter{W: stdout}
	root.SetOut(out)
	root.SetErr(&text.SafeWriter{W: stderr})
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		if f := cmd.Flags().Lookup("json"); f != nil && f.Value.String() == "true" {
			out.Raw = true
		}
	}
	err := root.Execute()
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	}
	fmt.Fprintf(root.ErrOrStderr(), "ksleuth: %s\n", flagged(err))
	if errors.Is(err, errInterrupted) {
		return exitInterrupted
	}
	var ue usageError
	var none *pipeline.NoTopicMatchError
	if errors.As(err, &ue) || errors.As(err, &none) || isCobraUsage(err) {
		return exitUsage
	}
	return exitFailed
}

// isCobraUsage recognises cobra's own errors for unknown commands and
// argument counts, which are not typed.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
