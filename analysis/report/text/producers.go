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

// Producers prints the producers report: the open transactions, then the
// sessions that need action (a finding about the producer, aborts, an
// open transaction, damaged batches, a copy with losses) and a count of
// the rest, the findings about producers, the cluster events that bear on
// loss, and the producers known only from snapshots (snapOnly). With all,
// every session and every cluster event is listed; multi: several inputs.
func Producers(w io.Writer, res *pipeline.Result, sum *pipeline.Summary, snapOnly []analysis.SnapshotRow, multi, wide, all bool) error {
	Crashed(w, sum.Crashed)
	if err := OpenTxns(w, sum.OpenTxns, sum.TxnPartitions, multi); err != nil {
		return err
	}
	var mine, others []analysis.AnomalyRow
	for _, a := range res.Scan.Anomalies {
		switch {
		case !finding.Counts(a.Severity):
		case producerFinding(&a):
			mine = append(mine, a)
		default:
			others = append(others, a)
		}
	}
	rows := res.Sessions
	if !all {
		rows = sessionsToNote(res.Sessions, sum.Losses, mine)
	}
	if err := writeSessions(w, rows, res.Sessions, multi, wide, all); err != nil {
		return err
	}
	if err := writeProducerFindings(w, mine, others); err != nil {
		return err
	}
	if err := ClusterEvents(w, res.ClusterEvents(), all); err != nil {
		return err
	}
	return writeSnapshotOnly(w, snapOnly)
}

// producerFinding tells the findings about producers, which the producers
// report lists, from the others, which it counts: those naming a producer
// id, those of the producer sessions, the producer snapshots and the
// internal topics the attribution reads, and the checks of snapshots and
// the .txnindex against the log.
func producerFinding(a *analysis.AnomalyRow) bool {
	switch finding.Kind(a.Kind) {
	case finding.KindTxnIndexMismatch, finding.KindSnapshotMismatch, finding.KindSnapshotAhead:
		return true
	}
	if info, ok := finding.Lookup(finding.Kind(a.Kind)); ok {
		switch info.Origin {
		case finding.OriginProducer, finding.OriginSnapshot, finding.OriginAttr:
			return true
		}
	}
	return a.ProducerID != nil
}

// sessionsToNote are the sessions that need action: a finding naming the
// session's producer in its partition dir (sequence gaps the compaction of
// the partition explains are none), an aborted or open transaction,
// damaged batches, or a copy whose offsets were lost.
func sessionsToNote(rows []analysis.ProducerRow, losses []analysis.Verdict, mine []analysis.AnomalyRow) []analysis.ProducerRow {
	lost := map[analysis.PartitionKey]bool{}
	for _, v := range losses {
		lost[analysis.PartitionKey{Input: v.Input, Dir: v.Dir}] = true
	}
	type pidIn struct {
		dir analysis.PartitionKey
		pid int64
	}
	flagged := map[pidIn]bool{}
	for _, a := range mine {
		if a.ProducerID != nil {
			flagged[pidIn{analysis.PartitionOf(a.Input, a.File), *a.ProducerID}] = true
		}
	}
	var out []analysis.ProducerRow
	for _, r := range rows {
		k := analysis.PartitionKey{Input: r.Input, Dir: r.Dir}
		if r.Aborts+r.DamagedBatches > 0 || r.OpenTxn || lost[k] || flagged[pidIn{k, r.ProducerID}] {
			out = append(out, r)
		}
	}
	return out
}

// writeSessions prints the table of rows, of every session: all of them
// with all, else those that need action and a line counting the rest.
func writeSessions(w io.Writer, rows, every []analysis.ProducerRow, multi, wide, all bool) error {
	ew := &ErrWriter{W: w}
	total := len(every)
	switch {
	case total == 0:
		fmt.Fprintln(ew, "no producer sessions: no batch of an idempotent or transactional producer (v2 batches with a producer ID)")
		return ew.Err
	case all:
		fmt.Fprintf(ew, "%s:\n", Count(int64(total), "producer session"))
	case len(rows) == 0:
		fmt.Fprintf(ew, "no producer session needs action (producer findings, aborts, open transactions, damaged batches, losses)\n")
	default:
		fmt.Fprintf(ew, "%s that need%s action (producer findings, aborts, open transactions, damaged batches, losses):\n",
			Count(int64(len(rows)), "producer session"), Plural(int64(len(rows)), "s", ""))
	}
	if len(rows) > 0 {
		if err := sessionTable(rows, multi, wide).Write(ew, wide); err != nil {
			return err
		}
	}
	if rest := total - len(rows); rest > 0 {
		shown := map[analysis.PartitionKey]int{}
		for _, r := range rows {
			shown[analysis.PartitionKey{Input: r.Input, Dir: r.Dir}]++
		}
		parts := map[analysis.PartitionKey]int{}
		for _, r := range every {
			parts[analysis.PartitionKey{Input: r.Input, Dir: r.Dir}]++
		}
		quiet := 0 // partition copies with a session not shown
		for k, n := range parts {
			if shown[k] < n {
				quiet++
			}
		}
		fmt.Fprintf(ew, "%s with nothing to note, in %s%s\n", Count(int64(rest), "session"), Count(int64(quiet), "partition"), AllHint)
	}
	return ew.Err
}

// sessionTable is the table of the sessions rows.
func sessionTable(rows []analysis.ProducerRow, multi, wide bool) *Table {
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
		// The broker the controller allocated the PID's block to, not the
		// broker whose copy holds the session (scan's BROKER).
		tt.Cols = append(tt.Cols, Column{Head: "TXN ID", Cut: CutMiddle}, Column{Head: "PID BROKER"})
	}
	for _, r := range rows {
		tt.Add(sessionCells(&r, multi, wide, copies, attributed)...)
	}
	return tt
}

func sessionCells(r *analysis.ProducerRow, multi, wide, copies, attributed bool) []string {
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
		TimeRange(r.FirstTimestamp, r.LastTimestamp, wide), seqs, Itoa(r.Batches), Itoa(r.Records),
		txn, Itoa(r.Commits), Itoa(r.Aborts), gaps, snap}
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
	return row
}

// writeProducerFindings lists the findings about producers, each message
// on lines of its own, and counts the others by kind.
func writeProducerFindings(w io.Writer, mine, others []analysis.AnomalyRow) error {
	ew := &ErrWriter{W: w}
	fmt.Fprintln(ew)
	if len(mine) == 0 {
		fmt.Fprintln(ew, "no sequence, epoch, transaction or producer-state findings")
	} else {
		fmt.Fprintf(ew, "%s about producers:\n", Count(int64(len(mine)), "finding"))
		for _, a := range mine {
			// Findings about a whole file (a snapshot past the log end)
			// have no byte, and those of text files a line instead.
			where := ""
			switch {
			case a.Position != nil:
				where = fmt.Sprintf(" at byte %d", *a.Position)
			case a.Line != nil:
				where = fmt.Sprintf(" at line %d", *a.Line)
			}
			fmt.Fprintf(ew, "  %s %s%s:\n", a.Kind, a.File, where)
			Wrap(ew, a.Message, "    ", "    ")
		}
	}
	if len(others) > 0 {
		byKind := map[string]int64{}
		for _, a := range others {
			byKind[string(a.Kind)]++
		}
		Wrap(ew, fmt.Sprintf("%s about the data and state files%s: ksleuth verify PATH for details",
			Count(int64(len(others)), "other finding"), ByKind(byKind)), "", "    ")
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
	fmt.Fprintf(ew, "\n%s known only from snapshots (retention removed their batches, or the log was not copied):\n", Count(int64(len(rows)), "producer"))
	const shown = 20
	for _, r := range rows[:min(len(rows), shown)] {
		// The partition names the snapshot's dir: its file name is enough.
		fmt.Fprintf(ew, "  %s-%d PID %d epoch %d: last sequence %d at offset %d, in %s\n",
			r.Topic, r.Partition, r.ProducerID, r.ProducerEpoch, r.LastSequence, r.LastOffset, path.Base(r.File))
	}
	if len(rows) > shown {
		fmt.Fprintf(ew, "  … (%d in all%s)\n", len(rows), JSONHint)
	}
	return ew.Err
}
