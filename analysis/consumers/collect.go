// Package consumers reads what __consumer_offsets says about the consumer
// groups: every offset commit (commits.parquet) and every classic group's
// metadata (groups.parquet), and from the commits which groups read past
// an offset, and when. That is the consumer impact of a duplicate copy, a
// gap of the loss ledger or an aborted transaction: a group that
// committed an offset above it had processed it, as far as its commits
// tell; a group that never did has no evidence of having read it.
package consumers

import (
	"errors"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// Collector turns the record rows of __consumer_offsets into commit and
// group rows, in the order it is given them (the scan's file order).
type Collector struct {
	commits   []analysis.CommitRow
	groups    []analysis.GroupRow
	anomalies []analysis.AnomalyRow
	// names holds one copy of each group id and topic name: a busy
	// group's commits repeat them millions of times.
	names map[string]string
}

func (c *Collector) intern(s string) string {
	if v, ok := c.names[s]; ok {
		return v
	}
	if c.names == nil {
		c.names = map[string]string{}
	}
	c.names[s] = s
	return s
}

// New returns an empty collector.
func New() *Collector { return &Collector{} }

// Add takes streamed record rows; rows of other topics than
// __consumer_offsets and control records are ignored. The rows of
// __consumer_offsets carry their key and value (package scan fills them
// for the internal topics).
func (c *Collector) Add(rows []analysis.PayloadRecordRow) {
	last, is := "", false
	for i := range rows {
		r := &rows[i]
		if r.Topic != last {
			last, is = r.Topic, topics.TopicOf(r.Topic) == topics.ConsumerOffsets
		}
		if !is || r.IsControl {
			continue
		}
		c.add(r)
	}
}

func (c *Collector) add(r *analysis.PayloadRecordRow) {
	k, err := topics.DecodeGroupKey(r.Key)
	if !c.usable(r, err) {
		return
	}
	switch {
	case k.Type <= topics.GroupTypeOffsetCommit:
		v, err := topics.DecodeOffsetCommitValue(r.Value)
		if !c.usable(r, err) {
			return
		}
		row := commitRow(r, k, v)
		row.Group, row.Topic = c.intern(row.Group), c.intern(row.Topic)
		c.commits = append(c.commits, row)
	case k.Type == topics.GroupTypeGroupMetadata:
		v, err := topics.DecodeGroupMetadataValue(r.Value)
		if !c.usable(r, err) {
			return
		}
		row := groupRow(r, k, v)
		row.Group = c.intern(row.Group)
		c.groups = append(c.groups, row)
	}
}

func commitRow(r *analysis.PayloadRecordRow, k *topics.GroupKey, v *topics.OffsetCommitValue) analysis.CommitRow {
	row := analysis.CommitRow{Input: r.Input, Group: k.Group, Topic: *k.Topic, Partition: *k.Partition,
		Tombstone: v == nil, KeyVersion: int32(k.Type), LogPartition: r.Partition, File: r.Segment,
		Position: r.BatchPosition, Offset: r.Offset, Timestamp: copyTime(r.Timestamp), TxnState: r.TxnState,
		Damaged: r.Damaged}
	if v == nil {
		return row
	}
	off, ver := v.Offset, int32(v.Version)
	row.CommittedOffset, row.ValueVersion, row.Metadata = &off, &ver, v.Metadata
	if v.LeaderEpoch >= 0 {
		e := v.LeaderEpoch
		row.LeaderEpoch = &e
	}
	row.CommitTimestamp = analysis.Millis(v.CommitTimestamp)
	row.ExpireTimestamp = analysis.Millis(v.ExpireTimestamp)
	return row
}

func groupRow(r *analysis.PayloadRecordRow, k *topics.GroupKey, v *topics.GroupMetadataValue) analysis.GroupRow {
	row := analysis.GroupRow{Input: r.Input, Group: k.Group, Tombstone: v == nil, Members: []analysis.GroupMemberRow{},
		LogPartition: r.Partition, File: r.Segment, Position: r.BatchPosition, Offset: r.Offset, Timestamp: copyTime(r.Timestamp),
		Damaged: r.Damaged}
	if v == nil {
		return row
	}
	ver, gen := int32(v.Version), v.Generation
	row.ValueVersion, row.Generation, row.ProtocolType = &ver, &gen, v.ProtocolType
	row.Protocol, row.Leader = v.Protocol, v.Leader
	row.CurrentStateTimestamp = analysis.Millis(v.CurrentStateTimestamp)
	for _, m := range v.Members {
		mr := analysis.GroupMemberRow{MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, ClientID: m.ClientID,
			ClientHost: m.ClientHost, SessionTimeoutMs: m.SessionTimeout,
			SubscriptionSize: int32(m.SubscriptionSize), AssignmentSize: int32(m.AssignmentSize)}
		if m.RebalanceTimeout >= 0 {
			t := m.RebalanceTimeout
			mr.RebalanceTimeoutMs = &t
		}
		row.Members = append(row.Members, mr)
	}
	return row
}

// copyTime copies a row's timestamp: the scan's points into a slab of
// many rows' timestamps, which one kept pointer would keep alive.
func copyTime(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// usable reports whether a decoded key or value makes a row: it decoded,
// or only bytes after its last field were left over, which Kafka ignores
// as it reads both by their schema (the broker applied that commit). Any
// other error is a finding, and the row is left out rather than filled
// from a guess.
func (c *Collector) usable(r *analysis.PayloadRecordRow, err error) bool {
	if err == nil {
		return true
	}
	c.finding(r, err)
	return errors.Is(err, topics.ErrTrailing)
}

// finding records a record that does not decode, with the kinds the
// attribution gives the other internal topics' records.
func (c *Collector) finding(r *analysis.PayloadRecordRow, err error) {
	w := finding.Where{Input: r.Input, Topic: r.Topic, Partition: r.Partition, File: r.Segment}
	c.anomalies = append(c.anomalies, finding.FromDecode(w, topics.Kind(err), r.BatchPosition, r.Offset, err))
}

// Commits are the commit rows, with source filled from sources (by
// input).
func (c *Collector) Commits(sources []string) []analysis.CommitRow {
	for i := range c.commits {
		if in := c.commits[i].Input; int(in) < len(sources) {
			c.commits[i].Source = sources[in]
		}
	}
	return c.commits
}

// Groups are the group rows, as Commits.
func (c *Collector) Groups(sources []string) []analysis.GroupRow {
	for i := range c.groups {
		if in := c.groups[i].Input; int(in) < len(sources) {
			c.groups[i].Source = sources[in]
		}
	}
	return c.groups
}

// Findings are the records that did not decode.
func (c *Collector) Findings() []analysis.AnomalyRow { return c.anomalies }

// Index is the commits' timeline, for the questions of Impact; cluster
// as in NewIndex.
func (c *Collector) Index(cluster func(input int32, dir string) string) *Index {
	return NewIndex(c.commits, cluster)
}
