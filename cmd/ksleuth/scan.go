package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/html"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
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

	sum := newScanSummary(inputs, *o, pres, ts, end.Sub(start))
	sum.DuplicateGroups, sum.Duplicates = dst.Groups, dst.Duplicates
	w := cmd.OutOrStdout()
	if o.json {
		err = json.NewEncoder(w).Encode(sum)
	} else {
		err = sum.writeText(w, o.wide)
	}
	if err != nil {
		return err
	}
	if res.Unreadable > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: scan: %d input file(s) could not be read (status unreadable in %s)\n", res.Unreadable, filepath.Join(o.out, tableFiles))
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
		return usageError{fmt.Errorf("scan: --html %s is inside --out %s, whose table set the next scan replaces as a whole; write the page beside it", o.html, o.out)}
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

// progress drives a progress bar on stderr, only when stderr is a terminal
// (or --progress always).
type progress struct {
	bar   *progressbar.ProgressBar
	n     atomic.Int64
	stopc chan struct{}
	donec chan struct{}
}

func newProgress(w io.Writer, mode string, total int64, inputs []*source.Input) *progress {
	p := &progress{}
	if t, ok := w.(*text.SafeWriter); ok {
		w = t.W // the bar draws with carriage returns and escapes of its own
	}
	show := mode == "always"
	if mode == "auto" {
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("CI") == "" {
			show = true
		}
	}
	if !show {
		return p
	}
	if total == 0 {
		for _, in := range inputs {
			total += dirSize(in.Abs)
		}
	}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("scanning"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	p.stopc, p.donec = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.donec)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = p.bar.Set64(p.n.Load())
			case <-p.stopc:
				return
			}
		}
	}()
	return p
}

func (p *progress) add(n int64) { p.n.Add(n) }

func (p *progress) finish() {
	if p.bar == nil || p.stopc == nil {
		return
	}
	close(p.stopc)
	<-p.donec
	p.stopc = nil
	_ = p.bar.Finish()
}

func dirSize(root string) int64 {
	var n int64
	_ = filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// scanSummary is the --json document, and what the text summary prints.
type scanSummary struct {
	Type       string                      `json:"type"` // "summary": --json is JSON lines on every command
	Inputs     []scanInput                 `json:"inputs"`
	Jobs       int                         `json:"jobs"`
	Seconds    float64                     `json:"seconds"`
	Files      int                         `json:"files"`
	Bytes      int64                       `json:"bytes"`
	Batches    int64                       `json:"batches"`
	Records    int64                       `json:"records"`
	Partitions []analysis.PartitionSummary `json:"partitions"`
	Findings   []analysis.FindingCount     `json:"findings"`
	Errors     int64                       `json:"errors"`
	Warnings   int64                       `json:"warnings"`
	Unreadable int64                       `json:"unreadable"`
	Out        string                      `json:"out"`
	// The loss ledger: partition copies intact, and the verdicts of
	// those that are not; Unread counts those of them whose every range
	// is unread (the archive ended before their data); Gaps counts the
	// rows of gaps.parquet.
	Intact int                `json:"partitions_intact"`
	Losses []analysis.Verdict `json:"losses"`
	Unread int                `json:"partitions_unread"`
	Gaps   int                `json:"gaps"`
	// Skipped counts the files that are not Kafka files, a few named.
	Skipped      int                    `json:"skipped_files"`
	SkippedFiles []string               `json:"skipped_examples"`
	Checked      []analysis.CheckedKind `json:"checked"`
	notes        int64                  // the findings' count of severity note
	// Producer sessions and duplicates (ksleuth producers / dups report
	// them in full).
	ProducerSessions int `json:"producer_sessions"`
	// OpenTransactions counts sessions whose transaction has no marker in
	// the input: a hanging transaction holds back read_committed
	// consumers (its records are txn_state open).
	OpenTransactions int   `json:"open_transactions"`
	DuplicateGroups  int64 `json:"duplicate_groups"`
	Duplicates       int64 `json:"duplicates"`
	// Replicas counts the copies of partitions held by several log dirs
	// by verdict (replicas.parquet); ClusterEvents the rows of
	// cluster_events.parquet, BrokerLogs the broker log files read.
	Replicas      map[string]int          `json:"replicas"`
	ClusterEvents int                     `json:"cluster_events"`
	BrokerLogs    pipeline.BrokerLogStats `json:"broker_logs"`
	Tables        []scanTable             `json:"tables"`
}

type scanInput struct {
	Index int    `json:"index"`
	Path  string `json:"path"`
	Kind  string `json:"kind"`
}

type scanTable struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Rows int64  `json:"rows"`
}

func newScanSummary(inputs []*source.Input, o scanOptions, pres *pipeline.Result, ts *export.Set, d time.Duration) *scanSummary {
	sum := pres.Summarize()
	s := &scanSummary{Type: "summary", Jobs: o.jobs, Seconds: d.Seconds(), Files: sum.Files, Bytes: sum.Bytes,
		Batches: sum.Batches, Records: sum.Records, Partitions: sum.Partitions, Findings: sum.Findings,
		Errors: sum.Errors, Warnings: sum.Warnings, Unreadable: sum.Unreadable, Out: o.out, Unread: sum.UnreadCopies, Gaps: sum.Gaps,
		ProducerSessions: sum.Sessions, Skipped: len(sum.Skipped), Checked: sum.Checked, notes: sum.Notes,
		OpenTransactions: sum.OpenSessions, Intact: sum.Intact, Losses: sum.Losses, Replicas: sum.Replicas,
		ClusterEvents: sum.ClusterEvents, BrokerLogs: sum.BrokerLogs}
	for _, sk := range sum.Skipped[:min(len(sum.Skipped), 5)] {
		s.SkippedFiles = append(s.SkippedFiles, text.DisplayPath(inputs, sk.Input, sk.Path))
	}
	for _, in := range inputs {
		s.Inputs = append(s.Inputs, scanInput{in.Index, in.Path, in.Kind.String()})
	}
	for _, n := range ts.Names() {
		s.Tables = append(s.Tables, scanTable{Name: strings.TrimSuffix(n, ".parquet"), Path: filepath.Join(o.out, n), Rows: ts.Rows(n)})
	}
	return s
}

func (s *scanSummary) writeText(w io.Writer, wide bool) error {
	ew := &text.ErrWriter{W: w}
	fmt.Fprintf(ew, "scanned %d input(s): %d files, %d bytes, %d batches, %d records in %.2fs (jobs %d)\n\n",
		len(s.Inputs), s.Files, s.Bytes, s.Batches, s.Records, s.Seconds, s.Jobs)
	multi := len(s.Inputs) > 1
	// DIR says something only when a partition dir is not named
	// TOPIC-PART (several inputs, a dir state, a renamed copy); without
	// --wide it is left out otherwise.
	showDir := wide
	for _, p := range s.Partitions {
		showDir = showDir || multi || p.DirState != "" || p.Dir != fmt.Sprintf("%s-%d", p.Topic, p.Partition)
	}
	tt := &text.Table{Cols: []text.Column{{Head: "TOPIC", Cut: text.CutMiddle}, {Head: "PART"}, {Head: "DIR", Cut: text.CutMiddle}, {Head: "BROKER"},
		{Head: "SEGMENTS", Drop: 3}, {Head: "BYTES", Drop: 4}, {Head: "BATCHES"}, {Head: "RECORDS"}, {Head: "OFFSETS"}, {Head: "TIME (UTC)", Dates: true},
		{Head: "CODECS"}, {Head: "PRODUCERS", Drop: 1}, {Head: "FINDINGS"}}}
	if !showDir {
		tt.Cols = slices.Delete(tt.Cols, 2, 3)
	}
	empty := map[string]int{}
	for _, p := range s.Partitions {
		if p.Batches == 0 && p.Findings == 0 {
			empty[p.Topic]++
			continue
		}
		dir := p.Dir
		if multi {
			dir = fmt.Sprintf("#%d:%s", p.Input, dir)
		}
		broker := "-"
		if p.BrokerID != nil {
			broker = strconv.Itoa(int(*p.BrokerID))
		}
		if p.DirState != "" {
			dir += " (" + p.DirState + ")"
		}
		codecs := strings.Join(p.Codecs, ",")
		if codecs == "" {
			codecs = "-"
		}
		row := []string{p.Topic, text.Itoa(int64(p.Partition)), dir, broker, text.Itoa(int64(p.Segments)), text.Itoa(p.Bytes), text.Itoa(p.Batches), text.Itoa(p.Records),
			text.Range(p.First, p.Last), text.TimeRange(p.FirstTime, p.LastTime, wide), codecs, text.Itoa(int64(p.Producers)), text.Itoa(int64(p.Findings))}
		if !showDir {
			row = slices.Delete(row, 2, 3)
		}
		tt.Add(row...)
	}
	// BROKER may go when it says the same on every line.
	brokerCol := slices.IndexFunc(tt.Cols, func(c text.Column) bool { return c.Head == "BROKER" })
	if same := len(tt.Rows) > 0; brokerCol >= 0 {
		for _, r := range tt.Rows {
			same = same && r[brokerCol] == tt.Rows[0][brokerCol]
		}
		if same {
			tt.Cols[brokerCol].Drop = 2
		}
	}
	if err := tt.Write(ew, wide); err != nil {
		return err
	}
	if len(empty) > 0 {
		n, topics := 0, make([]string, 0, len(empty))
		for t, c := range empty {
			n += c
			topics = append(topics, t)
		}
		sort.Strings(topics)
		if len(topics) > 8 {
			topics = append(topics[:8], "...")
		}
		fmt.Fprintf(ew, "(%d more partition(s) with no batches: %s)\n", n, strings.Join(topics, ", "))
	}
	fmt.Fprintln(ew)
	if len(s.Losses) == 0 {
		fmt.Fprintf(ew, "losses: none; %d partition cop%s intact\n", s.Intact, text.Plural(int64(s.Intact), "y", "ies"))
	} else {
		// Copies only unread are said apart: the archive ended before
		// their data, which says nothing of whether the broker lost it.
		lost := len(s.Losses) - s.Unread
		head := fmt.Sprintf("losses in %d partition cop%s", lost, text.Plural(int64(lost), "y", "ies"))
		switch {
		case s.Unread > 0 && lost == 0:
			head = fmt.Sprintf("unread in %d partition cop%s: %s", s.Unread, text.Plural(int64(s.Unread), "y", "ies"), text.UnreadWhy(s.Unread))
		case s.Unread > 0:
			head += fmt.Sprintf(", and %d unread: %s", s.Unread, text.UnreadWhy(s.Unread))
		}
		fmt.Fprintf(ew, "%s (%d intact; gaps.parquet has every range):\n", head, s.Intact)
		for _, v := range s.Losses {
			fmt.Fprintf(ew, "  %s: %s\n", v.Dir, v.Text)
		}
	}
	text.Checked(ew, s.Checked)
	if s.Skipped > 0 {
		more := ""
		if s.Skipped > len(s.SkippedFiles) {
			more = ", …"
		}
		fmt.Fprintf(ew, "skipped %d file(s) that are not Kafka files: %s%s\n", s.Skipped, strings.Join(s.SkippedFiles, ", "), more)
	}
	if len(s.Findings) == 0 {
		fmt.Fprintln(ew, "findings: none")
	} else {
		fmt.Fprintf(ew, "findings: %d error(s), %d warning(s); %d notes\n", s.Errors, s.Warnings, s.notes)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, f := range s.Findings {
			fmt.Fprintf(tw, "  %s\t%s\t%d\n", f.Severity, f.Kind, f.Count)
		}
		tw.Flush()
	}
	if s.Unreadable > 0 {
		fmt.Fprintf(ew, "unreadable files: %d\n", s.Unreadable)
	}
	open := ""
	if s.OpenTransactions > 0 {
		open = fmt.Sprintf(", %d with a transaction still open at the end of the input (ksleuth producers)", s.OpenTransactions)
	}
	fmt.Fprintf(ew, "producer sessions: %d%s; duplicates: %d group(s), %d later cop%s (ksleuth dups for the report)\n",
		s.ProducerSessions, open, s.DuplicateGroups, s.Duplicates, text.Plural(s.Duplicates, "y", "ies"))
	if n := len(s.Replicas); n > 0 {
		var parts []string
		for _, v := range []string{"reference", "in-sync", "damaged", "lagging", "diverged", "ahead"} {
			if s.Replicas[v] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", s.Replicas[v], v))
			}
		}
		fmt.Fprintf(ew, "partition copies on several brokers: %s (ksleuth replicas for the comparison)\n", strings.Join(parts, ", "))
	}
	if s.ClusterEvents > 0 || s.BrokerLogs.Files > 0 {
		fmt.Fprintf(ew, "cluster events: %d", s.ClusterEvents)
		if b := s.BrokerLogs; b.Files > 0 {
			fmt.Fprintf(ew, " (%d from %d broker log file(s), %d lines, %d unparsed)", b.Events, b.Files, b.Lines, b.Unparsed)
		}
		fmt.Fprintln(ew)
	}
	fmt.Fprintf(ew, "\ntables in %s:\n", s.Out)
	tables := &text.Table{Cols: []text.Column{{Cut: text.CutMiddle}, {}}, Indent: "  ", NoHead: true}
	for _, t := range s.Tables {
		tables.Add(t.Path, fmt.Sprintf("%d rows", t.Rows))
	}
	if err := tables.Write(ew, wide); err != nil {
		return err
	}
	return ew.Err
}
