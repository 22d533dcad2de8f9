package pipeline

import (
	"context"
	"regexp"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/consumers"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// What a flagged range is (ConsumedLine.What).
const (
	FlaggedDuplicate = consumers.FlaggedDuplicate
	FlaggedGap       = consumers.FlaggedGap
	FlaggedAborted   = consumers.FlaggedAborted
)

// FormatTime is a commit's time as the consumers report says it.
func FormatTime(ms int64) string { return consumers.FormatTime(ms) }

// consumersTopic is the topic filter of the consumers command's scan: the
// data partitions it keeps, and __consumer_offsets whatever it says, as
// the commits are the point.
func consumersTopic(topic *regexp.Regexp) *regexp.Regexp {
	if topic == nil {
		return nil
	}
	return regexp.MustCompile("(?:" + topic.String() + ")|^" + regexp.QuoteMeta(topics.ConsumerOffsets.String()) + "$")
}

// ConsumersReport is what the consumers command prints: the commits and
// group records of the groups and topics asked for, each group's commits
// per partition, and the groups that committed past a flagged range
// (duplicate runs, gaps, aborted transactions).
type ConsumersReport struct {
	Commits   []analysis.CommitRow
	Groups    []analysis.GroupRow
	Timelines []TimelineLine
	Consumed  []ConsumedLine
	Summary   ConsumersSummary
}

// TimelineLine is one group's commits for one partition.
type TimelineLine struct {
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
	// FlaggedAhead counts the flagged ranges of the partition the group
	// has yet to read in full: they end at or past its last committed
	// offset, so its lag holds them.
	FlaggedAhead int `json:"flagged_ahead"`
}

// ConsumedLine is a group that committed past a flagged range.
type ConsumedLine struct {
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

// ConsumersSummary counts what the consumers report holds.
type ConsumersSummary struct {
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
	analysis.CrashedCopies
}

// Consumers finishes the duplicate detector of a Consumers plan and says
// which groups (group, nil: all) consumed what of the topics (topic, nil:
// all) of the inputs.
func (r *Result) Consumers(ctx context.Context, det *dups.Detector, inputs []*source.Input, topic, group *regexp.Regexp) (*ConsumersReport, error) {
	var later []analysis.DuplicateRow
	if _, err := det.Finish(ctx, r.AnnotateDuplicates(func(rows []analysis.DuplicateRow) error {
		for _, d := range rows {
			if d.Class != "" {
				later = append(later, d)
			}
		}
		return nil
	})); err != nil {
		return nil, err
	}
	keepTopic := func(t string) bool { return topic == nil || topic.MatchString(t) }
	keepGroup := func(g string) bool { return group == nil || group.MatchString(g) }
	idx := r.consIdx
	var flagged []consumers.Flagged
	for _, fs := range [][]consumers.Flagged{idx.DuplicateRanges(later), idx.GapRanges(r.Check.Gaps), idx.AbortedRanges(r.Txns.Rows)} {
		for _, f := range fs {
			if keepTopic(f.Topic) && topics.TopicOf(f.Topic) == topics.None {
				flagged = append(flagged, f)
			}
		}
	}
	rep := &ConsumersReport{Consumed: consumedLines(idx.Impacts(flagged), Sources(inputs), keepGroup, keepTopic)}
	rep.Timelines = buildTimelines(idx, r, func(t *consumers.Timeline) bool { return keepGroup(t.Group) && keepTopic(t.Topic) })
	r.flaggedAhead(rep.Timelines, flagged)
	sum := &rep.Summary
	*sum = ConsumersSummary{Type: "summary", Inputs: len(inputs), Timelines: len(rep.Timelines), Flagged: len(flagged),
		Consumed: len(rep.Consumed), Findings: r.Scan.Errors + r.Warnings, CrashedCopies: r.Crashed()}
	groups := map[string]bool{}
	for _, c := range r.Commits() {
		if keepGroup(c.Group) && keepTopic(c.Topic) {
			rep.Commits = append(rep.Commits, c)
			groups[c.Group] = true
			if c.Tombstone {
				sum.Tombstones++
			}
			if c.Damaged {
				sum.DamagedCommits++
			}
		}
	}
	for _, g := range r.Groups() {
		if keepGroup(g.Group) {
			rep.Groups = append(rep.Groups, g)
			groups[g.Group] = true
		}
	}
	sum.Commits, sum.GroupRecords, sum.Groups = len(rep.Commits), len(rep.Groups), len(groups)
	return rep, nil
}

// flaggedAhead counts, for each timeline, the flagged ranges of its
// partition and cluster that end at or past its last committed offset.
func (r *Result) flaggedAhead(timelines []TimelineLine, flagged []consumers.Flagged) {
	type tp struct {
		topic string
		part  int32
	}
	byPart := map[tp][]*consumers.Flagged{}
	for i := range flagged {
		f := &flagged[i]
		byPart[tp{f.Topic, f.Partition}] = append(byPart[tp{f.Topic, f.Partition}], f)
	}
	for i := range timelines {
		t := &timelines[i]
		if t.LastCommittedOffset == nil {
			continue
		}
		for _, f := range byPart[tp{t.Topic, t.Partition}] {
			if f.Last >= *t.LastCommittedOffset && (t.Cluster == "" || r.ClusterOf(f.Input, f.Dir) == t.Cluster) {
				t.FlaggedAhead++
			}
		}
	}
}

// consumedLines are the groups that committed past flagged ranges.
func consumedLines(impacts []consumers.Impact, sources []string, keepGroup, keepTopic func(string) bool) []ConsumedLine {
	var consumed []ConsumedLine
	for _, im := range impacts {
		if !keepGroup(im.Group) || !keepTopic(im.Topic) {
			continue
		}
		consumed = append(consumed, ConsumedLine{Type: "consumed", Group: im.Group, What: im.What, Input: im.Input,
			Source: sources[im.Input], Topic: im.Topic, Partition: im.Partition, FirstOffset: im.First, LastOffset: im.Last,
			Records: im.Records, Detail: im.Detail, Complete: im.Complete, CommittedOffset: im.Commit.Offset,
			CommitTimestamp: analysis.Millis(im.Commit.Time), ReferenceEpoch: im.ReferenceEpoch})
		if e := im.Commit.Epoch; e >= 0 {
			consumed[len(consumed)-1].CommitLeaderEpoch = &e
		}
	}
	return consumed
}

// buildTimelines summarises each group's commits per partition, with the
// lag behind the highest end offset any input's copy of the partition
// has.
func buildTimelines(idx *consumers.Index, res *Result, keep func(*consumers.Timeline) bool) []TimelineLine {
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
	var out []TimelineLine
	for _, t := range idx.Timelines() {
		if !keep(t) {
			continue
		}
		l := TimelineLine{Type: "timeline", Cluster: t.Cluster, Group: t.Group, Topic: t.Topic, Partition: t.Partition, Commits: len(t.Commits),
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
