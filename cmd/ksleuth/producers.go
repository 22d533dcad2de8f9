package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/spf13/cobra"
)

func newProducersCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	cmd := &cobra.Command{
		Use:   "producers PATH...",
		Short: "List producer sessions per partition",
		Long: `producers lists one session per (topic, partition, producer ID, epoch):
offsets, times, sequences, batches, records, transactions (commits, aborts,
one left open), and what the newest producer-state .snapshot of the
partition holds for it. Sequence gaps, regressions (including repeated
sequence numbers) and epochs going backwards are listed after the table
(--json: one object per session, type "session", and per anomaly a
finding, type "finding", with the columns of anomalies.parquet).

When the inputs hold __transaction_state or __cluster_metadata, each
session gains the transactional id that held its PID and the broker the
controller allocated its PID block to (transactional_id,
allocated_by_broker; TXN ID and BROKER columns in the text), as scan
writes them to producers.parquet; records of those topics that do not
decode are listed as anomalies.

Transactions open at the end of the input come first: per partition the
last stable offset (LSO) they hold back, how long each had been open at
the partition's last write, whether __transaction_state shows its
coordinator still tracking it (ongoing) or not (hanging), the
__transaction_state partition that coordinates its transactional id, and
the kafka-transactions.sh find-hanging and abort commands an operator would
run (ksleuth never runs them). --json adds one object per open
transaction (type "open_transaction") and per partition with transactions
(type "lso"). See docs/transactions.md.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProducers(cmd, args, &o)
		},
	}
	addCommonFlags(cmd, &o)
	addWideFlag(cmd.Flags(), &o.wide)
	return cmd
}

type sessionLine struct {
	Type string `json:"type"`
	analysis.ProducerRow
}

func runProducers(cmd *cobra.Command, args []string, o *commonOptions) error {
	topic, inputs, err := o.prepare("producers", args)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	res, err := analyze(ctx, cmd, "producers", o, inputs, pipeline.Plan{Command: pipeline.Producers, Topic: topic}, pipeline.Sinks{})
	if err != nil {
		return err
	}
	rows := res.Sessions
	snapOnly := res.SnapshotOnly(inputs)
	var anomalies []analysis.AnomalyRow
	for _, a := range res.Scan.Anomalies {
		if finding.Counts(a.Severity) {
			anomalies = append(anomalies, a)
		}
	}
	w := cmd.OutOrStdout()
	sum := res.Summarize()
	if o.json {
		enc := json.NewEncoder(w)
		for _, h := range sum.OpenTxns {
			if err := enc.Encode(h); err != nil {
				return err
			}
		}
		for _, p := range sum.TxnPartitions {
			if err := enc.Encode(p); err != nil {
				return err
			}
		}
		for _, r := range rows {
			if err := enc.Encode(sessionLine{"session", r}); err != nil {
				return err
			}
		}
		for _, r := range snapOnly {
			if err := enc.Encode(snapshotProducerLine{"snapshot_producer", r}); err != nil {
				return err
			}
		}
		for _, an := range anomalies {
			if err := enc.Encode(jsonl.FindingLine{Type: "finding", AnomalyRow: an}); err != nil {
				return err
			}
		}
	} else {
		if err := text.OpenTxns(w, sum.OpenTxns, sum.TxnPartitions, len(inputs) > 1); err != nil {
			return err
		}
		if err := writeProducersText(w, rows, anomalies, len(inputs) > 1, o.wide); err != nil {
			return err
		}
		if err := writeSnapshotOnly(w, snapOnly); err != nil {
			return err
		}
	}
	return exitStatus(res, o.failOnFindings)
}

func writeProducersText(w io.Writer, rows []analysis.ProducerRow, anomalies []analysis.AnomalyRow, multi, wide bool) error {
	ew := &text.ErrWriter{W: w}
	// The attribution columns only when something is attributed.
	attributed := false
	for i := range rows {
		attributed = attributed || rows[i].TransactionalID != "" || rows[i].AllocatedByBroker != nil
	}
	// Several brokers' copies of a partition in one input give the same
	// sessions once per copy: the COPY column names each copy's dir.
	copies := severalCopies(rows)
	tt := &text.Table{}
	for _, h := range []string{"TOPIC", "PART", "PID", "EPOCH", "OFFSETS", "TIME (UTC)", "SEQUENCES", "BATCHES", "RECORDS", "TXN", "COMMITS", "ABORTS", "GAPS", "SNAPSHOT SEQ@OFFSET"} {
		tt.Cols = append(tt.Cols, text.Column{Head: h})
	}
	tt.Cols[0].Cut = text.CutMiddle
	tt.Cols[5].Dates = true
	tt.Cols[6].Drop, tt.Cols[7].Drop, tt.Cols[13].Drop = 1, 2, 3 // SEQUENCES, BATCHES, SNAPSHOT
	if copies {
		tt.Cols = slices.Insert(tt.Cols, 2, text.Column{Head: "COPY", Cut: text.CutMiddle})
	}
	if attributed {
		tt.Cols = append(tt.Cols, text.Column{Head: "TXN ID", Cut: text.CutMiddle}, text.Column{Head: "BROKER"})
	}
	for _, r := range rows {
		part := strconv.Itoa(int(r.Partition))
		if multi {
			part = fmt.Sprintf("%s (#%d)", part, r.Input)
		}
		txn := "-"
		if r.IsTransactional {
			txn = "yes"
			if r.OpenTxn {
				txn = "open"
			}
		}
		seqs := "-"
		if r.FirstSequence >= 0 {
			seqs = fmt.Sprintf("%d..%d", r.FirstSequence, r.LastSequence)
		}
		snap := "-"
		if r.SnapshotLastSequence != nil {
			snap = fmt.Sprintf("%d@%d", *r.SnapshotLastSequence, *r.SnapshotLastOffset)
		}
		gaps := strconv.FormatInt(r.SequenceGaps, 10)
		if r.SequenceRegressions > 0 {
			gaps += fmt.Sprintf(" (+%d back)", r.SequenceRegressions)
		}
		row := []string{r.Topic, part, text.Itoa(r.ProducerID), text.Itoa(int64(r.ProducerEpoch)), fmt.Sprintf("%d..%d", r.FirstOffset, r.LastOffset),
			text.TimeRange(r.FirstTimestamp, r.LastTimestamp, wide), seqs, text.Itoa(int64(r.Batches)), text.Itoa(int64(r.Records)),
			txn, text.Itoa(int64(r.Commits)), text.Itoa(int64(r.Aborts)), gaps, snap}
		if copies {
			row = slices.Insert(row, 2, path.Dir(r.Dir))
		}
		if attributed {
			tid, broker := "-", "-"
			if r.TransactionalID != "" {
				tid = r.TransactionalID
			}
			if r.AllocatedByBroker != nil {
				broker = strconv.Itoa(int(*r.AllocatedByBroker))
			}
			row = append(row, tid, broker)
		}
		tt.Add(row...)
	}
	if err := tt.Write(ew, wide); err != nil {
		return err
	}
	fmt.Fprintf(ew, "\n%d session(s)", len(rows))
	if len(anomalies) == 0 {
		fmt.Fprintln(ew, "; no sequence or epoch anomalies")
	} else {
		fmt.Fprintf(ew, "; %d anomal%s:\n", len(anomalies), text.Plural(int64(len(anomalies)), "y", "ies"))
		for _, a := range anomalies {
			// Findings about a whole file (a snapshot past the log end)
			// have no byte, and those of text files a line instead.
			where := ""
			switch {
			case a.Position != nil:
				where = fmt.Sprintf(" at byte %d", *a.Position)
			case a.Line != nil:
				where = fmt.Sprintf(" at line %d", *a.Line)
			}
			fmt.Fprintf(ew, "  %s %s%s: %s\n", a.Kind, a.File, where, a.Message)
		}
	}
	return ew.Err
}

// severalCopies reports whether rows hold sessions of one partition from
// more than one partition dir of the same input: the copies of several
// brokers' log dirs, or a -future dir beside the live one.
func severalCopies(rows []analysis.ProducerRow) bool {
	type part struct {
		input int32
		topic string
		part  int32
	}
	dirs := map[part]string{}
	for i := range rows {
		r := &rows[i]
		k := part{r.Input, r.Topic, r.Partition}
		if d, ok := dirs[k]; ok && d != r.Dir {
			return true
		}
		dirs[k] = r.Dir
	}
	return false
}

// snapshotProducerLine is a producer known only from a snapshot, as a
// JSON line.
type snapshotProducerLine struct {
	Type string `json:"type"`
	analysis.SnapshotRow
}

// writeSnapshotOnly lists the producers that snapshots name but no batch
// on disk shows, a few by name.
func writeSnapshotOnly(w io.Writer, rows []analysis.SnapshotRow) error {
	if len(rows) == 0 {
		return nil
	}
	ew := &text.ErrWriter{W: w}
	fmt.Fprintf(ew, "\n%d producer(s) known only from snapshots (no batch of theirs on disk: retention removed it, or the log was not copied):\n", len(rows))
	const shown = 20
	for _, r := range rows[:min(len(rows), shown)] {
		fmt.Fprintf(ew, "  %s-%d PID %d epoch %d: last sequence %d at offset %d, in %s\n",
			r.Topic, r.Partition, r.ProducerID, r.ProducerEpoch, r.LastSequence, r.LastOffset, r.File)
	}
	if len(rows) > shown {
		fmt.Fprintf(ew, "  … (%d in all; --json lists them)\n", len(rows))
	}
	return ew.Err
}
