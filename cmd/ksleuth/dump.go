package main

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
	"github.com/spf13/cobra"
)

type dumpOptions struct {
	records        bool
	payload        bool
	payloadEnc     string
	json           bool
	failOnFindings bool
	decode         string
	// The selection: batches holding offsets of the range or timestamps
	// of the window, and with --records only such records.
	offsets, since, until string
	rng                   records.Range
	window                records.Window
	// maxBytes, as kafka-dump-log's --max-bytes, reads only the batches
	// that lie whole in a log file's first maxBytes bytes.
	maxBytes     int64
	decodeValues string
}

func newDumpCmd() *cobra.Command {
	var o dumpOptions
	cmd := &cobra.Command{
		Use:   "dump FILE...",
		Short: "Print the contents of Kafka partition files",
		Long: `dump prints any partition file, its kind detected from the name (also
with a .deleted, .cleaned or .swap suffix, or a leftover .tmp):
.log segments and KRaft .checkpoint snapshots batch by batch, as
kafka-dump-log prints them (--records adds a line per record, --payload its
key, value and headers); .index, .timeindex, .txnindex and producer
.snapshot files entry by entry in kafka-dump-log's format; and the state
files leader-epoch-checkpoint, partition.metadata, the offset checkpoint
files, meta.properties, .kafka_cleanshutdown and quorum-state.
With --decode auto (the default) the records of __transaction_state,
__consumer_offsets and __cluster_metadata (judged from the partition
directory name) and of KRaft .checkpoint snapshots are decoded: with
--records each record line shows its key and value as the internal
topic's schema reads them (a structured "decoded" object with --json).
KRaft metadata records print field by field as kafka-dump-log's
--cluster-metadata-decoder prints them, as
payload: {"type":"PARTITION_CHANGE_RECORD","version":0,"data":{...}};
a type or version this tool does not know is a finding.
--decode none shows the raw bytes instead.
--offsets A..B, --since and --until (as in ksleuth records) print only
the batches that hold such offsets and timestamps, and with --records
only those records; --max-bytes N reads, as kafka-dump-log's does, only
the batches that lie whole in the first N bytes of a log file.
Findings about damaged bytes go to stderr with file and byte or line
position (and into the stream with --json).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch o.payloadEnc {
			case "", "auto", "text", "hex", "base64":
			default:
				return usageError{fmt.Errorf("--payload-encoding must be text, hex or base64, not %q", o.payloadEnc)}
			}
			switch o.decode {
			case "auto", "none":
			default:
				return usageError{fmt.Errorf("--decode must be auto or none, not %q", o.decode)}
			}
			if err := checkDecodeValues(o.decodeValues); err != nil {
				return err
			}
			if o.payload {
				o.records = true
			}
			if err := o.selection(); err != nil {
				return usageError{err}
			}
			return runDump(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.records, "records", false, "print every record")
	f.BoolVar(&o.payload, "payload", false, "print keys, values and header values (implies --records)")
	f.StringVar(&o.payloadEnc, "payload-encoding", "auto", "text, hex or base64 (auto: text when valid UTF-8, else hex)")
	f.BoolVar(&o.json, "json", false, "write JSON lines: one object per batch, record and finding")
	f.BoolVar(&o.failOnFindings, "fail-on-findings", false, failOnFindingsHelp)
	f.StringVar(&o.decode, "decode", "auto", "auto: decode records of __transaction_state, __consumer_offsets, __cluster_metadata and KRaft snapshots; none: raw bytes")
	f.StringVar(&o.offsets, "offsets", "", "only batches holding offsets A..B (inclusive; A.. and ..B too), and only those records")
	f.StringVar(&o.since, "since", "", "only batches and records with timestamps at or after this time (RFC 3339 or epoch ms)")
	f.StringVar(&o.until, "until", "", "only batches and records with timestamps before this time (RFC 3339 or epoch ms)")
	f.Int64Var(&o.maxBytes, "max-bytes", 0, "read only the batches that lie whole in the first N bytes of a log file, as kafka-dump-log's --max-bytes (0: all)")
	f.StringVar(&o.decodeValues, "decode-values", "auto", decodeValuesHelp+" (with --payload; the _schemas partitions of the files' log dirs)")
	return cmd
}

// selection parses the selection flags.
func (o *dumpOptions) selection() error {
	o.rng = records.All
	if o.offsets != "" {
		r, err := records.ParseRange(o.offsets)
		if err != nil {
			return fmt.Errorf("--offsets: %w", err)
		}
		o.rng = r
	}
	w, err := records.ParseWindow(o.since, o.until)
	if err != nil {
		return err
	}
	o.window = w
	if o.maxBytes < 0 {
		return errors.New("--max-bytes must not be negative")
	}
	return nil
}

// keepBatch reports whether a batch can hold selected records: its
// offsets meet the range, and its timestamps (first to largest) the
// window.
func (o *dumpOptions) keepBatch(b *segment.Batch) bool {
	if b.LastOffset() < o.rng.From || b.BaseOffset > o.rng.To {
		return false
	}
	if o.window.IsAlways() {
		return true
	}
	first := b.FirstTimestamp
	if b.HasDeleteHorizon() || b.Magic < 2 {
		first = b.MaxTimestamp // the delete horizon stands in the base timestamp
	}
	return b.MaxTimestamp >= 0 && b.MaxTimestamp >= o.window.Since && (first < o.window.Until || b.Magic < 2)
}

// dumper writes one run of `dump`.
type dumper struct {
	o        dumpOptions
	out      *bufio.Writer
	errw     io.Writer
	findings int
	// topic is the internal topic of the file being dumped, when its
	// records are decoded (--decode auto).
	topic topics.Topic
	// topicName is the topic of the file being dumped, from its partition
	// dir; registry decodes its values (--payload, --decode-values auto).
	topicName string
	registry  *payload.Registry
}

func runDump(cmd *cobra.Command, files []string, o dumpOptions) error {
	d := &dumper{o: o, out: bufio.NewWriterSize(cmd.OutOrStdout(), 256<<10), errw: cmd.ErrOrStderr()}
	if o.payload && o.decodeValues == "auto" {
		d.loadDumpRegistry(cmd.Context(), files)
	}
	failed := 0
	for _, name := range files {
		if err := d.dumpFile(name); err != nil {
			failed++
			d.out.Flush()
			fmt.Fprintf(d.errw, "ksleuth: %v\n", err)
		}
	}
	if err := d.out.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files could not be read", failed, len(files))
	}
	if d.findings > 0 && o.failOnFindings {
		return errFindings
	}
	return nil
}

func (d *dumper) dumpFile(name string) error {
	if k := snapshot.KindOf(filepath.Base(name)); k != snapshot.KindUnknown && k != snapshot.KindLog &&
		k != snapshot.KindKRaftSnapshot && k != snapshot.KindBootstrapCheckpoint {
		return d.dumpState(name, k)
	}
	kind := fileKind(filepath.Base(name))
	switch kind {
	case "log", "kraft-snapshot":
		return d.dumpLog(name, kind)
	}
	return fmt.Errorf("%s: unknown kind of file (not a Kafka partition file by its name)", name)
}

// fileKind detects a file's kind from its name, ignoring the suffixes the
// broker adds to files being deleted, cleaned or swapped in.
func fileKind(base string) string {
	for _, suf := range []string{".deleted", ".cleaned", ".swap"} {
		base = strings.TrimSuffix(base, suf)
	}
	switch {
	case strings.HasSuffix(base, ".log"):
		return "log"
	case strings.HasSuffix(base, ".checkpoint") && base != "bootstrap.checkpoint" && !strings.HasSuffix(base, "-checkpoint"):
		return "kraft-snapshot"
	case base == "bootstrap.checkpoint":
		return "kraft-snapshot"
	}
	return "unknown"
}

func (d *dumper) dumpLog(name, kind string) error {
	f, err := source.OpenNamed(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if !d.o.json {
		fmt.Fprintf(d.out, "Dumping %s\n", name)
		if off, ok := offsetFromName(filepath.Base(name)); ok && kind == "log" {
			fmt.Fprintf(d.out, "Log starting offset: %d\n", off)
		}
	}
	d.topic, d.topicName = topics.None, ""
	if pd, ok := source.ParsePartitionDir(filepath.Base(filepath.Dir(absPath(name)))); ok && kind == "log" {
		d.topicName = pd.Topic
	}
	if d.o.decode != "none" {
		d.topic = internalTopic(name, kind)
	}
	var in io.Reader = f
	limit := int64(-1)
	size, end, holes := fileData(f)
	if d.o.maxBytes > 0 && size > d.o.maxBytes {
		limit = d.o.maxBytes
		in = io.NewSectionReader(f, 0, limit)
	} else if end < size {
		// The file is read up to the end of its data; the hole after it
		// is one finding, as verify reports it.
		in = io.NewSectionReader(f, 0, end)
	}
	r := segment.NewReader(in, segment.Options{Path: name, Holes: holes})
	defer r.Close()
	cut, batches, damaged, tornStart := false, 0, false, false
	for r.Next() {
		if fd := r.Finding(); fd != nil {
			// A batch the --max-bytes cut goes through is not read, as
			// kafka-dump-log leaves it: the cut is not damage.
			if limit >= 0 && fd.Offset+fd.Length >= limit {
				cut = true
				break
			}
			damaged = damaged || finding.ReaderDamage(fd)
			tornStart = tornStart || finding.TornFromStart(finding.ReaderKind(fd), fd.Offset)
			d.finding(name, fd)
			continue
		}
		b := r.Batch()
		batches++
		if b.CRCValid && b.BaseOffset > d.o.rng.To {
			break // offsets only grow through a segment
		}
		keep := d.o.keepBatch(b)
		if keep {
			d.batch(name, b)
		}
		// Without --records the records are still walked (not printed):
		// a header count that disagrees with the records under a valid CRC
		// shows only there.
		it := r.Records()
		for it.Next() {
			if rec := it.Record(); keep && d.o.records && d.o.rng.Contains(rec.Offset) && d.o.window.Contains(rec.Timestamp) {
				d.record(name, b, rec)
			}
		}
		if err := it.Err(); err != nil {
			if ce, ok := err.(*segment.CorruptionError); ok {
				d.finding(name, ce)
			} else {
				return err
			}
		}
	}
	if err := r.Err(); err != nil || cut || limit >= 0 {
		return err
	}
	if end < size {
		d.finding(name, segment.TailHole(name, end, size))
	}
	if batches == 0 && damaged && !tornStart && tornPlace(name) != finding.NotLive && kind == "log" {
		// verify's word for a live segment with no batch in it.
		d.row(name, finding.NotKafkaData(finding.Where{Partition: -1, File: name}, size), 0, "")
	}
	return nil
}

// fileData returns the size of file f, where its data ends and the holes
// before that, for the segment reader: each is one finding, passed over
// without reading its zeros (a terabyte hole costs nothing).
func fileData(f *os.File) (size, end int64, holes []segment.Hole) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, 0, nil
	}
	ranges := source.FileDataRanges(f, st.Size())
	end = source.DataEnd(ranges, st.Size())
	for _, h := range source.Holes(ranges, end) {
		holes = append(holes, segment.Hole{Start: h.Start, End: h.End})
	}
	return st.Size(), end, holes
}

// internalTopic is the internal topic whose schema decodes the records of
// file name: any KRaft snapshot is metadata; a segment is judged by its
// partition directory.
func internalTopic(name, kind string) topics.Topic {
	if kind == "kraft-snapshot" {
		return topics.ClusterMetadata
	}
	return topics.TopicOf(filepath.Base(filepath.Dir(absPath(name))))
}

func absPath(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

func offsetFromName(base string) (int64, bool) {
	i := strings.IndexByte(base, '.')
	if i != 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(base[:i], 10, 64)
	return n, err == nil
}

func (d *dumper) finding(name string, f *segment.CorruptionError) {
	r := finding.FromCorruption(finding.Where{Partition: -1, File: name}, f)
	if r.Kind == finding.KindTruncated {
		finding.GradeTruncated(&r, tornPlace(name))
	}
	// The grading adds why to the reader's message; the text line keeps
	// the reader's spelling of where.
	d.row(name, r, f.Length, f.Error()+strings.TrimPrefix(r.Message, f.Err.Error()))
}

// row reports a finding: text is its stderr line ("" to build one).
func (d *dumper) row(name string, r analysis.AnomalyRow, length int64, text string) {
	if finding.Counts(r.Severity) {
		d.findings++
	}
	if d.o.json {
		off := any(nil)
		if r.Offset != nil {
			off = *r.Offset
		}
		pos := any(nil)
		if r.Position != nil {
			pos = *r.Position
		}
		d.writeJSON(map[string]any{
			"type": "finding", "file": name, "kind": r.Kind, "severity": r.Severity,
			"position": pos, "length": length, "offset": off, "message": r.Message,
		})
		return
	}
	if text == "" {
		text = fmt.Sprintf("%s: at byte %#x (%d): %s", name, *r.Position, *r.Position, r.Message)
	}
	// Keep stdout and stderr in order for a reader watching both.
	d.out.Flush()
	fmt.Fprintf(d.errw, "finding: %s [%s, %s]\n", text, r.Kind, r.Severity)
}

// tornPlace is where file name stands for grading a torn batch in it, as
// verify judges it in the partition dir: a live segment is the active one
// unless a live segment of a higher base offset lies beside it.
func tornPlace(name string) finding.Place {
	n := snapshot.ParseName(filepath.Base(name))
	switch {
	case fileKind(filepath.Base(name)) == "kraft-snapshot":
		return finding.WrittenWhole
	case n.Kind != snapshot.KindLog || n.Suffix != "" || n.Leftover:
		return finding.NotLive
	}
	return finding.PlaceBeside(source.LaterSegment(name))
}

func (d *dumper) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain maps of numbers and strings are marshalled
	}
	d.out.Write(b)
	d.out.WriteByte('\n')
}

func optionalLong(v int64) string {
	if v < 0 {
		return "OptionalLong.empty"
	}
	return "OptionalLong[" + strconv.FormatInt(v, 10) + "]"
}

func (d *dumper) batch(name string, b *segment.Batch) {
	ts := b.TimestampType().String()
	if d.o.json {
		// The batches table's column names; the few kafka-dump-log fields
		// without a column keep their meaning under a snake_case name.
		m := map[string]any{
			"type": "batch", "file": name, "base_offset": b.BaseOffset, "last_offset": b.LastOffset(),
			"record_count": b.NumRecords, "base_sequence": b.BaseSequence, "last_sequence": b.LastSequence(),
			"producer_id": b.ProducerID, "producer_epoch": b.ProducerEpoch,
			"partition_leader_epoch": b.PartitionLeaderEpoch, "is_transactional": b.IsTransactional(),
			"is_control": b.IsControl(), "delete_horizon_ms": nil, "position": b.Position,
			"timestamp_type": ts, "max_timestamp": nonNegative(b.MaxTimestamp),
			"first_timestamp": nonNegative(b.FirstTimestamp), "size_bytes": b.Size(), "magic": b.Magic,
			"codec": b.Codec().String(), "crc": b.CRC, "crc_valid": b.CRCValid,
		}
		if b.HasDeleteHorizon() {
			m["delete_horizon_ms"] = b.DeleteHorizon()
		}
		d.writeJSON(m)
		return
	}
	w := d.out
	if b.Magic < 2 {
		fmt.Fprintf(w, "offset: %d position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
			b.LastOffset(), b.Position, ts, b.MaxTimestamp, b.Size(), b.Magic, b.Codec(), b.CRC, b.CRCValid)
		return
	}
	fmt.Fprintf(w, "baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t deleteHorizonMs: %s position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
		b.BaseOffset, b.LastOffset(), b.NumRecords, b.BaseSequence, b.LastSequence(), b.ProducerID, b.ProducerEpoch,
		b.PartitionLeaderEpoch, b.IsTransactional(), b.IsControl(), optionalLong(b.DeleteHorizon()), b.Position,
		ts, b.MaxTimestamp, b.Size(), b.Magic, b.Codec(), b.CRC, b.CRCValid)
}

// encodePayload renders key/value bytes per --payload-encoding.
func (d *dumper) encodePayload(b []byte) string { return encodePayload(d.o.payloadEnc, b) }

// encodePayload renders bytes for text output in encoding enc (a
// --payload-encoding).
func encodePayload(enc string, b []byte) string {
	switch enc {
	case "hex":
		return hex.EncodeToString(b)
	case "base64":
		return base64.StdEncoding.EncodeToString(b)
	case "text":
		if utf8.Valid(b) {
			return string(b)
		}
		return strconv.Quote(string(b))
	}
	if utf8.Valid(b) && printable(b) {
		return string(b)
	}
	return "0x" + hex.EncodeToString(b)
}

// payloadJSON renders key, value or header bytes for --json with the
// encoding it chose, so that a reader can get the bytes back: "utf8" for
// text as it is, "hex" or "base64" for encoded bytes (without the text
// output's 0x prefix), and null for both when the bytes are null.
// --payload-encoding text (and auto) fall back to hex for bytes that are
// not UTF-8 (auto also for control characters), as text output quotes them.
func (d *dumper) payloadJSON(b []byte) (value, encoding any) { return payloadJSON(d.o.payloadEnc, b) }

// payloadJSON is dumper.payloadJSON for encoding enc.
func payloadJSON(enc string, b []byte) (value, encoding any) {
	if b == nil {
		return nil, nil
	}
	switch enc {
	case "hex":
		return hex.EncodeToString(b), "hex"
	case "base64":
		return base64.StdEncoding.EncodeToString(b), "base64"
	case "text":
		if utf8.Valid(b) {
			return string(b), "utf8"
		}
		return hex.EncodeToString(b), "hex"
	}
	if utf8.Valid(b) && printable(b) {
		return string(b), "utf8"
	}
	return hex.EncodeToString(b), "hex"
}

// nonNegative is a time or offset for JSON: Kafka's -1 ("none") is a null,
// as in the tables.
func nonNegative(v int64) any {
	if v < 0 {
		return nil
	}
	return v
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func (d *dumper) record(name string, b *segment.Batch, r *segment.Record) {
	ts := r.TimestampType.String()
	var dec *topics.Decoded
	var decErr error
	if d.topic != topics.None {
		dec, decErr = topics.Decode(d.topic, r)
		if decErr != nil {
			defer d.decodeFinding(name, b, r, decErr)
		}
	}
	if d.o.json {
		keys := make([]string, len(r.Headers))
		for i, h := range r.Headers {
			keys[i] = string(h.Key)
		}
		// The records table's column names.
		m := map[string]any{
			"type": "record", "file": name, "offset": r.Offset, "timestamp_type": ts,
			"timestamp": nonNegative(r.Timestamp), "key_size": r.KeySize(), "value_size": r.ValueSize(),
			"sequence": r.Sequence, "header_keys": keys, "batch_position": b.Position,
		}
		if b.Magic < 2 {
			m["crc_valid"], m["crc"] = r.CRCValid, r.CRC
		}
		if r.IsControl {
			d.controlJSON(m, r)
		}
		if dec != nil && (dec.Control != nil || !r.IsControl) {
			m["decoded"] = dec
		}
		if d.o.payload && !r.IsControl && dec == nil {
			m["key"], m["key_encoding"] = d.payloadJSON(r.Key)
			m["value"], m["value_encoding"] = d.payloadJSON(r.Value)
			if dec, ok := d.decodeValue(r); ok {
				valueJSON(m, dec)
				if dec.Err != nil {
					defer d.undecodedNote(name, b, r, dec)
				}
			}
			hs := make([]map[string]any, len(r.Headers))
			for i, h := range r.Headers {
				v, enc := d.payloadJSON(h.Value)
				hs[i] = map[string]any{"key": string(h.Key), "value": v, "value_encoding": enc}
			}
			m["headers"] = hs
		}
		d.writeJSON(m)
		return
	}
	w := d.out
	fmt.Fprintf(w, "| offset: %d %s: %d keySize: %d valueSize: %d", r.Offset, ts, r.Timestamp, r.KeySize(), r.ValueSize())
	if b.Magic < 2 {
		fmt.Fprintf(w, " isValid: %t crc: %d", r.CRCValid, r.CRC)
	} else {
		fmt.Fprintf(w, " sequence: %d headerKeys: [", r.Sequence)
		for i, h := range r.Headers {
			if i > 0 {
				w.WriteByte(',')
			}
			w.Write(h.Key)
		}
		w.WriteByte(']')
	}
	if r.IsControl {
		switch r.ControlType {
		case segment.ControlAbort, segment.ControlCommit:
			fmt.Fprintf(w, " endTxnMarker: %s coordinatorEpoch: %d", segment.ControlTypeName(r.ControlType), r.CoordinatorEpoch)
		default:
			fmt.Fprintf(w, " controlType: %s(%d)", segment.ControlTypeName(r.ControlType), r.ControlType)
			if dec != nil && dec.Control != nil {
				w.WriteString(" decoded: ")
				w.Write(mustJSON(dec.Control))
			}
		}
	} else if dec != nil {
		d.decodedText(w, r, dec)
	} else if d.o.payload {
		if r.Key != nil {
			fmt.Fprintf(w, " key: %s", d.encodePayload(r.Key))
		}
		if dec, ok := d.decodeValue(r); ok {
			fmt.Fprintf(w, " payload: %s", d.valueText(r, dec))
			if dec.Err != nil {
				defer d.undecodedNote(name, b, r, dec)
			}
		} else if r.Value != nil {
			fmt.Fprintf(w, " payload: %s", d.encodePayload(r.Value))
		}
		if len(r.Headers) > 0 {
			w.WriteString(" headers: [")
			for i, h := range r.Headers {
				if i > 0 {
					w.WriteByte(',')
				}
				w.Write(h.Key)
				if h.Value == nil {
					w.WriteString("=null")
				} else {
					w.WriteString("=" + d.encodePayload(h.Value))
				}
			}
			w.WriteByte(']')
		}
	}
	w.WriteByte('\n')
}

func (d *dumper) controlJSON(m map[string]any, r *segment.Record) {
	switch r.ControlType {
	case segment.ControlAbort, segment.ControlCommit:
		m["end_txn_marker"] = segment.ControlTypeName(r.ControlType)
		m["coordinator_epoch"] = r.CoordinatorEpoch
	default:
		m["control_type"] = segment.ControlTypeName(r.ControlType)
	}
	m["control_type_id"] = r.ControlType
}

// decodedText appends the decoded key and value of an internal-topic
// record, in kafka-dump-log's decoder forms where it has one
// (--transaction-log-decoder, --offsets-decoder, --cluster-metadata-decoder)
// with the fields those forms leave out added at the end. A part that did
// not decode is shown raw, or for a metadata record in kafka-dump-log's
// error form.
func (d *dumper) decodedText(w *bufio.Writer, r *segment.Record, dec *topics.Decoded) {
	switch {
	case dec.TxnKey != nil:
		fmt.Fprintf(w, " key: transaction_metadata::transactionalId=%s", dec.TxnKey.TransactionalID)
	case dec.GroupKey != nil:
		fmt.Fprintf(w, " key: %s", mustJSON(dec.GroupKey))
	case r.Key != nil:
		fmt.Fprintf(w, " key: %s", d.encodePayload(r.Key))
	}
	switch {
	case dec.Tombstone:
		w.WriteString(" payload: <DELETE>")
	case dec.TxnValue != nil:
		v := dec.TxnValue
		fmt.Fprintf(w, " payload: producerId:%d,producerEpoch:%d,state=%s,partitions=[%s],txnLastUpdateTimestamp=%d,txnTimeoutMs=%d,txnStartTimestamp=%d",
			v.ProducerID, v.ProducerEpoch, v.State, v.PartitionList(), v.LastUpdateMs, v.TimeoutMs, v.StartMs)
		if v.Version >= 1 {
			fmt.Fprintf(w, ",previousProducerId=%d,nextProducerId=%d,nextProducerEpoch=%d,clientTransactionVersion=%d",
				v.PreviousProducerID, v.NextProducerID, v.NextProducerEpoch, v.ClientTransactionVersion)
		}
	case dec.OffsetCommit != nil:
		fmt.Fprintf(w, " payload: %s", mustJSON(dec.OffsetCommit))
	case dec.GroupMetadata != nil:
		fmt.Fprintf(w, " payload: %s", mustJSON(dec.GroupMetadata))
	case dec.Metadata != nil && dec.Metadata.Data != nil:
		w.WriteString(" payload: ")
		w.Write(dec.Metadata.KafkaJSON())
	case dec.Metadata != nil:
		// The form kafka-dump-log prints for a record it cannot read; the
		// finding on stderr says why.
		fmt.Fprintf(w, " payload: Error at %d, skipping. %s record v%d not decoded (%d-byte body)",
			r.Offset, dec.Metadata.Type, dec.Metadata.Version, dec.Metadata.BodySize)
	case r.Value != nil:
		if dec.GroupKey != nil && dec.ValueVersion >= 0 {
			fmt.Fprintf(w, " payload: <%s value v%d, %d bytes, not decoded>", dec.Type, dec.ValueVersion, len(r.Value))
		} else {
			fmt.Fprintf(w, " payload: %s", d.encodePayload(r.Value))
		}
	}
}

// decodeFinding reports a record of an internal topic that did not decode,
// graded as every command grades it (finding.DecodeSeverity).
func (d *dumper) decodeFinding(name string, b *segment.Batch, r *segment.Record, err error) {
	d.findings++
	kind := topics.Kind(err)
	sev := finding.DecodeSeverity(kind)
	f := &topics.Finding{Path: name, Position: b.Position, Offset: r.Offset, Err: err}
	if d.o.json {
		d.writeJSON(map[string]any{
			"type": "finding", "file": name, "kind": kind, "severity": sev,
			"position": b.Position, "offset": r.Offset, "base_offset": b.BaseOffset, "message": err.Error(),
		})
		return
	}
	d.out.Flush()
	fmt.Fprintf(d.errw, "finding: %s [%s, %s]\n", f.Error(), kind, sev)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of numbers, strings and slices
	}
	return b
}
