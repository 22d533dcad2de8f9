package main

import (
	"errors"
	"fmt"

	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/report/dump"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

// dumpFlags are the dump command's flags as given; options turns them into
// the printer's options.
type dumpFlags struct {
	records        bool
	payload        bool
	payloadEnc     string
	json           bool
	failOnFindings bool
	decode         string
	offsets        string
	since, until   string
	maxBytes       int64
	decodeValues   string
}

func newDumpCmd() *cobra.Command {
	var o dumpFlags
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
			do, err := o.options()
			if err != nil {
				return usageError{err}
			}
			return runDump(cmd, args, do, o.failOnFindings)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.records, "records", false, "print every record")
	f.BoolVar(&o.payload, "payload", false, "print keys, values and header values (implies --records)")
	f.StringVar(&o.payloadEnc, "payload-encoding", "auto", "text, hex or base64 (auto: text when valid UTF-8, else hex)")
	f.BoolVar(&o.json, "json", false, "write JSON lines: one object per batch, record and finding")
	f.BoolVar(&o.failOnFindings, "fail-on-findings", false, failOnFindingsHelp)
	f.StringVar(&o.decode, "decode", "auto",
		"auto: decode records of __transaction_state, __consumer_offsets, __cluster_metadata and KRaft snapshots; none: raw bytes")
	f.StringVar(&o.offsets, "offsets", "", "only batches holding offsets A..B (inclusive; A.. and ..B too), and only those records")
	f.StringVar(&o.since, "since", "", "only batches and records with timestamps at or after this time (RFC 3339 or epoch ms)")
	f.StringVar(&o.until, "until", "", "only batches and records with timestamps before this time (RFC 3339 or epoch ms)")
	f.Int64Var(&o.maxBytes, "max-bytes", 0, "read only the batches that lie whole in the first N bytes of a log file, as kafka-dump-log's --max-bytes (0: all)")
	f.StringVar(&o.decodeValues, "decode-values", "auto", decodeValuesHelp+" (with --payload; the _schemas partitions of the files' log dirs)")
	return cmd
}

// options checks the flags and maps them onto the printer's options.
func (o *dumpFlags) options() (dump.Options, error) {
	do := dump.DefaultOptions()
	switch o.payloadEnc {
	case "", "auto", "text", "hex", "base64":
	default:
		return do, fmt.Errorf("--payload-encoding must be text, hex or base64, not %q", o.payloadEnc)
	}
	switch o.decode {
	case "auto", "none":
	default:
		return do, fmt.Errorf("--decode must be auto or none, not %q", o.decode)
	}
	if err := checkDecodeValues(o.decodeValues); err != nil {
		return do, err
	}
	if o.offsets != "" {
		r, err := records.ParseRange(o.offsets)
		if err != nil {
			return do, fmt.Errorf("--offsets: %w", err)
		}
		do.Offsets = r
	}
	w, err := records.ParseWindow(o.since, o.until)
	if err != nil {
		return do, windowFlagError(err)
	}
	if o.maxBytes < 0 {
		return do, errors.New("--max-bytes must not be negative")
	}
	do.Window, do.MaxBytes = w, o.maxBytes
	do.Records, do.Payload, do.JSON = o.records || o.payload, o.payload, o.json
	do.Encoding = payloadenc.Encoding(o.payloadEnc)
	do.DecodeTopics, do.DecodeValues = o.decode == "auto", o.decodeValues == "auto"
	return do, nil
}

// runDump prints the files one after another; a file that cannot be read
// is reported and the others are still printed.
func runDump(cmd *cobra.Command, files []string, o dump.Options, failOnFindings bool) error {
	errw := cmd.ErrOrStderr()
	d := dump.New(o, cmd.OutOrStdout(), errw)
	if err := d.LoadRegistry(cmd.Context(), files); err != nil {
		d.Flush()
		fmt.Fprintf(errw, "ksleuth: reading the _schemas topic: %v\n", err)
	}
	failed := 0
	for _, name := range files {
		if err := d.File(name); err != nil {
			failed++
			d.Flush()
			fmt.Fprintf(errw, "ksleuth: %v\n", err)
		}
	}
	if err := d.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %s could not be read", failed, text.Count(int64(len(files)), "file"))
	}
	if d.Findings() > 0 && failOnFindings {
		return errFindings
	}
	return nil
}
