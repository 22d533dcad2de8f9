package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	recordsout "github.com/ksleuth/ksleuth/analysis/report/records"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/spf13/cobra"
)

type recordsOptions struct {
	topic, keyRegex, valueRegex, header string
	key                                 string
	offsets, since, until               string
	partition                           int32
	limit                               int64
	format                              string
	json                                bool
	payloadEnc                          string
	control, noIndex, stats             bool
	failOnFindings                      bool
	decodeValues                        string
	// parsed is the --format, parsed by selection.
	parsed recordsout.Format
}

func newRecordsCmd() *cobra.Command {
	var o recordsOptions
	cmd := &cobra.Command{
		Use:   "records PATH...",
		Short: "Print the records that match a selection (key, value, header, offsets, time)",
		Long: `records finds records in log dirs, partition dirs, segment files and
archives (- reads a tar archive from stdin) and prints them one line each,
partition dir by partition dir in offset order, as they are found.

The selection flags combine (all must hold): --topic and --partition choose
partition dirs by name; --key, --key-regex, --value-regex and --header
look at each record; --offsets A..B (inclusive; A.. and ..B too) and
--since/--until (RFC 3339 or epoch milliseconds; since inclusive, until
exclusive) choose offsets and timestamps. Only data records are printed,
those of aborted transactions included (a read_uncommitted consumer is
handed them); --control adds the transaction markers.

Only what can match is read: segments by their base offsets, and inside
a segment from the byte an intact .index gives for the first offset (for
--since, the .timeindex says which offsets are older). An index that is
damaged or disagrees with the log is not used: the segment is read from
its start, and a finding says so. --stats prints what was read.

--format takes these tokens: %t topic, %p partition, %o offset,
%T timestamp (epoch ms), %D timestamp (RFC 3339, UTC), %k key, %v value,
%h headers (name=value,...), %i producer id, %e producer epoch,
%q sequence, %f file, %P batch byte position, %S source, %C copy, %% a
percent sign; \n, \t and \\ are a newline, a tab and a backslash. A null
key, value or header value prints as <null>. When the inputs hold several
copies of a partition (log dirs of several brokers), each of its lines
starts with the copy it was read from, [broker 2], unless the format has
%C or %S; a record of a batch whose checksum fails starts with
[CRC mismatch]: its bytes are not verified. With --decode-values auto (the
default) values in the Confluent wire format whose schema is in the
inputs' _schemas topic print decoded, as JSON; --value-regex then matches
that JSON. --json writes one object per
record instead (type "record"), with each payload's encoding and null kept
apart from empty, the copy (null for a partition held once) and crc_valid,
and findings as objects of type "finding".`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ro, err := o.selection()
			if err != nil {
				return usageError{err}
			}
			return runRecords(cmd, args, &o, ro)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.topic, "topic", "", "only partitions whose topic matches this regular expression")
	f.Int32Var(&o.partition, "partition", -1, "only this partition number")
	f.StringVar(&o.key, "key", "", "only records whose key is exactly this string")
	f.StringVar(&o.keyRegex, "key-regex", "", "only records whose key matches this regular expression")
	f.StringVar(&o.valueRegex, "value-regex", "", "only records whose value matches this regular expression")
	f.StringVar(&o.header, "header", "", "only records with this header: NAME, or NAME=VALUE for that exact value")
	f.StringVar(&o.offsets, "offsets", "", "only offsets A..B (inclusive), A.. or ..B")
	f.StringVar(&o.since, "since", "", "only records with a timestamp at or after this time (RFC 3339 or epoch ms)")
	f.StringVar(&o.until, "until", "", "only records with a timestamp before this time (RFC 3339 or epoch ms)")
	f.Int64Var(&o.limit, "limit", 0, "print at most this many records, text or JSON (0: all)")
	f.StringVar(&o.format, "format", recordsout.DefaultFormat, "text line per record (tokens in --help)")
	f.BoolVar(&o.json, "json", false, "write JSON lines: one object per record and finding")
	f.StringVar(&o.payloadEnc, "payload-encoding", "auto", "text, hex or base64 (auto: text when valid UTF-8, else hex)")
	f.BoolVar(&o.control, "control", false, "also print the records of control batches (transaction markers)")
	f.BoolVar(&o.noIndex, "no-index", false, "do not use .index and .timeindex files: read each segment that can match from its start")
	f.BoolVar(&o.stats, "stats", false, "print to stderr how many segments and bytes were read")
	f.BoolVar(&o.failOnFindings, "fail-on-findings", false, failOnFindingsHelp)
	f.StringVar(&o.decodeValues, "decode-values", "auto",
		decodeValuesHelp+" (the inputs' _schemas partitions are read first; not for - on stdin, which is read once)")
	return cmd
}

// selection turns the flags into the records package's options.
func (o *recordsOptions) selection() (records.Options, error) {
	ro := records.New()
	ro.Partition, ro.Limit, ro.Control, ro.NoIndex = o.partition, o.limit, o.control, o.noIndex
	switch o.payloadEnc {
	case "auto", "text", "hex", "base64":
	default:
		return ro, fmt.Errorf("--payload-encoding must be auto, text, hex or base64, not %q", o.payloadEnc)
	}
	if o.limit < 0 {
		return ro, errors.New("--limit must not be negative")
	}
	if o.partition < -1 {
		return ro, errors.New("--partition must not be negative")
	}
	if o.key != "" && o.keyRegex != "" {
		return ro, errors.New("--key and --key-regex exclude each other")
	}
	var err error
	re := func(flag, s string) *regexp.Regexp {
		if s == "" || err != nil {
			return nil
		}
		r, e := regexp.Compile(s)
		if e != nil {
			err = fmt.Errorf("--%s: %w", flag, e)
		}
		return r
	}
	ro.Topic, ro.KeyRegex, ro.ValueRegex = re("topic", o.topic), re("key-regex", o.keyRegex), re("value-regex", o.valueRegex)
	if err != nil {
		return ro, err
	}
	if o.key != "" {
		ro.Key, ro.HasKey = []byte(o.key), true
	}
	if o.header != "" {
		name, value, hasValue := strings.Cut(o.header, "=")
		if name == "" {
			return ro, fmt.Errorf("--header %q: give NAME or NAME=VALUE", o.header)
		}
		ro.Header, ro.HeaderValue, ro.HasHeaderValue = name, []byte(value), hasValue
	}
	if o.offsets != "" {
		if ro.Offsets, err = records.ParseRange(o.offsets); err != nil {
			return ro, fmt.Errorf("--offsets: %w", err)
		}
	}
	if ro.Window, err = records.ParseWindow(o.since, o.until); err != nil {
		return ro, windowFlagError(err)
	}
	if err := checkDecodeValues(o.decodeValues); err != nil {
		return ro, err
	}
	if !o.json {
		if o.parsed, err = recordsout.ParseFormat(o.format); err != nil {
			return ro, fmt.Errorf("--format: %w", err)
		}
	}
	return ro, nil
}

func runRecords(cmd *cobra.Command, args []string, o *recordsOptions, ro records.Options) error {
	stdins := 0
	for _, a := range args {
		if a == "-" {
			stdins++
		}
	}
	if stdins > 1 {
		return usageError{errors.New("- (stdin) may be given once")}
	}
	inputs, err := source.ClassifyStdin(args, cmd.InOrStdin())
	if err != nil {
		return err
	}
	if err := pipeline.Overlapping(inputs); err != nil {
		return usageError{fmt.Errorf("records: %w", err)}
	}
	sources := pipeline.Sources(inputs)
	wo := recordsout.Options{JSON: o.json, Format: o.parsed, Encoding: payloadenc.Encoding(o.payloadEnc)}
	w := recordsout.New(wo, cmd.OutOrStdout(), cmd.ErrOrStderr(), sources)
	ctx, stop := signalContext(cmd)
	defer stop()
	sink := records.Sink{Record: w.Record, Finding: w.Finding}
	st, err := pipeline.Records(ctx, inputs, ro, o.decodeValues == "auto", recordsout.UndecodedFraming, sink)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return interrupted(ctx, "records", err)
	}
	if st.KafkaFiles == 0 {
		return pipeline.NoKafkaData(inputs, w.ArchiveFindings())
	}
	recordsout.WriteAbsent(cmd.ErrOrStderr(), st.Absent, sources)
	if o.stats {
		recordsout.WriteStats(cmd.ErrOrStderr(), st)
	}
	if w.Findings() > 0 && o.failOnFindings || w.Incomplete() {
		return errFindings
	}
	return nil
}
