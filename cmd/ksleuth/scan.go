package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report"
	"github.com/ksleuth/ksleuth/analysis/report/html"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type scanOptions struct {
	out            string
	records        bool
	payload        bool
	decodeValues   string
	topic          string
	jobs           int
	hash           string
	json           bool
	progress       string
	failOnFindings bool
	force          bool
	dup            dupOptions
	html           string // --html: also write the report page
	wide           bool
	all            bool      // --all: every partition, never rolled up by topic
	set            *settings // not flags: see settings
}

// Table file names written by scan, owned by package export.
const (
	tableFiles        = export.Files
	tableBatches      = export.Batches
	tableRecords      = export.Records
	tableRecordsV1    = export.RecordsV1
	tableAnomalies    = export.Anomalies
	tableSnapshots    = export.Snapshots
	tableProducers    = export.Producers
	tableDups         = export.Duplicates
	tableGaps         = export.Gaps
	tableTransactions = export.Transactions
	tablePIDBlocks    = export.PIDBlocks
	tableEvents       = export.Events
	metaSources       = export.MetaSources
	metaFingerprint   = export.MetaFingerprint
)

func newScanCmd(set *settings) *cobra.Command {
	o := scanOptions{set: set}
	cmd := &cobra.Command{
		Use:   "scan PATH... --out DIR",
		Short: "Analyse log dirs, partition dirs, files or archives into Parquet tables",
		Long: `scan reads log dirs (several at once, e.g. one per broker), partition
dirs, single files and archives (.tar, .tar.gz/.tgz, .tar.zst) read as
streams without extraction, and writes these tables to DIR:
files.parquet (with the SHA-256 of every input file), batches.parquet,
anomalies.parquet, snapshots.parquet, producers.parquet (producer
sessions), duplicates.parquet (content written again under another
producer ID; see ksleuth dups --help for the flags), and with --records the
dataset records/topic=<t>/partition=<p>/part-NNNNN.parquet (one row per
record, Hive-partitioned so engines prune by topic and partition; see
docs/scale-out.md). Every row carries a source column naming its input,
so the tables of scans run on several machines combine: ksleuth dups
--from-tables DIR... merges them exactly.
A summary per topic-partition goes to stdout (--json: one JSON line of type "summary").

The tables are written into a hidden staging dir beside DIR and replace
DIR's previous set in one step when the scan completes, with
manifest.json (every file's rows and SHA-256) written last: an
interrupted scan leaves the previous complete set or the new one, never a
mix. A second scan into the same DIR is refused while one runs. DIR may
not be inside an input, must not already hold tables (--force), and must
hold nothing but ksleuth's tables.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScan(cmd, args, &o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "", "directory to write the tables to (required)")
	f.BoolVar(&o.records, "records", false, "also write the records dataset (records/), one row per record")
	f.BoolVar(&o.payload, "payload", false, "add keys, values and headers to the records (implies --records)")
	f.StringVar(&o.decodeValues, "decode-values", "auto", decodeValuesHelp+" (with --payload: the value_schema_id and value_decoded columns)")
	f.StringVar(&o.topic, "topic", "", "only partitions whose topic matches this regular expression")
	f.IntVar(&o.jobs, "jobs", 0, "parallel workers (default: all cores)")
	f.BoolVar(&o.json, "json", false, "print the summary as a JSON line of type summary")
	f.StringVar(&o.progress, "progress", "auto", "progress bar on stderr: auto (when a terminal), always, never")
	f.BoolVar(&o.failOnFindings, "fail-on-findings", false, failOnFindingsHelp)
	f.BoolVar(&o.force, "force", false, "replace tables already in --out")
	f.StringVar(&o.hash, "hash", "sha256", "checksum of every input file in files.parquet: sha256, or none (it costs about half the CPU\nof parsing an uncompressed segment; for evidence whose hashes are already on record)")
	f.StringVar(&o.html, "html", "", "also write the HTML report page to this file (see ksleuth report --help)")
	addDupFlags(f, &o.dup)
	addWideFlag(f, &o.wide)
	addAllFlag(f, &o.all)
	return cmd
}

func runScan(cmd *cobra.Command, args []string, o *scanOptions) error {
	start := time.Now()
	topic, err := o.validate()
	if err != nil {
		return err
	}
	inputs, err := source.Classify(args)
	if err != nil {
		return err
	}
	if err := overlapping(inputs); err != nil {
		return usageError{fmt.Errorf("scan: %w", err)}
	}
	if err := checkOut(*o, inputs); err != nil {
		return err
	}
	out, err := openOut(cmd, o.out, o.force)
	if err != nil {
		return err
	}
	defer out.Close()
	var rc *html.Collector // --html; nil ignores everything
	if o.html != "" {
		lock, err := checkHTML(cmd, "scan", o.html, inputs, o.force)
		if err != nil {
			return err
		}
		defer lock.Release()
		rc = html.NewCollector(o.dup.tmp)
		defer rc.Close()
	}
	det, hasher, err := o.dup.openDetector("scan", inputs)
	if err != nil {
		return err
	}
	defer det.Close()

	meta := scanMetadata(cmd, args, inputs, o, start)
	ctx, stop := signalContext(cmd)
	defer stop()
	prog := newProgress(cmd.ErrOrStderr(), o.progress, progressTotal(inputs), inputs)
	defer prog.finish()
	plan := pipeline.Plan{Command: pipeline.Scan, Jobs: o.jobs, Records: o.records, Payload: o.payload, Hash: o.hash == "sha256", Page: o.html != "",
		Topic: topic, Progress: prog.add, TmpDir: o.dup.tmp, HeldBudget: o.set.heldBudget, Detector: det, Hasher: hasher}
	if o.payload && o.decodeValues == "auto" {
		if plan.Values, err = payload.Load(ctx, inputs); err != nil {
			return err
		}
	}
	if fd := o.set.fileDone; fd != nil {
		plan.FileDone = func(p string) { fd(ctx, p) }
	}
	to := pipeline.TableOptions{Out: out, Version: ksleuthVersion(), Meta: meta, Records: o.records, Payload: o.payload}
	if rc != nil {
		to.Also = pipeline.Sinks{
			Batches: func(rows []analysis.BatchRow) error { rc.Batches(rows); return nil },
			Records: func(rows []analysis.PayloadRecordRow) error { rc.Records(rows); return nil },
		}
		to.AlsoDuplicates = rc.Duplicates
	}
	tables, err := pipeline.WriteTables(ctx, inputs, plan.Options(), to)
	prog.finish()
	if err != nil {
		return interrupted(ctx, "scan", err)
	}
	pres, dst, ts, res, end := tables.Result, tables.Dups, tables.Set, tables.Scan, time.Now()
	if rc != nil {
		if err := writeScanReport(ctx, cmd, o.set, args, o.html, inputs, pres, dst, rc, o.hash == "sha256"); err != nil {
			return err
		}
	}

	sum := report.NewScanSummary(inputs, o.jobs, o.out, pres, ts, end.Sub(start), dst)
	if o.json {
		err = jsonl.Scan(cmd.OutOrStdout(), sum)
	} else {
		err = text.Scan(cmd.OutOrStdout(), sum, o.wide, o.all)
	}
	if err != nil {
		return err
	}
	if res.Unreadable > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: scan: %d input file(s) could not be read (status unreadable in %s)\n", res.Unreadable,
			filepath.Join(o.out, tableFiles))
	}
	return exitStatus(pres, o.failOnFindings)
}

// validate checks the flags and fills in their defaults; it returns the
// --topic expression.
func (o *scanOptions) validate() (*regexp.Regexp, error) {
	if o.out == "" {
		return nil, usageError{errors.New("scan: --out DIR is required")}
	}
	if err := checkDecodeValues(o.decodeValues); err != nil {
		return nil, err
	}
	switch o.progress {
	case "auto", "always", "never":
	default:
		return nil, usageError{fmt.Errorf("scan: --progress must be auto, always or never, not %q", o.progress)}
	}
	if o.jobs < 0 {
		return nil, usageError{fmt.Errorf("scan: --jobs must be positive")}
	}
	if o.hash != "sha256" && o.hash != "none" {
		return nil, usageError{fmt.Errorf("scan: --hash must be sha256 or none, not %q", o.hash)}
	}
	o.jobs = clampJobs(o.jobs)
	if o.payload {
		o.records = true
	}
	if o.topic == "" {
		return nil, nil
	}
	re, err := regexp.Compile(o.topic)
	if err != nil {
		return nil, usageError{fmt.Errorf("scan: --topic: %w", err)}
	}
	return re, nil
}

// scanMetadata is the footer metadata of every table of a scan.
func scanMetadata(cmd *cobra.Command, args []string, inputs []*source.Input, o *scanOptions, start time.Time) *export.Metadata {
	roots := make([]export.RunInput, len(inputs))
	for i, in := range inputs {
		roots[i] = export.RunInput{Path: in.Path, Abs: in.Abs, Kind: in.Kind.String()}
	}
	return export.NewRunMetadata(export.RunFooter{Version: ksleuthVersion(), CommandLine: commandLine(cmd, args), Inputs: roots,
		Sources: pipeline.Sources(inputs), Fingerprint: pipeline.NewFingerprintMeta(o.dup.match, o.dup.ignoreHeaders), Start: start})
}

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
