package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
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

// version is set with -ldflags "-X main.version=..."; otherwise it comes
// from the module build info.
var version = ""

func ksleuthVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return buildVersion(bi)
}

// buildVersion names a build from its build info. go install of a tagged
// module, and go 1.24 and later building a checkout at a clean tag, stamp
// the tag: it is the version. Building any other commit of a checkout, go
// stamps a pseudo-version (v0.0.0-TIME-REV, +dirty with changes) that
// reads like a release; devel+REV says what it is. A build without VCS
// information (go run, go test, a linked git worktree, -buildvcs=false)
// has no revision: "devel".
func buildVersion(bi *debug.BuildInfo) string {
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := bi.Main.Version
	tagged := v != "" && v != "(devel)" && !isPseudoVersion(v) && !strings.HasSuffix(v, "+dirty")
	switch {
	case tagged:
		return v
	case rev == "":
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}

// isPseudoVersion reports a version of the form go gives an untagged
// commit: it ends in -TIMESTAMP-REV or .TIMESTAMP-REV, a 14-digit UTC time
// and a 12-digit revision (ignoring a +dirty mark).
func isPseudoVersion(v string) bool {
	v = strings.TrimSuffix(v, "+dirty")
	i := strings.LastIndexByte(v, '-')
	if i < 15 || len(v)-i-1 != 12 || strings.Trim(v[i+1:], "0123456789abcdef") != "" {
		return false
	}
	ts := v[i-14 : i]
	sep := v[i-15]
	return strings.Trim(ts, "0123456789") == "" && (sep == '-' || sep == '.')
}

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
		newConsumersCmd(set), newReplicasCmd(set), newReportCmd(set))
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

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the ksleuth version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "ksleuth %s\n", ksleuthVersion())
			return err
		},
	}
}
