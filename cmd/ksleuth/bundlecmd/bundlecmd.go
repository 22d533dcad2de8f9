// Package bundlecmd is the command line of ksleuth bundle: its flags, and
// what it prints. It is a package of its own so that the command line's
// main package stays within its size; the bundle itself is
// analysis/bundle's.
package bundlecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/ksleuth/ksleuth/analysis/bundle"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/spf13/cobra"
)

// Hooks are what the command takes from the main package: how an error
// becomes an exit code, and what goes into the manifest.
type Hooks struct {
	// Usage marks an error as a usage error (exit 2).
	Usage func(error) error
	// Differs is returned when --check found differences, or findings
	// under --fail-on-findings (exit 3).
	Differs error
	// FailOnFindingsHelp is the one help text of --fail-on-findings.
	FailOnFindingsHelp string
	Version            func() string
	CommandLine        func(cmd *cobra.Command, args []string) string
	Now                func() time.Time
	// WindowFlags names the flags of a time window in an error of
	// records.ParseWindow.
	WindowFlags func(error) error
}

type options struct {
	out, secretFile, check, topic, tmp  string
	offsets, since, until, namesMap     string
	redact, force, json, failOnFindings bool
	redactNames                         bool
	jobs                                int
}

// New returns the bundle command.
func New(h Hooks) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "bundle PATH... --out FILE.tar.zst | bundle --check FILE.tar.zst PATH...",
		Short: "Pack the evidence of log dirs into one archive, its payloads redacted on request",
		Long: `bundle writes the Kafka files of the inputs (segments, indexes, producer
snapshots, checkpoints, metadata and state files) into one .tar.zst, with a
manifest (ksleuth-bundle.json, the last entry) that gives each file's
original path, size and SHA-256, the ksleuth version and the command. Broker
logs and files ksleuth does not know are left out. --topic keeps only the
matching partitions, --offsets only the segments that can hold the offsets
(a segment holds those from its base offset to the next one's) with their
indexes; --since and --until only the segments that can hold records
with timestamps in the window (batch headers decide, records are decoded
where they cannot). The rest of a partition dir is kept. Every command
reads the bundle as any archive input.

--redact replaces every key, value and header value of the records with
bytes of the same length derived from HMAC-SHA-256 under a secret kept in
--secret-file (generated there when the file does not exist): equal
contents stay equal, so duplicates are found the same, and nothing of the
original can be read back without the secret. Header keys, topic names
(unless --redact-names), offsets, timestamps and producer fields are kept;
so are the internal topics (__consumer_offsets, __transaction_state,
__cluster_metadata), which hold structure. Compressed batches are re-compressed with their codec, CRCs
that held are recomputed and CRCs that failed still fail, damaged bytes are
zero-filled in place, and offset indexes are rewritten for the batches that
moved; the manifest maps every byte of the inputs to the bundle's.

--redact-names (with --redact) also replaces topic names, in partition
dirs' names, checkpoints and the manifest, by tokens (t- and 10 hex
digits), and header keys by keys of the same length, with the same keyed
HMAC; the tokens and the names they stand for go to --names-map FILE,
which the sender keeps and never sends. The records of the internal
topics (__consumer_offsets, __transaction_state, __cluster_metadata) keep
their structure, with tokens for the group, member, client, instance and
transactional ids, hosts, racks and the topics they name.

--check FILE.tar.zst PATH... runs the analysis on the bundle and on the
inputs it was made from (the same inputs, in the same order) and prints what
differs: verdicts, losses, findings, duplicates, replicas, the consumer
groups' commits and metadata and the transactional ids' records; with
--names-map, the names of a bundle made with --redact-names are mapped
back first. It exits 0 when the bundle tells the same story and 3 when it does not.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.check != "" {
				return runCheck(cmd, args, o, h)
			}
			return runBundle(cmd, args, o, h)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "the bundle to write (.tar.zst)")
	f.BoolVar(&o.redact, "redact", false, "replace keys, values and header values by keyed hashes of the same length")
	f.StringVar(&o.secretFile, "secret-file", "", "the secret of --redact (generated there when absent; keep it, never send it)")
	f.BoolVar(&o.redactNames, "redact-names", false, "with --redact: replace topic names and header keys by tokens too, mapped in --names-map")
	f.StringVar(&o.namesMap, "names-map", "", "where --redact-names writes its tokens and the names (keep it, never send it); what --check reads")
	f.BoolVar(&o.force, "force", false, "replace an existing bundle")
	f.StringVar(&o.check, "check", "", "compare the analysis of this bundle with that of the PATHs it was made from")
	f.StringVar(&o.topic, "topic", "", "only partitions whose topic matches this regular expression")
	f.StringVar(&o.offsets, "offsets", "", "only the segments that can hold offsets A..B (inclusive; A.. and ..B too), with their indexes")
	f.StringVar(&o.since, "since", "", "only the segments that can hold records with timestamps at or after this time (RFC 3339 or epoch ms)")
	f.StringVar(&o.until, "until", "", "only the segments that can hold records with timestamps before this time (RFC 3339 or epoch ms)")
	f.IntVar(&o.jobs, "jobs", 0, "parallel workers of --check (default: all cores)")
	f.StringVar(&o.tmp, "tmp", "", "where --check's spill files go (default: the system's temporary dir)")
	f.BoolVar(&o.json, "json", false, "JSON lines instead of text")
	f.BoolVar(&o.failOnFindings, "fail-on-findings", false, h.FailOnFindingsHelp)
	return cmd
}

// inputs classifies the paths, refusing overlapping ones.
func inputs(args []string, h Hooks) ([]*source.Input, error) {
	ins, err := source.Classify(args)
	if err != nil {
		return nil, err
	}
	if err := pipeline.Overlapping(ins); err != nil {
		return nil, h.Usage(fmt.Errorf("bundle: %w", err))
	}
	return ins, nil
}

func runBundle(cmd *cobra.Command, args []string, o *options, h Hooks) error {
	switch {
	case o.out == "":
		return h.Usage(errors.New("bundle: --out FILE.tar.zst is required (or --check FILE.tar.zst)"))
	case o.redact != (o.secretFile != ""):
		return h.Usage(errors.New("bundle: --redact and --secret-file go together"))
	case o.redactNames && !o.redact:
		return h.Usage(errors.New("bundle: --redact-names needs --redact"))
	case o.redactNames != (o.namesMap != ""):
		return h.Usage(errors.New("bundle: --redact-names and --names-map go together"))
	}
	topic, err := pipeline.Pattern(o.topic)
	if err != nil {
		return h.Usage(fmt.Errorf("bundle: --topic: %w", err))
	}
	ins, err := inputs(args, h)
	if err != nil {
		return err
	}
	opts := bundle.Options{Topic: topic, Version: h.Version(), Command: h.CommandLine(cmd, args), Now: h.Now(), Force: o.force}
	if o.offsets != "" {
		r, err := records.ParseRange(o.offsets)
		if err != nil {
			return h.Usage(fmt.Errorf("bundle: --offsets: %w", err))
		}
		opts.Offsets = &r
	}
	if opts.Window, err = records.ParseWindow(o.since, o.until); err != nil {
		return h.Usage(fmt.Errorf("bundle: %w", h.WindowFlags(err)))
	}
	if o.redact {
		secret, generated, err := bundle.ReadSecret(o.secretFile, ins)
		if err != nil {
			return usageIf(err, h)
		}
		if generated {
			fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: bundle: wrote a new secret to %s: keep it to map names and bytes back, never send it\n", o.secretFile)
		}
		opts.Secret = secret
	}
	if o.redactNames {
		if err := bundle.NamesOutput(o.namesMap, ins, o.force); err != nil {
			return usageIf(err, h)
		}
		opts.Names = true
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := bundle.Write(ctx, o.out, ins, opts)
	if err != nil {
		return usageIf(err, h)
	}
	if res.Names != nil {
		if err := bundle.WriteNames(o.namesMap, res.Names, ins, true); err != nil {
			return fmt.Errorf("bundle: --names-map: %w", err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: bundle: wrote the names map to %s: %s; keep it, never send it\n",
			o.namesMap, namesCount(res.Names))
		if res.InternalKept > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: bundle: %s of the internal topics did not decode and keep the names they hold "+
				"(docs/bundle.md)\n", plural(int(res.InternalKept), "record"))
		}
	}
	return printBundle(cmd.OutOrStdout(), o, res)
}

// usageIf marks the errors of a bad command line: an output inside an
// input, an existing output without --force.
func usageIf(err error, h Hooks) error {
	var into *source.IntoInputError
	var exists *bundle.ExistsError
	switch {
	case errors.As(err, &exists):
		return h.Usage(fmt.Errorf("bundle: %s exists; use --force to replace it", exists.Path))
	case errors.As(err, &into):
		return h.Usage(fmt.Errorf("bundle: %w", err))
	}
	return fmt.Errorf("bundle: %w", err)
}

// summary is the JSON line of a bundle written.
type summary struct {
	Type        string `json:"type"`
	Out         string `json:"out"`
	Files       int    `json:"files"`
	InputBytes  int64  `json:"input_bytes"`
	BundleBytes int64  `json:"bundle_bytes"`
	Redacted    bool   `json:"redacted"`
	SecretID    string `json:"secret_id,omitempty"`
}

func printBundle(w io.Writer, o *options, res *bundle.Result) error {
	m := res.Manifest
	if o.json {
		return json.NewEncoder(w).Encode(summary{Type: "bundle", Out: o.out, Files: len(m.Files), InputBytes: res.InputBytes,
			BundleBytes: res.BundleBytes, Redacted: m.Redacted, SecretID: m.SecretID})
	}
	how := "as they are"
	if m.Redacted {
		how = "redacted with secret " + m.SecretID
	}
	_, err := fmt.Fprintf(w, "wrote %s: %d files from %s, %s (%d bytes), %s\n", o.out, len(m.Files), plural(len(m.Inputs), "input"),
		size(res.BundleBytes), res.BundleBytes, how)
	if err == nil {
		_, err = fmt.Fprintf(w, "the files hold %s (%d bytes); the bundle is %.1f%% of that\n", size(res.InputBytes), res.InputBytes,
			100*float64(res.BundleBytes)/float64(max(res.InputBytes, 1)))
	}
	return err
}

// size prints a byte count for people.
func size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	d, e := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		d *= unit
		e++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(d), "KMGTPE"[e])
}

func runCheck(cmd *cobra.Command, args []string, o *options, h Hooks) error {
	if o.out != "" || o.redact || o.secretFile != "" || o.redactNames {
		return h.Usage(errors.New("bundle: --check reads a bundle; --out, --redact, --redact-names and --secret-file write one"))
	}
	if o.jobs < 0 {
		return h.Usage(errors.New("bundle: --jobs must be positive"))
	}
	ins, err := inputs(args, h)
	if err != nil {
		return err
	}
	b, err := source.Classify([]string{o.check})
	if err != nil {
		return err
	}
	if b[0].Kind != source.Archive {
		return h.Usage(fmt.Errorf("bundle: --check %s: want the bundle, a .tar.zst", o.check))
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	man, err := bundle.ReadManifest(ctx, b[0])
	if err != nil {
		return fmt.Errorf("bundle: --check %s: %w", o.check, err)
	}
	jobs := o.jobs
	if jobs == 0 {
		jobs = runtime.NumCPU()
	}
	copts := bundle.CompareOptions{Jobs: jobs, TmpDir: o.tmp}
	switch {
	case man.Names && o.namesMap == "":
		return h.Usage(fmt.Errorf("bundle: --check %s: its names were replaced; give the --names-map it was made with", o.check))
	case o.namesMap != "":
		if copts.Names, err = bundle.ReadNames(o.namesMap); err != nil {
			return fmt.Errorf("bundle: --names-map: %w", err)
		}
		if copts.Names.SecretID != man.SecretID {
			return h.Usage(fmt.Errorf("bundle: --names-map %s goes with secret %s, the bundle with %s", o.namesMap, copts.Names.SecretID, man.SecretID))
		}
	}
	diffs, findings, err := bundle.Compare(ctx, ins, b[0], man, copts)
	if err != nil {
		return fmt.Errorf("bundle: --check: %w", err)
	}
	if err := printCheck(cmd.OutOrStdout(), o, man, diffs); err != nil {
		return err
	}
	if len(diffs) > 0 || o.failOnFindings && findings > 0 {
		return h.Differs
	}
	return nil
}

// difference is the JSON line of one difference; check the last line.
type difference struct {
	Type string `json:"type"`
	Line string `json:"line"`
}

type checked struct {
	Type        string `json:"type"`
	Bundle      string `json:"bundle"`
	Redacted    bool   `json:"redacted"`
	Differences int    `json:"differences"`
}

func printCheck(w io.Writer, o *options, man *bundle.Manifest, diffs []string) error {
	if o.json {
		enc := json.NewEncoder(w)
		for _, d := range diffs {
			if err := enc.Encode(difference{Type: "difference", Line: d}); err != nil {
				return err
			}
		}
		return enc.Encode(checked{Type: "check", Bundle: o.check, Redacted: man.Redacted, Differences: len(diffs)})
	}
	if len(diffs) == 0 {
		_, err := fmt.Fprintf(w, "%s tells the same story as its %s: the same verdicts, losses, findings, duplicates, replicas, commits and groups\n",
			o.check, plural(len(man.Inputs), "input"))
		return err
	}
	fmt.Fprintf(w, "%s differs from its inputs in %d lines (- the inputs only, + the bundle only):\n", o.check, len(diffs))
	for _, d := range diffs {
		if _, err := fmt.Fprintf(w, "  %s\n", d); err != nil {
			return err
		}
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// namesCount says how many names of each kind a names map holds: topics
// and header keys always, the names of the internal topics' records when
// there are some.
func namesCount(m *bundle.NamesMap) string {
	parts := []string{plural(len(m.Topics), "topic"), plural(len(m.HeaderKeys), "header key")}
	for _, k := range []struct {
		n    int
		what string
	}{{len(m.Groups), "group"}, {len(m.Members), "member"}, {len(m.Instances), "group instance"}, {len(m.Clients), "client"},
		{len(m.Hosts), "host"}, {len(m.Transactional), "transactional id"}, {len(m.Protocols), "protocol"}, {len(m.Racks), "rack"}} {
		if k.n > 0 {
			parts = append(parts, plural(k.n, k.what))
		}
	}
	return strings.Join(parts, ", ")
}
