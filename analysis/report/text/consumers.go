package text

import (
	"cmp"
	"fmt"
	"io"
	"strconv"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// Consumers prints the consumers report: what was read, each group's
// commits per partition, and the groups that consumed flagged ranges.
func Consumers(w io.Writer, rep *pipeline.ConsumersReport, wide bool) error {
	timelines, consumed, s := rep.Timelines, rep.Consumed, &rep.Summary
	ew := &ErrWriter{W: w}
	fmt.Fprintf(ew, "%d commit record(s) (%d tombstone(s)) and %d group metadata record(s) of %d consumer group(s) in %d input(s)\n",
		s.Commits, s.Tombstones, s.GroupRecords, s.Groups, s.Inputs)
	Crashed(ew, s.CrashedCopies)
	if s.Commits+s.GroupRecords == 0 {
		fmt.Fprintln(ew, "no __consumer_offsets records: give the log dirs that hold its partitions")
	}
	if s.Findings > 0 {
		damaged := ""
		if s.DamagedCommits > 0 {
			damaged = fmt.Sprintf("; %d commit record(s) of damaged batches are not counted as consumption", s.DamagedCommits)
		}
		fmt.Fprintf(ew, "note: the inputs hold %d finding(s) of severity error or warning%s (ksleuth verify PATH for details)\n", s.Findings, damaged)
	}
	if len(timelines) > 0 {
		fmt.Fprintln(ew)
		tt := &Table{}
		for _, h := range []string{"GROUP", "PARTITION", "COMMITS", "COMMIT TIME (UTC)", "COMMITTED", "LAST", "END", "LAG", "RESETS"} {
			tt.Cols = append(tt.Cols, Column{Head: h})
		}
		tt.Cols[0].Cut, tt.Cols[1].Cut = CutMiddle, CutMiddle
		tt.Cols[3].Dates = true
		tt.Cols[2].Right, tt.Cols[5].Right, tt.Cols[6].Right, tt.Cols[7].Right, tt.Cols[8].Right = true, true, true, true, true
		tt.Cols[8].Drop, tt.Cols[4].Drop = 1, 2
		clusters := map[string]bool{}
		for _, t := range timelines {
			clusters[t.Cluster] = true
		}
		for _, t := range timelines {
			group := t.Group
			if len(clusters) > 1 {
				// Groups of one name in two clusters are two groups.
				group += " (cluster " + cmp.Or(t.Cluster, "unknown") + ")"
			}
			tt.Add(group, t.Topic+"-"+strconv.Itoa(int(t.Partition)), strconv.Itoa(t.Commits),
				TimeRange(t.FirstCommitTimestamp, t.LastCommitTimestamp, wide), committedRange(t), fmtOpt(t.LastCommittedOffset),
				fmtOpt(t.EndOffset), fmtOpt(t.Lag), strconv.Itoa(t.Resets))
		}
		if err := tt.Write(ew, wide); err != nil {
			return err
		}
	}
	fmt.Fprintln(ew)
	if len(consumed) == 0 {
		fmt.Fprintf(ew, "consumed: no group committed past any of the %d flagged range(s) (duplicate runs, gaps, aborted transactions)\n", s.Flagged)
		return ew.Err
	}
	fmt.Fprintf(ew, "consumed, of %d flagged range(s) (duplicate runs, gaps, aborted transactions):\n", s.Flagged)
	for _, c := range consumed {
		fmt.Fprintln(ew, "  "+ConsumedText(&c))
	}
	return ew.Err
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
