package text

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// JSONHint follows a list cut short: how to have it whole, in the words
// of the command line that prints it ("; --json lists them").
var JSONHint = ""

// Producers prints the producers report: the open transactions, a line
// per session with the sequence and epoch anomalies (multi: several
// inputs), and the producers known only from snapshots (snapOnly).
func Producers(w io.Writer, res *pipeline.Result, sum *pipeline.Summary, snapOnly []analysis.SnapshotRow, multi, wide bool) error {
	Crashed(w, sum.Crashed)
	if err := OpenTxns(w, sum.OpenTxns, sum.TxnPartitions, multi); err != nil {
		return err
	}
	var anomalies []analysis.AnomalyRow
	for _, a := range res.Scan.Anomalies {
		if finding.Counts(a.Severity) {
			anomalies = append(anomalies, a)
		}
	}
	if err := writeSessions(w, res.Sessions, anomalies, multi, wide); err != nil {
		return err
	}
	return writeSnapshotOnly(w, snapOnly)
}

func writeSessions(w io.Writer, rows []analysis.ProducerRow, anomalies []analysis.AnomalyRow, multi, wide bool) error {
	ew := &ErrWriter{W: w}
	// The attribution columns only when something is attributed.
	attributed := false
	for i := range rows {
		attributed = attributed || rows[i].TransactionalID != "" || rows[i].AllocatedByBroker != nil
	}
	// Several brokers' copies of a partition in one input give the same
	// sessions once per copy: the COPY column names each copy's dir.
	copies := severalCopies(rows)
	tt := &Table{}
	for _, h := range []string{"TOPIC", "PART", "PID", "EPOCH", "OFFSETS", "TIME (UTC)", "SEQUENCES", "BATCHES", "RECORDS", "TXN",
		"COMMITS", "ABORTS", "GAPS", "SNAPSHOT SEQ@OFFSET"} {
		tt.Cols = append(tt.Cols, Column{Head: h})
	}
	tt.Cols[0].Cut = CutMiddle
	tt.Cols[5].Dates = true
	tt.Cols[6].Drop, tt.Cols[7].Drop, tt.Cols[13].Drop = 1, 2, 3 // SEQUENCES, BATCHES, SNAPSHOT
	if copies {
		tt.Cols = slices.Insert(tt.Cols, 2, Column{Head: "COPY", Cut: CutMiddle})
	}
	if attributed {
		tt.Cols = append(tt.Cols, Column{Head: "TXN ID", Cut: CutMiddle}, Column{Head: "BROKER"})
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
		row := []string{r.Topic, part, Itoa(r.ProducerID), Itoa(int64(r.ProducerEpoch)), fmt.Sprintf("%d..%d", r.FirstOffset, r.LastOffset),
			TimeRange(r.FirstTimestamp, r.LastTimestamp, wide), seqs, Itoa(int64(r.Batches)), Itoa(int64(r.Records)),
			txn, Itoa(int64(r.Commits)), Itoa(int64(r.Aborts)), gaps, snap}
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
		fmt.Fprintf(ew, "; %d anomal%s:\n", len(anomalies), Plural(int64(len(anomalies)), "y", "ies"))
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

// writeSnapshotOnly lists the producers that snapshots name but no batch
// on disk shows, a few by name.
func writeSnapshotOnly(w io.Writer, rows []analysis.SnapshotRow) error {
	if len(rows) == 0 {
		return nil
	}
	ew := &ErrWriter{W: w}
	fmt.Fprintf(ew, "\n%d producer(s) known only from snapshots (no batch of theirs on disk: retention removed it, or the log was not copied):\n", len(rows))
	const shown = 20
	for _, r := range rows[:min(len(rows), shown)] {
		fmt.Fprintf(ew, "  %s-%d PID %d epoch %d: last sequence %d at offset %d, in %s\n",
			r.Topic, r.Partition, r.ProducerID, r.ProducerEpoch, r.LastSequence, r.LastOffset, r.File)
	}
	if len(rows) > shown {
		fmt.Fprintf(ew, "  … (%d in all%s)\n", len(rows), JSONHint)
	}
	return ew.Err
}
