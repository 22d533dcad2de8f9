package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/consumers"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/spf13/cobra"
)

func newConsumersCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	var d dupOptions
	var group string
	cmd := &cobra.Command{
		Use:   "consumers PATH...",
		Short: "Show what consumer groups committed, and which flagged records they consumed",
		Long: `consumers reads __consumer_offsets and prints, per consumer group and
partition, the commit timeline: how many commits, the first and last, the
committed offsets, how often the group went back (an offset reset), and its
lag behind the end of the partition as the inputs hold it.

Then, for every run of later duplicate copies, every gap of the loss ledger
and every aborted transaction, the groups that committed past it, with the
first such commit. A committed offset N means the group had processed the
records below N, so a commit of exactly the first offset does not count. A
group that never committed past a range has no evidence of having read it;
records of an aborted transaction reach only read_uncommitted consumers.
--topic chooses the data partitions; __consumer_offsets is read whatever
it says. See docs/consumers.md.

--json prints one object per line with a type: "commit" (the columns of
commits.parquet), "group" (groups.parquet), "timeline" (one group and
partition), "consumed" (a group that committed past a flagged range) and a
last "summary".`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConsumers(cmd, args, &o, &d, group)
		},
	}
	addCommonFlags(cmd, &o)
	addDupFlags(cmd.Flags(), &d)
	addWideFlag(cmd.Flags(), &o.wide)
	cmd.Flags().StringVar(&group, "group", "", "only consumer groups whose id matches this regular expression")
	return cmd
}

// timelineLine is one group's commits for one partition.
type timelineLine struct {
	Type string `json:"type"`
	// Cluster is the cluster.id of the inputs the commits were read from,
	// left out when unknown.
	Cluster   string `json:"cluster,omitempty"`
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Commits   int    `json:"commits"`
	// FirstCommitTimestamp and LastCommitTimestamp bound the applied
	// commits; the offsets are those of the first, the last and the
	// highest commit.
	FirstCommitTimestamp *int64 `json:"first_commit_timestamp"`
	LastCommitTimestamp  *int64 `json:"last_commit_timestamp"`
	FirstCommittedOffset *int64 `json:"first_committed_offset"`
	LastCommittedOffset  *int64 `json:"last_committed_offset"`
	MaxCommittedOffset   *int64 `json:"max_committed_offset"`
	Resets               int    `json:"resets"`
	Tombstones           int    `json:"tombstones"`
	SkippedTransactional int    `json:"skipped_transactional"`
	// SkippedDamaged counts the commits of damaged batches, not applied.
	SkippedDamaged int    `json:"skipped_damaged"`
	EndOffset      *int64 `json:"end_offset"`
	Lag            *int64 `json:"lag"`
}

// consumedLine is a group that committed past a flagged range.
type consumedLine struct {
	Type      string `json:"type"`
	Group     string `json:"group"`
	What      string `json:"what"`
	Input     int32  `json:"input"`
	Source    string `json:"source"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// FirstOffset, LastOffset and Records as in the flagged table;
	// Detail is the duplicate class, the gap's cause, or the aborted
	// transaction's producer.
	FirstOffset int64  `json:"first_offset"`
	LastOffset  int64  `json:"last_offset"`
	Records     int64  `json:"records"`
	Detail      string `json:"detail"`
	// Complete: committed past the whole range; CommittedOffset and
	// CommitTimestamp are then of the first commit past its last offset,
	// otherwise of the first past its first offset.
	Complete        bool   `json:"complete"`
	CommittedOffset int64  `json:"committed_offset"`
	CommitTimestamp *int64 `json:"commit_timestamp"`
	// CommitLeaderEpoch is the commit's leader epoch, null when its value
	// has none; ReferenceEpoch, for a replica-divergence gap, the epoch
	// the surviving history holds the offsets in (commits of it or later
	// are not counted).
	CommitLeaderEpoch *int32 `json:"commit_leader_epoch"`
	ReferenceEpoch    *int32 `json:"reference_epoch"`
}

type consumersSummary struct {
	Type       string `json:"type"`
	Inputs     int    `json:"inputs"`
	Commits    int    `json:"commits"`
	Tombstones int    `json:"tombstones"`
	Groups     int    `json:"groups"`
	// GroupRecords counts the GroupMetadata records, Timelines the group
	// and partition pairs with commits.
	GroupRecords int   `json:"group_records"`
	Timelines    int   `json:"timelines"`
	Flagged      int   `json:"flagged_ranges"`
	Consumed     int   `json:"consumed"`
	Findings     int64 `json:"findings"`
	// DamagedCommits counts the commit records of damaged batches, which
	// are listed but never count as consumption.
	DamagedCommits int `json:"damaged_commits"`
}

func runConsumers(cmd *cobra.Command, args []string, o *commonOptions, d *dupOptions, group string) error {
	var groupRE *regexp.Regexp
	if group != "" {
		re, err := regexp.Compile(group)
		if err != nil {
			return usageError{fmt.Errorf("consumers: --group: %w", err)}
		}
		groupRE = re
	}
	topic, inputs, err := o.prepare("consumers", args)
	if err != nil {
		return err
	}
	// --topic chooses the data partitions; __consumer_offsets is read
	// whatever it says, as the commits are the point.
	keepTopic := func(string) bool { return true }
	scanTopic := topic
	if topic != nil {
		keepTopic = topic.MatchString
		scanTopic = regexp.MustCompile("(?:" + topic.String() + ")|^" + regexp.QuoteMeta(topics.ConsumerOffsets.String()) + "$")
	}
	d.terse = true // only the classes and offsets of the copies are used
	det, hasher, err := d.openDetector("consumers", inputs)
	if err != nil {
		return err
	}
	defer det.Close()
	ctx, stop := signalContext(cmd)
	defer stop()
	res, err := analyze(ctx, cmd, "consumers", o, inputs, pipeline.Options{
		Scan:     scan.Config{Compact: true, Topic: scanTopic, TmpDir: d.tmp},
		Detector: det, Hasher: hasher, Attribution: true,
	}, pipeline.Sinks{})
	if err != nil {
		return err
	}
	var later []analysis.DuplicateRow
	if _, err := det.Finish(ctx, res.AnnotateDuplicates(func(rows []analysis.DuplicateRow) error {
		for _, r := range rows {
			if r.Class != "" {
				later = append(later, r)
			}
		}
		return nil
	})); err != nil {
		return interrupted(ctx, "consumers", err)
	}
	keepGroup := func(g string) bool { return groupRE == nil || groupRE.MatchString(g) }
	idx := res.Consumers()
	var flagged []consumers.Flagged
	for _, fs := range [][]consumers.Flagged{idx.DuplicateRanges(later), idx.GapRanges(res.Check.Gaps),
		idx.AbortedRanges(res.Txns.Rows)} {
		for _, f := range fs {
			if keepTopic(f.Topic) && topics.TopicOf(f.Topic) == topics.None {
				flagged = append(flagged, f)
			}
		}
	}
	sources := scan.Sources(inputs)
	var consumed []consumedLine
	for _, im := range idx.Impacts(flagged) {
		if !keepGroup(im.Group) || !keepTopic(im.Topic) {
			continue
		}
		consumed = append(consumed, consumedLine{Type: "consumed", Group: im.Group, What: im.What, Input: im.Input,
			Source: sources[im.Input], Topic: im.Topic, Partition: im.Partition, FirstOffset: im.First, LastOffset: im.Last,
			Records: im.Records, Detail: im.Detail, Complete: im.Complete, CommittedOffset: im.Commit.Offset,
			CommitTimestamp: analysis.Millis(im.Commit.Time), ReferenceEpoch: im.ReferenceEpoch})
		if e := im.Commit.Epoch; e >= 0 {
			consumed[len(consumed)-1].CommitLeaderEpoch = &e
		}
	}
	timelines := buildTimelines(idx, res, func(t *consumers.Timeline) bool { return keepGroup(t.Group) && keepTopic(t.Topic) })
	sum := consumersSummary{Type: "summary", Inputs: len(inputs), Timelines: len(timelines), Flagged: len(flagged),
		Consumed: len(consumed), Findings: res.Scan.Errors + res.Warnings}
	groups := map[string]bool{}
	var commits []analysis.CommitRow
	for _, c := range res.Commits() {
		if keepGroup(c.Group) && keepTopic(c.Topic) {
			commits = append(commits, c)
			groups[c.Group] = true
			if c.Tombstone {
				sum.Tombstones++
			}
			if c.Damaged {
				sum.DamagedCommits++
			}
		}
	}
	var groupRows []analysis.GroupRow
	for _, g := range res.Groups() {
		if keepGroup(g.Group) {
			groupRows = append(groupRows, g)
			groups[g.Group] = true
		}
	}
	sum.Commits, sum.GroupRecords, sum.Groups = len(commits), len(groupRows), len(groups)
	w := cmd.OutOrStdout()
	if o.json {
		err = writeConsumersJSON(w, commits, groupRows, timelines, consumed, &sum)
	} else {
		err = writeConsumersText(w, timelines, consumed, &sum, o.wide)
	}
	if err != nil {
		return err
	}
	return exitStatus(res, o.failOnFindings)
}

// buildTimelines summarises each group's commits per partition, with the
// lag behind the highest end offset any input's copy of the partition
// has.
func buildTimelines(idx *consumers.Index, res *pipeline.Result, keep func(*consumers.Timeline) bool) []timelineLine {
	// The end of a partition is its cluster's: of the copies in log dirs
	// of that cluster, or of every copy when the commits' cluster is
	// unknown.
	type tp struct {
		cluster, topic string
		part           int32
	}
	ends := map[tp]int64{}
	for _, p := range res.Scan.Partitions {
		if p.Last != nil && p.DirState == "" {
			for _, c := range []string{"", res.ClusterOf(p.Input, p.Dir)} {
				k := tp{c, p.Topic, p.Partition}
				ends[k] = max(ends[k], *p.Last+1)
			}
		}
	}
	var out []timelineLine
	for _, t := range idx.Timelines() {
		if !keep(t) {
			continue
		}
		l := timelineLine{Type: "timeline", Cluster: t.Cluster, Group: t.Group, Topic: t.Topic, Partition: t.Partition, Commits: len(t.Commits),
			Resets: t.Resets, Tombstones: t.Tombstones, SkippedTransactional: t.Skipped,
			SkippedDamaged: t.Damaged}
		if n := len(t.Commits); n > 0 {
			first, last := t.Commits[0], t.Last()
			hi := first.Offset
			for _, c := range t.Commits {
				hi = max(hi, c.Offset)
			}
			l.FirstCommitTimestamp, l.LastCommitTimestamp = analysis.Millis(first.Time), analysis.Millis(last.Time)
			l.FirstCommittedOffset, l.LastCommittedOffset, l.MaxCommittedOffset = &first.Offset, &last.Offset, &hi
			if end, ok := ends[tp{t.Cluster, t.Topic, t.Partition}]; ok {
				lag := end - last.Offset
				l.EndOffset, l.Lag = &end, &lag
			}
		}
		out = append(out, l)
	}
	return out
}

type commitLine struct {
	Type string `json:"type"`
	analysis.CommitRow
}

type groupLine struct {
	Type string `json:"type"`
	analysis.GroupRow
}

func writeConsumersJSON(w io.Writer, commits []analysis.CommitRow, groups []analysis.GroupRow, timelines []timelineLine, consumed []consumedLine, sum *consumersSummary) error {
	enc := json.NewEncoder(w)
	for _, c := range commits {
		if err := enc.Encode(commitLine{"commit", c}); err != nil {
			return err
		}
	}
	for _, g := range groups {
		if err := enc.Encode(groupLine{"group", g}); err != nil {
			return err
		}
	}
	for _, t := range timelines {
		if err := enc.Encode(t); err != nil {
			return err
		}
	}
	for _, c := range consumed {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return enc.Encode(sum)
}

func writeConsumersText(w io.Writer, timelines []timelineLine, consumed []consumedLine, s *consumersSummary, wide bool) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%d commit record(s) (%d tombstone(s)) and %d group metadata record(s) of %d consumer group(s) in %d input(s)\n",
		s.Commits, s.Tombstones, s.GroupRecords, s.Groups, s.Inputs)
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
		tt := &textTable{}
		for _, h := range []string{"GROUP", "PARTITION", "COMMITS", "COMMIT TIME (UTC)", "COMMITTED", "LAST", "END", "LAG", "RESETS"} {
			tt.cols = append(tt.cols, column{head: h})
		}
		tt.cols[0].cut, tt.cols[1].cut = cutMiddle, cutMiddle
		tt.cols[3].dates = true
		tt.cols[2].right, tt.cols[5].right, tt.cols[6].right, tt.cols[7].right, tt.cols[8].right = true, true, true, true, true
		tt.cols[8].drop, tt.cols[4].drop = 1, 2
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
			tt.add(group, t.Topic+"-"+strconv.Itoa(int(t.Partition)), strconv.Itoa(t.Commits),
				fmtTimeRange(t.FirstCommitTimestamp, t.LastCommitTimestamp, wide), committedRange(t), fmtOpt(t.LastCommittedOffset),
				fmtOpt(t.EndOffset), fmtOpt(t.Lag), strconv.Itoa(t.Resets))
		}
		if err := tt.write(ew, wide); err != nil {
			return err
		}
	}
	fmt.Fprintln(ew)
	if len(consumed) == 0 {
		fmt.Fprintf(ew, "consumed: no group committed past any of the %d flagged range(s) (duplicate runs, gaps, aborted transactions)\n", s.Flagged)
		return ew.err
	}
	fmt.Fprintf(ew, "consumed, of %d flagged range(s) (duplicate runs, gaps, aborted transactions):\n", s.Flagged)
	for _, c := range consumed {
		fmt.Fprintln(ew, "  "+consumedText(&c))
	}
	return ew.err
}

func committedRange(t timelineLine) string {
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

// consumedText is one consumed line of the text output, e.g.
//
//	group billing, orders-0: duplicate copies 5–6 (2, restart-resend): consumed (committed 7 at 2024-05-01T03:14:07Z)
func consumedText(c *consumedLine) string {
	span := fmt.Sprintf("%d–%d", c.FirstOffset, c.LastOffset)
	if c.FirstOffset == c.LastOffset {
		span = strconv.FormatInt(c.FirstOffset, 10)
	}
	var what string
	switch c.What {
	case consumers.FlaggedDuplicate:
		what = fmt.Sprintf("duplicate copies %s (%d, %s)", span, c.Records, c.Detail)
	case consumers.FlaggedGap:
		what = fmt.Sprintf("gap %s (%s)", span, c.Detail)
	default:
		what = fmt.Sprintf("aborted transaction %s (%s)", span, c.Detail)
	}
	verdict := "consumed"
	switch {
	case c.What != consumers.FlaggedDuplicate:
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
		c.CommittedOffset, consumers.FormatTime(ts))
	if c.What == consumers.FlaggedAborted {
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
