package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report"
	"github.com/ksleuth/ksleuth/analysis/report/html"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

type scanOptions struct {
	commonOptions
	out          string
	records      bool
	payload      bool
	decodeValues string
	hash         string
	force        bool
	dup          dupOptions
	html         string // --html: also write the report page
}

func newScanCmd(set *settings) *cobra.Command {
	o := scanOptions{commonOptions: commonOptions{set: set}}
	cmd := &cobra.Command{
		Use:   "scan PATH... --out DIR",
		Short: "Analyse log dirs, partition dirs, files or archives into Parquet tables",
		Long: `scan reads log dirs (several at once, e.g. one per broker), partition
dirs, single files and archives (.tar, .tar.gz/.tgz, .tar.zst) read as
streams without extraction, and writes these tables to DIR (docs/tables.md):
files.parquet (with the SHA-256 of every input file), batches.parquet,
anomalies.parquet (the findings), gaps.parquet (the loss ledger),
snapshots.parquet, producers.parquet (producer sessions),
partition_txns.parquet and transactions.parquet (per partition and per
transactional id), pid_blocks.parquet, duplicates.parquet (content written
again under another producer ID; see ksleuth dups --help for the flags),
replicas.parquet (the copies of a partition on several brokers),
cluster_events.parquet, commits.parquet and groups.parquet (from
__consumer_offsets), remote_segments.parquet (from __remote_log_metadata),
and with --records the dataset records/part-<topic>-NNNNN.parquet (one row
per record, the files of each topic rolled at 128 MiB, side by side so
that every engine reads the dir with its defaults). Every row carries a source column naming its input,
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
	addCommonFlags(cmd, &o.commonOptions)
	f := cmd.Flags()
	f.Lookup("json").Usage = "print the summary as a JSON line of type summary"
	f.StringVarP(&o.out, "out", "o", "", "directory to write the tables to (required)")
	f.BoolVar(&o.records, "records", false, "also write the records dataset (records/), one row per record")
	f.BoolVar(&o.payload, "payload", false, "add keys, values and headers to the records (implies --records)")
	f.StringVar(&o.decodeValues, "decode-values", "auto", decodeValuesHelp+" (with --payload: the value_schema_id and value_decoded columns)")
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
	if err := o.check(); err != nil {
		return err
	}
	topic, inputs, err := o.open("scan", args)
	if err != nil {
		return err
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

	meta := pipeline.RunMetadata(inputs, ksleuthVersion(), commandLine(cmd, args), o.dup.match, o.dup.ignoreHeaders, start)
	ctx, stop := signalContext(cmd)
	defer stop()
	plan := pipeline.Plan{Command: pipeline.Scan, Records: o.records, Payload: o.payload, Hash: o.hash == "sha256", Page: o.html != "",
		Topic: topic, TmpDir: o.dup.tmp, Detector: det, Hasher: hasher}
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
		to.Also, to.AlsoDuplicates = rc.Sinks(), rc.Duplicates
	}
	var tables *pipeline.Tables
	err = o.running(ctx, cmd, "scan", inputs, plan, func(po pipeline.Options) (err error) {
		tables, err = pipeline.WriteTables(ctx, inputs, po, to)
		return err
	})
	if err != nil {
		return err
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
		fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: scan: %s could not be read (status unreadable in %s)\n", text.Count(res.Unreadable, "input file"),
			filepath.Join(o.out, export.Files))
	}
	return exitStatus(pres, o.failOnFindings)
}

// check checks the flags of scan alone and fills in their defaults.
func (o *scanOptions) check() error {
	if o.out == "" {
		return usageError{errors.New("scan: --out DIR is required")}
	}
	if err := checkDecodeValues(o.decodeValues); err != nil {
		return err
	}
	if err := o.validate("scan"); err != nil {
		return err
	}
	if o.hash != "sha256" && o.hash != "none" {
		return usageError{fmt.Errorf("scan: --hash must be sha256 or none, not %q", o.hash)}
	}
	if o.payload {
		o.records = true
	}
	return nil
}
