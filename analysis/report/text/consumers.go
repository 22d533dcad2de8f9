package text

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// groupsNamed is how many consumer groups the first line names before
// counting the others, unless all.
const groupsNamed = 20

// Consumers prints the consumers report: what was read and the groups by
// name, the groups that consumed flagged ranges, then the commit
// timelines (a group's commits to one partition) that need action — a
// flagged range consumed, an offset reset, commits of damaged batches, a
// commit past the end of the data — and a count of the others. With all,
// every group is named and every timeline printed.
func Consumers(w io.Writer, rep *pipeline.ConsumersReport, wide, all bool) error {
	timelines, consumed, s := rep.Timelines, rep.Consumed, &rep.Summary
	ew := &ErrWriter{W: w}
	fmt.Fprintf(ew, "%s (%s) and %s of %s in %s",
		Count(int64(s.Commits), "commit record"), Count(int64(s.Tombstones), "tombstone"), Count(int64(s.GroupRecords), "group metadata record"),
		Count(int64(s.Groups), "consumer group"), Count(int64(s.Inputs), "input"))
	if names := groupNames(rep); len(names) > 0 {
		fmt.Fprintln(ew, ":")
		if len(names) > groupsNamed && !all {
			names = append(names[:groupsNamed:groupsNamed], fmt.Sprintf("and %d more%s", len(names)-groupsNamed, AllHint))
		}
		Wrap(ew, strings.Join(names, ", "), "  ", "  ")
	} else {
		fmt.Fprintln(ew)
	}
	Crashed(ew, s.CrashedCopies)
	if s.Commits+s.GroupRecords == 0 {
		fmt.Fprintln(ew, "no __consumer_offsets records: give the log dirs that hold its partitions")
	}
	if s.Findings > 0 {
		damaged := ""
		if s.DamagedCommits > 0 {
			damaged = fmt.Sprintf("; %s of damaged batches %s not counted as consumption", Count(int64(s.DamagedCommits), "commit record"),
				Plural(int64(s.DamagedCommits), "is", "are"))
		}
		Wrap(ew, fmt.Sprintf("note: the inputs hold %s of severity error or warning%s (ksleuth verify PATH for details)",
			Count(s.Findings, "finding"), damaged), "", "    ")
	}
	fmt.Fprintln(ew)
	ranges := Count(int64(s.Flagged), "flagged range")
	if len(consumed) == 0 {
		fmt.Fprintf(ew, "consumed: no group committed past any of the %s (duplicate runs, gaps, aborted transactions)\n", ranges)
	} else {
		fmt.Fprintf(ew, "consumed, of %s (duplicate runs, gaps, aborted transactions):\n", ranges)
		for _, c := range consumed {
			Wrap(ew, ConsumedText(&c), "  ", "      ")
		}
	}
	if err := writeTimelines(ew, timelines, consumed, wide, all); err != nil {
		return err
	}
	return ew.Err
}

// groupNames are the names of the groups the report holds, sorted, each
// once.
func groupNames(rep *pipeline.ConsumersReport) []string {
	seen := map[string]bool{}
	for _, t := range rep.Timelines {
		seen[t.Group] = true
	}
	for _, g := range rep.Groups {
		seen[g.Group] = true
	}
	names := slices.Sorted(maps.Keys(seen))
	for i, n := range names {
		if n == "" {
			names[i] = `"" (the empty group id)`
		}
	}
	return names
}

// timelineToNote says whether a group's commits to a partition need
// action: it consumed a flagged range there or has one yet to read, went
// back (an offset reset), had commits in damaged batches, or committed
// past the end of the data.
func timelineToNote(t *pipeline.TimelineLine, consumed map[string]bool) bool {
	return consumed[t.Group+"\x00"+t.Topic+"-"+strconv.Itoa(int(t.Partition))] || t.FlaggedAhead > 0 || t.Resets > 0 ||
		t.SkippedDamaged > 0 || (t.Lag != nil && *t.Lag < 0)
}

// writeTimelines prints the table of the timelines that need action, or
// of all, and counts the others.
func writeTimelines(ew *ErrWriter, timelines []pipeline.TimelineLine, consumed []pipeline.ConsumedLine, wide, all bool) error {
	if len(timelines) == 0 {
		return ew.Err
	}
	byPart := map[string]bool{}
	for _, c := range consumed {
		byPart[c.Group+"\x00"+c.Topic+"-"+strconv.Itoa(int(c.Partition))] = true
	}
	var shown []pipeline.TimelineLine
	for _, t := range timelines {
		if all || timelineToNote(&t, byPart) {
			shown = append(shown, t)
		}
	}
	fmt.Fprintln(ew)
	rest := len(timelines) - len(shown)
	switch {
	case all:
		fmt.Fprintf(ew, "%s (a group's commits to one partition):\n", Count(int64(len(timelines)), "commit timeline"))
	case len(shown) == 0:
		fmt.Fprintln(ew, "no commit timeline needs action (flagged ranges consumed or ahead, resets, damaged commits, commits past the end)")
	default:
		fmt.Fprintf(ew, "%s that need%s action (flagged ranges consumed or ahead, resets, damaged commits, commits past the end):\n",
			Count(int64(len(shown)), "commit timeline"), Plural(int64(len(shown)), "s", ""))
	}
	// One table per group: a group's id is never shortened (it is what
	// kafka-consumer-groups.sh takes), and its partitions get the width
	// a GROUP column would take.
	for i := 0; i < len(shown); {
		j := i + 1
		for j < len(shown) && shown[j].Group == shown[i].Group && shown[j].Cluster == shown[i].Cluster {
			j++
		}
		fmt.Fprintf(ew, "group %s:\n", groupTitle(&shown[i], timelines))
		if err := timelineTable(shown[i:j], wide).Write(ew, wide); err != nil {
			return err
		}
		i = j
	}
	if rest > 0 {
		fmt.Fprintf(ew, "%s with nothing to note%s\n", Count(int64(rest), "commit timeline"), AllHint)
	}
	return ew.Err
}

// groupTitle names t's group, and its cluster when the timelines are of
// several: groups of one name in two clusters are two groups.
func groupTitle(t *pipeline.TimelineLine, timelines []pipeline.TimelineLine) string {
	for _, o := range timelines {
		if o.Cluster != t.Cluster {
			return t.Group + " (cluster " + cmp.Or(t.Cluster, "unknown") + ")"
		}
	}
	if t.Group == "" {
		return `"" (the empty group id)`
	}
	return t.Group
}

// timelineTable is the table of one group's timelines.
func timelineTable(timelines []pipeline.TimelineLine, wide bool) *Table {
	// Partitions of long topic names that differ in the middle (Kafka
	// Streams' repartition topics) are told apart only whole: the columns
	// least needed go first (Table.fit).
	tt := &Table{Indent: "  "}
	for _, h := range []string{"PARTITION", "COMMITS", "COMMIT TIME (UTC)", "COMMITTED", "LAST", "END", "LAG", "RESETS", "FLAGGED AHEAD"} {
		tt.Cols = append(tt.Cols, Column{Head: h, Right: true})
	}
	tt.Cols[0].Right, tt.Cols[2].Right, tt.Cols[3].Right = false, false, false
	tt.Cols[0].Cut = CutMiddle
	tt.Cols[2].Dates = true
	tt.Cols[7].Drop, tt.Cols[3].Drop, tt.Cols[2].Drop = 1, 2, 3
	for _, t := range timelines {
		tt.Add(t.Topic+"-"+strconv.Itoa(int(t.Partition)), strconv.Itoa(t.Commits),
			TimeRange(t.FirstCommitTimestamp, t.LastCommitTimestamp, wide), committedRange(t), fmtOpt(t.LastCommittedOffset),
			fmtOpt(t.EndOffset), fmtOpt(t.Lag), strconv.Itoa(t.Resets), strconv.Itoa(t.FlaggedAhead))
	}
	return tt
}

func committedRange(t pipeline.TimelineLine) string {
	if t.FirstCommittedOffset == nil {
		return "-"
	}
	return fmt.Sprintf("%d..%d", *t.FirstCommittedOffset, *t.MaxCommittedOffset)
}

func fmtOpt(p *int64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatInt(*p, 10)
}

// ConsumedText is one consumed line of the text output, e.g.
//
//	group billing, orders-0: duplicate copies 5–6 (2, restart-resend): consumed (committed 7 at 2024-05-01T03:14:07Z)
func ConsumedText(c *pipeline.ConsumedLine) string {
	span := fmt.Sprintf("%d–%d", c.FirstOffset, c.LastOffset)
	if c.FirstOffset == c.LastOffset {
		span = strconv.FormatInt(c.FirstOffset, 10)
	}
	var what string
	switch c.What {
	case pipeline.FlaggedDuplicate:
		what = fmt.Sprintf("duplicate copies %s (%d, %s)", span, c.Records, c.Detail)
	case pipeline.FlaggedGap:
		what = fmt.Sprintf("gap %s (%s)", span, c.Detail)
	default:
		what = fmt.Sprintf("aborted transaction %s (%s)", span, c.Detail)
	}
	verdict := "consumed"
	switch {
	case c.What != pipeline.FlaggedDuplicate:
		verdict = "committed past its start"
		if c.Complete {
			verdict = "committed past it"
		}
	case !c.Complete:
		verdict = "partly consumed"
	}
	ts := int64(-1)
	if c.CommitTimestamp != nil {
		ts = *c.CommitTimestamp
	}
	s := fmt.Sprintf("group %s, %s-%d: %s: %s (committed %d at %s)", c.Group, c.Topic, c.Partition, what, verdict,
		c.CommittedOffset, pipeline.FormatTime(ts))
	if c.What == pipeline.FlaggedAborted {
		s += "; only a read_uncommitted consumer reads aborted records"
	}
	if re := c.ReferenceEpoch; re != nil {
		if e := c.CommitLeaderEpoch; e != nil {
			s += fmt.Sprintf("; the commit is of leader epoch %d, before the surviving history's %d: the group read the lost records", *e, *re)
		} else {
			s += fmt.Sprintf("; the commit names no leader epoch: the group may have read epoch %d's records at these offsets instead", *re)
		}
	}
	return s
}
