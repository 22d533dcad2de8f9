package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/spf13/cobra"
)

// commonOptions are the flags every analysis command shares.
type commonOptions struct {
	topic          string
	jobs           int
	json           bool
	progress       string
	failOnFindings bool
	set            *settings // not flags: see settings
	wide           bool      // --wide, where the command prints tables
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

func newDupsCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	var d dupOptions
	var limit int
	var fromTables bool
	cmd := &cobra.Command{
		Use:   "dups PATH... | dups --from-tables DIR...",
		Short: "Report records written again under another producer ID",
		Long: `dups finds records whose content (key, value and headers; see --match and
--ignore-header) was written again under a different producer ID, within a
topic by default (--scope), and explains each later copy:

  restart-resend  the later PID's session began after the earlier PID's last
                  write, within --restart-window: a producer was replaced and
                  resent what the broker had already persisted;
  txn-retry       the earlier copy belongs to an aborted transaction;
  repeat          anything else, e.g. constant heartbeat payloads.

Every restart-resend and txn-retry copy is graded. "strong" when the bytes
show a resend too: the copy belongs to a run of at least --resend-min-run
consecutive records repeating the earlier session's records in order, that
run is the earlier session's tail (but for --resend-tail records) and the
later session's head (after at most --resend-head records of its own), and
its content is not one value repeated nor what every new session writes.
Otherwise "possible", with the reasons it is not strong: one record
written again reads the same whether it was resent or written anew.

The text report collapses consecutive resent records into runs, sorted by
size (--limit), with totals per class and per topic. --json writes one
JSON object per duplicate group with all its members, then a summary.
Memory is bounded by --mem: beyond it records are spilled to --tmp, and
the result is the same.

With --from-tables the arguments are output dirs of earlier
"ksleuth scan --records" runs (e.g. one per machine, each over its share
of the archives): the groups are computed from their records tables,
without the original files, and are exactly those one scan of all the
inputs would give (inputs numbered in the order of the DIRs). The
fingerprints were computed at scan time, so --match and --ignore-header
must be those the scans used (they are read from the tables).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if fromTables {
				return runDupsFromTables(cmd, args, &o, &d, limit)
			}
			return runDups(cmd, args, &o, &d, limit)
		},
	}
	addCommonFlags(cmd, &o)
	addWideFlag(cmd.Flags(), &o.wide)
	addDupFlags(cmd.Flags(), &d)
	cmd.Flags().IntVar(&limit, "limit", 20, "text: show at most this many runs (0: all)")
	cmd.Flags().BoolVar(&fromTables, "from-tables", false, "the arguments are scan --records output dirs: merge their records tables")
	return cmd
}

// dupGroup is one --json line.
type dupGroup struct {
	Type        string                  `json:"type"`
	GroupID     int64                   `json:"group_id"`
	Fingerprint string                  `json:"fingerprint"`
	Members     []analysis.DuplicateRow `json:"members"`
}

// dupSummary is the final --json line, and the totals of the text report.
type dupSummary struct {
	Type       string       `json:"type"`
	Records    int64        `json:"records"`
	Groups     int64        `json:"groups"`
	Duplicates int64        `json:"duplicates"`
	ByClass    []classTotal `json:"by_class"`
	ByTopic    []topicTotal `json:"by_topic"`
	Runs       int          `json:"runs"`
	SpillFiles int          `json:"spill_files"`
	SpillBytes int64        `json:"spill_bytes"`
	Findings   int64        `json:"findings"`
}

// classTotal counts the later copies of a class, and those of them graded
// strong and weak (possible); a group counts once, under the first class
// of dupClasses one of its copies has (strong before possible), so the
// groups add up to the summary's.
type classTotal struct {
	Class    string `json:"class"`
	Records  int64  `json:"records"`
	Groups   int64  `json:"groups"`
	Strong   int64  `json:"strong"`
	Possible int64  `json:"possible"`
}

type topicTotal struct {
	Topic    string           `json:"topic"`
	Records  int64            `json:"records"`
	ByClass  map[string]int64 `json:"by_class"`
	Strong   int64            `json:"strong"`
	Possible int64            `json:"possible"`
}

// groupRank is where a group counts: its most telling copy, a strong
// resend first, a repeat last.
func groupRank(r *analysis.DuplicateRow) int {
	k := slices.Index(dupClasses, r.Class)
	if r.Evidence != dups.EvidenceStrong {
		k += len(dupClasses)
	}
	return k
}

var dupClasses = []string{dups.ClassRestartResend, dups.ClassTxnRetry, dups.ClassRepeat}

func runDups(cmd *cobra.Command, args []string, o *commonOptions, d *dupOptions, limit int) error {
	topic, inputs, err := o.prepare("dups", args)
	if err != nil {
		return err
	}
	d.terse = !o.json // the text report's run lines need no explanations
	det, hasher, err := d.openDetector("dups", inputs)
	if err != nil {
		return err
	}
	defer det.Close()
	ctx, stop := signalContext(cmd)
	defer stop()
	res, err := analyze(ctx, cmd, "dups", o, inputs, pipeline.Plan{Command: pipeline.Dups, Topic: topic, TmpDir: d.tmp,
		Detector: det, Hasher: hasher}, pipeline.Sinks{})
	if err != nil {
		return err
	}
	return reportDups(ctx, cmd, o, det, d.tmp, limit, len(inputs), res.Scan.Errors+res.Warnings, res, res.Consumed())
}

// reportDups finishes the detector and prints the report; findings and
// unreadable count the inputs' damage findings and unreadable files; idx
// (nil when the inputs hold no commits) names the groups that consumed
// the copies.
// attr, when not nil and finished, names the PIDs' owners. The later
// copies are made into runs by a dups.RunBuilder, on disk under tmp
// beyond its budget, and the totals are counted as the groups stream by:
// the report's memory does not grow with the number of duplicates.
func reportDups(ctx context.Context, cmd *cobra.Command, o *commonOptions, det *dups.Detector, tmp string, limit, inputs int, findings int64, res *pipeline.Result, idx pipeline.Consumed) (err error) {
	w := cmd.OutOrStdout()
	enc := json.NewEncoder(w)
	rb := dups.NewRunBuilder(tmp, o.set.runBudget)
	defer func() { err = errors.Join(err, rb.Close()) }()
	byClass := map[string]*classTotal{}
	for _, c := range dupClasses {
		byClass[c] = &classTotal{Class: c}
	}
	// Groups come out in group id order, the parts of one together: a
	// new id is a new group, counted when it ends.
	group, rank := int64(-1), -1
	endGroup := func() {
		if rank >= 0 {
			byClass[dupClasses[rank%len(dupClasses)]].Groups++
		}
		rank = -1
	}
	topics := map[string]*topicTotal{}
	emit := func(rows []analysis.DuplicateRow) error {
		for i := range rows {
			r := &rows[i]
			if res == nil { // from tables: the commits of their commits.parquet
				r.ConsumedBy = idx.Groups(r.Input, r.Dir, r.Topic, r.Partition, r.Offset)
			}
			if r.GroupID != group {
				endGroup()
				group = r.GroupID
			}
			if r.Class == "" {
				continue
			}
			if err := rb.Add(r); err != nil {
				return err
			}
			if k := groupRank(r); k >= 0 && (rank < 0 || k < rank) {
				rank = k
			}
			c := byClass[r.Class]
			c.Records++
			t := topics[r.Topic]
			if t == nil {
				t = &topicTotal{Topic: r.Topic, ByClass: map[string]int64{}}
				topics[r.Topic] = t
			}
			t.Records++
			t.ByClass[r.Class]++
			switch r.Evidence {
			case dups.EvidenceStrong:
				c.Strong++
				t.Strong++
			case dups.EvidenceWeak:
				c.Possible++
				t.Possible++
			}
		}
		if o.json {
			return enc.Encode(dupGroup{Type: "group", GroupID: rows[0].GroupID, Fingerprint: rows[0].Fingerprint, Members: rows})
		}
		return nil
	}
	if res != nil {
		emit = res.AnnotateDuplicates(emit)
	}
	st, err := det.Finish(ctx, emit)
	if err != nil {
		return interrupted(ctx, "dups", err)
	}
	endGroup()
	nruns, err := rb.Finish(ctx)
	if err != nil {
		return interrupted(ctx, "dups", err)
	}
	sum := dupSummary{Type: "summary", Records: st.Records, Groups: st.Groups, Duplicates: st.Duplicates, Runs: nruns,
		SpillFiles: st.SpillFiles + rb.SpillFiles(), SpillBytes: st.SpillBytes + rb.SpillBytes(), Findings: findings}
	for _, c := range dupClasses {
		sum.ByClass = append(sum.ByClass, *byClass[c])
	}
	for _, t := range topics {
		sum.ByTopic = append(sum.ByTopic, *t)
	}
	slices.SortFunc(sum.ByTopic, func(a, b topicTotal) int {
		return cmp.Or(cmp.Compare(b.Records, a.Records), cmp.Compare(a.Topic, b.Topic))
	})
	if sum.ByTopic == nil {
		sum.ByTopic = []topicTotal{}
	}
	if o.json {
		err = enc.Encode(sum)
	} else {
		err = writeDupsText(ctx, w, &sum, rb, idx, limit, inputs, o.wide)
	}
	if err != nil {
		return interrupted(ctx, "dups", err)
	}
	if res == nil { // from tables: their findings were counted
		if o.failOnFindings && findings > 0 {
			return errFindings
		}
		return nil
	}
	return exitStatus(res, o.failOnFindings)
}

// writeDupsText prints the summary and the runs; idx (nil when unknown)
// says under each run which consumer groups committed past its copies.
func writeDupsText(ctx context.Context, w io.Writer, s *dupSummary, rb *dups.RunBuilder, idx pipeline.Consumed, limit, inputs int, wide bool) error {
	ew := &text.ErrWriter{W: w}
	fmt.Fprintf(ew, "%d records in %d input(s): %d duplicate group(s), %d later cop%s in %d run(s)\n",
		s.Records, inputs, s.Groups, s.Duplicates, text.Plural(s.Duplicates, "y", "ies"), s.Runs)
	var strong, possible int64
	for _, c := range s.ByClass {
		strong, possible = strong+c.Strong, possible+c.Possible
	}
	if strong+possible > 0 {
		fmt.Fprintf(ew, "resends and retries: %d with strong evidence, %d possible (a new session repeated content, but the bytes do not show a resend)\n",
			strong, possible)
	}
	if s.Findings > 0 {
		fmt.Fprintf(ew, "note: the inputs hold %d finding(s) of severity error or warning; records of damaged batches are marked \"damaged\" (ksleuth verify PATH for details)\n", s.Findings)
	}
	if s.Runs > 0 {
		fmt.Fprintln(ew)
		n := 0
		err := rb.Each(ctx, limit, func(r *dups.Run) error {
			n++
			fmt.Fprintln(ew, r.String())
			if c := idx.Text(r.Input, r.Dir, r.Topic, r.Partition, r.First, r.Last); c != "" {
				fmt.Fprintln(ew, "  "+c)
			}
			return ew.Err
		})
		if err != nil {
			return err
		}
		if n < s.Runs {
			fmt.Fprintf(ew, "... %d more run(s); --limit 0 shows all, --json every group\n", s.Runs-n)
		}
	}
	fmt.Fprintln(ew)
	// A group counts once, under its most telling copy: the groups add
	// up to the header's, the records to its later copies.
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CLASS\tGROUPS\tRECORDS\tSTRONG\tPOSSIBLE\t")
	var total classTotal
	for _, c := range s.ByClass {
		if c.Class == dups.ClassRepeat {
			fmt.Fprintf(tw, "%s\t%d\t%d\t-\t-\t\n", c.Class, c.Groups, c.Records)
		} else {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", c.Class, c.Groups, c.Records, c.Strong, c.Possible)
		}
		total.Groups, total.Records, total.Strong, total.Possible = total.Groups+c.Groups, total.Records+c.Records, total.Strong+c.Strong, total.Possible+c.Possible
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t\n", total.Groups, total.Records, total.Strong, total.Possible)
	tw.Flush()
	if len(s.ByTopic) > 0 {
		fmt.Fprintln(ew)
		tt := &text.Table{Indent: "  "}
		for _, h := range []string{"TOPIC", "RECORDS", "restart-resend", "txn-retry", "repeat", "STRONG", "POSSIBLE"} {
			tt.Cols = append(tt.Cols, text.Column{Head: h, Right: true})
		}
		tt.Cols[0].Cut = text.CutMiddle
		for _, t := range s.ByTopic {
			tt.Add(t.Topic, text.Itoa(t.Records), text.Itoa(t.ByClass[dups.ClassRestartResend]), text.Itoa(t.ByClass[dups.ClassTxnRetry]),
				text.Itoa(t.ByClass[dups.ClassRepeat]), text.Itoa(t.Strong), text.Itoa(t.Possible))
		}
		if err := tt.Write(ew, wide); err != nil {
			return err
		}
	}
	if s.SpillFiles > 0 {
		fmt.Fprintf(ew, "\n(spilled %d bytes to %d temporary file(s), since removed)\n", s.SpillBytes, s.SpillFiles)
	}
	return ew.Err
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
