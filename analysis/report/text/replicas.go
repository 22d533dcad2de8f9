package text

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// Replicas prints, per partition, one line per copy and one
// sentence per verdict, and what was not checked. The closing notes come
// also when there is nothing to compare: the findings they count are what
// --fail-on-findings exits 3 on.
func Replicas(w io.Writer, rows []analysis.ReplicaRow, sum *pipeline.Summary) error {
	notDecoded, findings := sum.NotDecoded, sum.Counted
	losses, unread := sum.LossCopies-sum.UnreadCopies, sum.UnreadCopies
	ew := &ErrWriter{W: w}
	if len(rows) == 0 {
		fmt.Fprintln(ew, "no partition is held by two or more of the inputs: nothing to compare")
	} else {
		writeReplicaCopies(ew, rows)
	}
	if findings > 0 || losses > 0 || unread > 0 {
		lost := ""
		if losses > 0 {
			lost = fmt.Sprintf(", and %d partition cop%s lost offsets", losses, Plural(int64(losses), "y", "ies"))
		}
		switch {
		case unread > 0 && losses > 0:
			lost += fmt.Sprintf(", %d unread (%s)", unread, UnreadWhy(unread))
		case unread > 0:
			lost = fmt.Sprintf(", and %d partition cop%s unread (%s)", unread, Plural(int64(unread), "y", "ies"), UnreadWhy(unread))
		}
		fmt.Fprintf(ew, "note: the inputs hold %d finding(s) of severity error or warning%s (ksleuth verify PATH for details)\n", findings, lost)
	}
	switch {
	case notDecoded > 0 && len(rows) > 0:
		fmt.Fprintf(ew, "batches compared by offsets, leader epoch and CRC (each CRC checked); "+
			"the records of %d batch(es) not decoded: ksleuth verify decodes them\n", notDecoded)
	case notDecoded > 0:
		fmt.Fprintf(ew, "batch headers and CRCs checked; the records of %d batch(es) not decoded: ksleuth verify decodes them\n", notDecoded)
	}
	return ew.Err
}

// writeReplicaCopies prints the copies of each partition held by several
// inputs, their verdicts, and a count of each verdict.
func writeReplicaCopies(ew *ErrWriter, rows []analysis.ReplicaRow) {
	counts := map[string]int{}
	for i := 0; i < len(rows); {
		j := i + 1
		// One partition of one cluster: the copies share their reference.
		for j < len(rows) && rows[j].Topic == rows[i].Topic && rows[j].Partition == rows[i].Partition &&
			rows[j].ReferenceSource == rows[i].ReferenceSource && rows[j].ReferenceDir == rows[i].ReferenceDir {
			j++
		}
		fmt.Fprintf(ew, "%s-%d: %d copies\n", rows[i].Topic, rows[i].Partition, j-i)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  BROKER\tCOPY\tLOG START\tLOG END\tHIGH WATERMARK\tRECOVERY POINT\tLEADER EPOCHS (epoch@offset)\tVERDICT")
		for _, r := range rows[i:j] {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", brokerName(r.Broker), r.Source+":"+r.Dir, r.LogStartOffset, r.LogEndOffset,
				optOffset(r.HighWatermark), optOffset(r.RecoveryPoint), epochList(r.LeaderEpochs), r.Verdict)
			counts[r.Verdict]++
		}
		tw.Flush()
		for _, r := range rows[i:j] {
			fmt.Fprintf(ew, "  %s\n", r.Explanation)
		}
		fmt.Fprintln(ew)
		i = j
	}
	var parts []string
	for _, st := range []analysis.CopyState{analysis.CopyInSync, analysis.CopyDamaged, analysis.CopyLost, analysis.CopyLagging,
		analysis.CopyDiverged, analysis.CopyAhead, analysis.CopyUnread} {
		v := string(st)
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	fmt.Fprintf(ew, "%d partition(s) compared: %s\n", counts[string(analysis.CopyReference)], strings.Join(parts, ", "))
}

func brokerName(b *int32) string {
	if b == nil {
		return "?"
	}
	return strconv.Itoa(int(*b))
}

func optOffset(o *int64) string {
	if o == nil {
		return "-"
	}
	return strconv.FormatInt(*o, 10)
}

func epochList(es []analysis.EpochStart) string {
	if len(es) == 0 {
		return "-"
	}
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = fmt.Sprintf("%d@%d", e.Epoch, e.StartOffset)
	}
	return strings.Join(s, " ")
}
