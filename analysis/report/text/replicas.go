package text

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// Replicas prints the partitions whose copies need action first (a copy
// that is not in sync with the reference), each with one line per copy and
// one sentence per verdict, then one line counting the partitions whose
// copies agree, and what was not checked. With all, every partition is
// printed, in partition order. The closing notes come also when there is
// nothing to compare: the findings they count are what --fail-on-findings
// exits 3 on.
func Replicas(w io.Writer, rows []analysis.ReplicaRow, sum *pipeline.Summary, all bool) error {
	notDecoded, findings := sum.NotDecoded, sum.Counted
	losses, unread := sum.LossCopies-sum.UnreadCopies, sum.UnreadCopies
	ew := &ErrWriter{W: w}
	Crashed(ew, sum.Crashed)
	if len(rows) == 0 {
		fmt.Fprintln(ew, "no partition is held by two or more of the inputs: nothing to compare")
	} else {
		writeReplicaCopies(ew, rows, all)
	}
	if findings > 0 || losses > 0 || unread > 0 {
		lost := ""
		if losses > 0 {
			lost = fmt.Sprintf(", and %s lost offsets", copies(losses))
		}
		switch {
		case unread > 0 && losses > 0:
			lost += fmt.Sprintf(", %d unread (%s)", unread, UnreadWhy(unread))
		case unread > 0:
			lost = fmt.Sprintf(", and %s unread (%s)", copies(unread), UnreadWhy(unread))
		}
		Wrap(ew, fmt.Sprintf("note: the inputs hold %s of severity error or warning%s (ksleuth verify PATH for details)", Count(findings, "finding"), lost),
			"", "    ")
	}
	switch {
	case notDecoded > 0 && len(rows) > 0:
		Wrap(ew, fmt.Sprintf("batches compared by offsets, leader epoch and CRC (each CRC checked); "+
			"the records of %s not decoded: ksleuth verify decodes them", Count(notDecoded, "batch")), "", "    ")
	case notDecoded > 0:
		fmt.Fprintf(ew, "batch headers and CRCs checked; the records of %s not decoded: ksleuth verify decodes them\n", Count(notDecoded, "batch"))
	}
	return ew.Err
}

// replicaGroups splits rows into the copies of one partition of one
// cluster (they share their reference), in partition order.
func replicaGroups(rows []analysis.ReplicaRow) [][]analysis.ReplicaRow {
	var groups [][]analysis.ReplicaRow
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].Topic == rows[i].Topic && rows[j].Partition == rows[i].Partition &&
			rows[j].ReferenceSource == rows[i].ReferenceSource && rows[j].ReferenceDir == rows[i].ReferenceDir {
			j++
		}
		groups = append(groups, rows[i:j])
		i = j
	}
	slices.SortStableFunc(groups, func(a, b []analysis.ReplicaRow) int {
		return analysis.ComparePartition(a[0].Topic, a[0].Partition, b[0].Topic, b[0].Partition)
	})
	return groups
}

// agrees says whether every copy of a partition is the reference or in
// sync with it: nothing to act on.
func agrees(g []analysis.ReplicaRow) bool {
	for _, r := range g {
		if r.Verdict != string(analysis.CopyReference) && r.Verdict != string(analysis.CopyInSync) {
			return false
		}
	}
	return true
}

// writeReplicaCopies prints the copies of each partition held by several
// inputs (only those that need action unless all), their verdicts, and a
// count of each verdict.
func writeReplicaCopies(ew *ErrWriter, rows []analysis.ReplicaRow, all bool) {
	counts := map[string]int{}
	agreed, empty := 0, 0
	for _, g := range replicaGroups(rows) {
		for _, r := range g {
			counts[r.Verdict]++
		}
		if !all && agrees(g) {
			agreed++
			if !slices.ContainsFunc(g, func(r analysis.ReplicaRow) bool { return r.LogEndOffset > r.LogStartOffset }) {
				empty++
			}
			continue
		}
		writeReplicaGroup(ew, g)
	}
	if agreed > 0 {
		line := fmt.Sprintf("%d partition%s in sync on every copy", agreed, Plural(int64(agreed), "", "s"))
		if empty > 0 {
			line += fmt.Sprintf(", %d of them empty", empty)
		}
		fmt.Fprintln(ew, line+AllHint)
	}
	var parts []string
	for _, st := range []analysis.CopyState{analysis.CopyInSync, analysis.CopyDamaged, analysis.CopyLost, analysis.CopyLagging,
		analysis.CopyDiverged, analysis.CopyAhead, analysis.CopyUnread} {
		v := string(st)
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	n := counts[string(analysis.CopyReference)]
	fmt.Fprintf(ew, "%d partition%s compared, their copies besides the reference: %s\n", n, Plural(int64(n), "", "s"), strings.Join(parts, ", "))
}

// writeReplicaGroup prints one partition's copies and their verdicts,
// the table fitted to TerminalWidth as every table is; replicas has no
// --wide, so no column is left out: long paths and epoch lists are
// shortened instead.
func writeReplicaGroup(ew *ErrWriter, g []analysis.ReplicaRow) {
	fmt.Fprintf(ew, "%s-%d: %d copies\n", g[0].Topic, g[0].Partition, len(g))
	t := &Table{Indent: "  ", Cols: []Column{{Head: "BROKER"}, {Head: "COPY", Cut: CutMiddle}, {Head: "LOG START", Right: true},
		{Head: "LOG END", Right: true}, {Head: "HIGH WM", Right: true}, {Head: "RECOVERY POINT", Right: true},
		{Head: "LEADER EPOCHS", Cut: CutEnd}, {Head: "VERDICT"}}}
	for _, r := range g {
		t.Add(brokerName(r.Broker), r.Source+":"+r.Dir, Itoa(r.LogStartOffset), Itoa(r.LogEndOffset),
			optOffset(r.HighWatermark), optOffset(r.RecoveryPoint), epochList(r.LeaderEpochs), r.Verdict)
	}
	if err := t.Write(ew, false); err != nil {
		return
	}
	for _, r := range g {
		Wrap(ew, r.Explanation, "  ", "      ")
	}
	fmt.Fprintln(ew)
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
