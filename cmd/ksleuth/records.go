package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/spf13/cobra"
)

// defaultRecordFormat is the text line of a record without --format.
const defaultRecordFormat = `%t/%p@%o %D key=%k value=%v headers=%h\n`

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
%q sequence, %f file, %P batch byte position, %S source, %% a percent
sign; \n, \t and \\ are a newline, a tab and a backslash. A null key,
value or header value prints as <null>. With --decode-values auto (the
default) values in the Confluent wire format whose schema is in the
inputs' _schemas topic print decoded, as JSON; --value-regex then matches
that JSON. --json writes one object per
record instead (type "record"), with each payload's encoding and null kept
apart from empty, and findings as objects of type "finding".`,
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
	f.Int64Var(&o.limit, "limit", 0, "stop after this many records (0: no limit)")
	f.StringVar(&o.format, "format", defaultRecordFormat, "text line per record (tokens in --help)")
	f.BoolVar(&o.json, "json", false, "write JSON lines: one object per record and finding")
	f.StringVar(&o.payloadEnc, "payload-encoding", "auto", "text, hex or base64 (auto: text when valid UTF-8, else hex)")
	f.BoolVar(&o.control, "control", false, "also print the records of control batches (transaction markers)")
	f.BoolVar(&o.noIndex, "no-index", false, "do not use .index and .timeindex files: read each segment that can match from its start")
	f.BoolVar(&o.stats, "stats", false, "print to stderr how many segments and bytes were read")
	f.BoolVar(&o.failOnFindings, "fail-on-findings", false, failOnFindingsHelp)
	f.StringVar(&o.decodeValues, "decode-values", "auto", decodeValuesHelp+" (the inputs' _schemas partitions are read first; not for - on stdin, which is read once)")
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
		return ro, err
	}
	if err := checkDecodeValues(o.decodeValues); err != nil {
		return ro, err
	}
	if !o.json {
		if _, err := parseRecordFormat(o.format); err != nil {
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
	if err := overlapping(inputs); err != nil {
		return usageError{fmt.Errorf("records: %w", err)}
	}
	sources := scan.Sources(inputs)
	w := &recordWriter{o: o, out: bufio.NewWriterSize(cmd.OutOrStdout(), 256<<10), errw: cmd.ErrOrStderr(), sources: sources}
	w.format, _ = parseRecordFormat(o.format)
	ctx, stop := signalContext(cmd)
	defer stop()
	if o.decodeValues == "auto" && stdins == 0 {
		reg, err := payload.Load(ctx, inputs)
		if err != nil {
			return interrupted(ctx, "records", err)
		}
		for _, f := range reg.Findings() {
			w.finding(f)
		}
		if reg.Len() > 0 {
			ro.DecodeValue = reg.DecodeText
			ro.DescribeValue = func(topic string, value []byte) string { return undecodedFraming(reg, topic, value) }
		}
	}
	st, err := records.Run(ctx, inputs, sources, ro, records.Sink{Record: w.record, Finding: w.finding})
	if ferr := w.out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return interrupted(ctx, "records", err)
	}
	if st.KafkaFiles == 0 {
		return pipeline.NoKafkaData(inputs, w.archiveFindings)
	}
	printAbsent(cmd.ErrOrStderr(), st.Absent, sources)
	if o.stats {
		fmt.Fprintf(cmd.ErrOrStderr(), "records: %d records; read %d of %d segments (%d from an index position, %d indexes not usable), %d bytes\n",
			st.Records, st.Read, st.Segments, st.Seeked, st.Fallbacks, st.BytesRead)
	}
	if w.findings > 0 && o.failOnFindings || w.incomplete {
		return errFindings
	}
	return nil
}

// maxAbsentLines bounds the partition dirs printAbsent names one by one.
const maxAbsentLines = 10

// printAbsent says which offsets of the --offsets range are not on disk,
// so that a selection that finds fewer records than it asks for is never
// silent. The dirs that hold no batch at all are counted on one line.
func printAbsent(w io.Writer, as []records.Absent, sources []string) {
	var empty []string
	n := 0
	for _, a := range as {
		name := a.Dir
		if name == "." { // the input itself, a partition dir (analysis.PartitionDir)
			name = ""
		}
		if len(sources) > 1 && int(a.Input) < len(sources) {
			name = sources[a.Input] + ":" + name
		}
		switch {
		case a.Dir != ".":
		case a.Partition >= 0:
			name += fmt.Sprintf("%s-%d", a.Topic, a.Partition)
		default:
			name += "the input's segments"
		}
		if a.Empty {
			empty = append(empty, name)
			continue
		}
		if n++; n <= maxAbsentLines {
			fmt.Fprintf(w, "records: offsets %s are not on disk in %s: %s\n", a.Range(), name, a.Why())
		}
	}
	if n > maxAbsentLines {
		fmt.Fprintf(w, "records: %d more offset ranges are not on disk\n", n-maxAbsentLines)
	}
	if len(empty) > 0 {
		list := strings.Join(empty[:min(len(empty), 3)], ", ")
		if len(empty) > 3 {
			list += fmt.Sprintf(" and %d more", len(empty)-3)
		}
		fmt.Fprintf(w, "records: offsets %s are not on disk in %d partition dir(s) whose segments hold no batch: %s\n", as[0].Range(), len(empty), list)
	}
	if len(as) > 0 {
		fmt.Fprintln(w, "records: `ksleuth verify` tells why offsets are not on disk (retention, compaction, damage, a copy taken early)")
	}
}

// recordWriter prints what a records run finds.
type recordWriter struct {
	o        *recordsOptions
	out      *bufio.Writer
	errw     io.Writer
	format   []formatPart
	findings int
	buf      []byte
	sources  []string
	// archiveFindings are the findings that can keep Kafka files from
	// being seen (a damaged archive, an unreadable dir), for the error of
	// inputs that hold none.
	archiveFindings []analysis.AnomalyRow
	incomplete      bool
}

func (w *recordWriter) finding(r analysis.AnomalyRow) {
	// As for the other commands, an input not read in full exits 3.
	if r.Kind == finding.KindArchiveDamaged || r.Kind == finding.KindIOError {
		w.incomplete = true
	}
	if (finding.AboutArchive(r.Kind) || r.Kind == finding.KindIOError) && len(w.archiveFindings) < 3 {
		w.archiveFindings = append(w.archiveFindings, r)
	}
	if r.Source == "" && int(r.Input) < len(w.sources) {
		r.Source = w.sources[r.Input]
	}
	if finding.Counts(r.Severity) {
		w.findings++
	}
	if w.o.json {
		w.line(struct {
			Type string `json:"type"`
			analysis.AnomalyRow
		}{"finding", r})
		return
	}
	w.out.Flush() // keep stdout and stderr in order for a reader of both
	fmt.Fprintf(w.errw, "finding: %s: %s\n", r.File, finding.Text(&r))
}

func (w *recordWriter) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of numbers, strings and slices
	}
	w.out.Write(b)
	w.out.WriteByte('\n')
}

// recordJSON is one --json line: the records table's column names, each
// payload with its encoding (dump --json's conventions).
type recordJSON struct {
	Type          string       `json:"type"`
	Source        string       `json:"source"`
	File          string       `json:"file"`
	BatchPosition int64        `json:"batch_position"`
	Topic         string       `json:"topic"`
	Partition     int32        `json:"partition"`
	Offset        int64        `json:"offset"`
	Timestamp     any          `json:"timestamp"`
	TimestampType string       `json:"timestamp_type"`
	ProducerID    int64        `json:"producer_id"`
	ProducerEpoch int16        `json:"producer_epoch"`
	Sequence      int32        `json:"sequence"`
	Key           any          `json:"key"`
	KeyEncoding   any          `json:"key_encoding"`
	Value         any          `json:"value"`
	ValueEncoding any          `json:"value_encoding"`
	ValueFraming  string       `json:"value_framing,omitempty"`
	Headers       []headerJSON `json:"headers"`
	CRCValid      bool         `json:"crc_valid"`
	IsControl     bool         `json:"is_control,omitempty"`
	ControlName   string       `json:"control_type,omitempty"`
	ControlType   *int16       `json:"control_type_id,omitempty"`
}

type headerJSON struct {
	Key           string `json:"key"`
	Value         any    `json:"value"`
	ValueEncoding any    `json:"value_encoding"`
}

func (w *recordWriter) record(r *records.Record) error {
	if !w.o.json {
		w.buf = appendRecordText(w.buf[:0], w.format, w.o.payloadEnc, r)
		_, err := w.out.Write(w.buf)
		return err
	}
	enc := w.o.payloadEnc
	j := recordJSON{Type: "record", Source: r.Source, File: r.File, BatchPosition: r.Position, Topic: r.Topic, Partition: r.Partition,
		Offset: r.Offset, Timestamp: nonNegative(r.Timestamp), TimestampType: r.TimestampType.String(),
		ProducerID: r.ProducerID, ProducerEpoch: r.ProducerEpoch, Sequence: r.Sequence, CRCValid: r.CRCValid,
		Headers: make([]headerJSON, len(r.Headers)), IsControl: r.IsControl}
	j.Key, j.KeyEncoding = payloadJSON(enc, r.Key)
	if r.Decoded != nil {
		j.Value, j.ValueEncoding = string(r.Decoded), r.DecodedEncoding
	} else {
		j.Value, j.ValueEncoding = payloadJSON(enc, r.Value)
		j.ValueFraming = r.ValueNote
	}
	for i, h := range r.Headers {
		v, e := payloadJSON(enc, h.Value)
		j.Headers[i] = headerJSON{Key: string(h.Key), Value: v, ValueEncoding: e}
	}
	if r.IsControl {
		ct := r.ControlType
		j.ControlType, j.ControlName = &ct, segment.ControlTypeName(ct)
	}
	w.line(&j)
	return nil
}

// formatPart is a literal or a token of a --format string.
type formatPart struct {
	lit   string
	token byte // 0 for a literal
}

// parseRecordFormat splits a --format string into literals and tokens.
func parseRecordFormat(s string) ([]formatPart, error) {
	var parts []formatPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, formatPart{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				lit.WriteByte('\n')
			case 't':
				lit.WriteByte('\t')
			case '\\':
				lit.WriteByte('\\')
			default:
				return nil, fmt.Errorf("unknown escape \\%c (\\n, \\t and \\\\ are known)", s[i])
			}
		case c == '%' && i+1 < len(s):
			i++
			t := s[i]
			if t == '%' {
				lit.WriteByte('%')
				continue
			}
			if !strings.ContainsRune("tpoTDkvhieqfPS", rune(t)) {
				return nil, fmt.Errorf("unknown token %%%c", t)
			}
			flush()
			parts = append(parts, formatPart{token: t})
		case c == '%' || c == '\\':
			return nil, fmt.Errorf("%q ends with a lone %c", s, c)
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

// appendRecordText renders a record by a parsed --format.
func appendRecordText(b []byte, parts []formatPart, enc string, r *records.Record) []byte {
	payload := func(b, p []byte) []byte {
		if p == nil {
			return append(b, "<null>"...)
		}
		return append(b, encodePayload(enc, p)...)
	}
	for _, p := range parts {
		switch p.token {
		case 0:
			b = append(b, p.lit...)
		case 't':
			b = append(b, r.Topic...)
		case 'p':
			b = strconv.AppendInt(b, int64(r.Partition), 10)
		case 'o':
			b = strconv.AppendInt(b, r.Offset, 10)
		case 'T':
			b = strconv.AppendInt(b, r.Timestamp, 10)
		case 'D':
			if r.Timestamp < 0 {
				b = append(b, '-')
			} else {
				b = time.UnixMilli(r.Timestamp).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
			}
		case 'k':
			b = payload(b, r.Key)
		case 'v':
			switch {
			case r.Decoded != nil:
				b = append(b, r.Decoded...)
			case r.ValueNote != "":
				b = append(b, '[')
				b = append(b, r.ValueNote...)
				b = append(b, "] "...)
				b = payload(b, r.Value)
			default:
				b = payload(b, r.Value)
			}
		case 'h':
			for i, h := range r.Headers {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, h.Key...)
				b = append(b, '=')
				b = payload(b, h.Value)
			}
		case 'i':
			b = strconv.AppendInt(b, r.ProducerID, 10)
		case 'e':
			b = strconv.AppendInt(b, int64(r.ProducerEpoch), 10)
		case 'q':
			b = strconv.AppendInt(b, int64(r.Sequence), 10)
		case 'f':
			b = append(b, r.File...)
		case 'P':
			b = strconv.AppendInt(b, r.Position, 10)
		case 'S':
			b = append(b, r.Source...)
		}
	}
	return b
}

// undecodedFraming says what a value in the Confluent wire format that
// did not decode is, as dump --payload does beside its raw bytes: the
// schema id and why it was not decoded; "" for a value not in that format.
func undecodedFraming(reg *payload.Registry, topic string, value []byte) string {
	d, ok := reg.DecodeValue(topic, value)
	if !ok || d.JSON != nil {
		return ""
	}
	desc := d.Describe()
	if d.Err != nil {
		desc += ", not decoded: " + d.Err.Error()
	}
	return desc
}
