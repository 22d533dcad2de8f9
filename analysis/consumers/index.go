package consumers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
)

// Commit is one applied commit of a group to a partition.
type Commit struct {
	// Offset is the committed offset: the next one the group reads, so it
	// had processed every record below it.
	Offset int64
	// Time is the commit timestamp, -1 when the value has none.
	Time int64
	// Where the record is: its input, __consumer_offsets partition and
	// offset there.
	Input        int32
	LogPartition int32
	LogOffset    int64
	// Epoch is the leader epoch of the last record the group consumed
	// (OffsetCommit value v3 on), -1 when the value has none.
	Epoch int32
}

// Timeline is what one group committed for one partition of one cluster,
// in time order.
type Timeline struct {
	// Cluster is the cluster.id of the log dirs the commits were read
	// from, "" when unknown (see NewIndex).
	Cluster   string
	Group     string
	Topic     string
	Partition int32
	// Commits are the applied commits (not tombstones, not aborted or
	// open transactional commits, not of damaged batches), ordered by commit timestamp, then by
	// their place in __consumer_offsets; a record read from several
	// copies of a __consumer_offsets partition counts once.
	Commits []Commit
	// Tombstones counts the deletions of the group's offset for the
	// partition (expiry, group deletion); Skipped the transactional
	// commits not applied (aborted, or open at the end of the input).
	Tombstones, Skipped int
	// Damaged counts the commits of damaged batches, which are left out:
	// their bytes are not verified.
	Damaged int
	// Resets counts the commits below the one before: the group went
	// back (an offset reset, a seek), and may have read records again.
	Resets int
	// reach[i] is the largest committed offset of Commits[:i+1].
	reach []int64
}

// First returns the first commit past offset (its committed offset is
// above it), or false when the group never committed past it.
func (t *Timeline) First(offset int64) (Commit, bool) {
	i, _ := slices.BinarySearchFunc(t.reach, offset, func(r, o int64) int {
		if r > o {
			return 1
		}
		return -1
	})
	if i == len(t.reach) {
		return Commit{}, false
	}
	return t.Commits[i], true
}

// FirstBefore is First among the commits of an epoch below epoch or of
// no known epoch: a commit of a later epoch says the group read that
// epoch's records at its offsets.
func (t *Timeline) FirstBefore(offset int64, epoch int32) (Commit, bool) {
	for _, c := range t.Commits {
		if c.Offset > offset && c.Epoch < epoch {
			return c, true
		}
	}
	return Commit{}, false
}

// Last is the group's latest commit.
func (t *Timeline) Last() Commit { return t.Commits[len(t.Commits)-1] }

type topicPart struct {
	topic     string
	partition int32
}

// Index holds the timelines of every group and partition.
type Index struct {
	byPart  map[topicPart][]*Timeline // by group name
	all     []*Timeline               // by group, topic, partition
	cluster func(input int32, dir string) string
}

// NewIndex builds the timelines from commit rows. cluster, when not nil,
// names the cluster of a partition dir of an input (its log dir's
// cluster.id, "" when unknown): a group's commits apply to a partition of
// its own cluster only, as two clusters' topics of one name are not one
// topic, even when one input holds both clusters' log dirs. Commits and
// ranges of a log dir of unknown cluster are matched with every
// cluster's.
func NewIndex(rows []analysis.CommitRow, cluster func(input int32, dir string) string) *Index {
	if cluster == nil {
		cluster = func(int32, string) string { return "" }
	}
	type key struct {
		cluster, group, topic string
		partition             int32
	}
	lines := map[key]*Timeline{}
	type seenKey struct {
		key
		c Commit
	}
	seen := map[seenKey]bool{}
	for i := range rows {
		r := &rows[i]
		k := key{cluster(r.Input, analysis.PartitionDir(r.File)), r.Group, r.Topic, r.Partition}
		t := lines[k]
		if t == nil {
			t = &Timeline{Cluster: k.cluster, Group: r.Group, Topic: r.Topic, Partition: r.Partition}
			lines[k] = t
		}
		switch {
		case r.Tombstone || r.CommittedOffset == nil:
			t.Tombstones++
			continue
		case r.TxnState == "aborted" || r.TxnState == "open":
			t.Skipped++
			continue
		case r.Damaged:
			t.Damaged++
			continue
		}
		c := Commit{Offset: *r.CommittedOffset, Time: -1, LogPartition: r.LogPartition, LogOffset: r.Offset, Epoch: -1}
		if r.LeaderEpoch != nil {
			c.Epoch = *r.LeaderEpoch
		}
		if r.CommitTimestamp != nil {
			c.Time = *r.CommitTimestamp
		}
		// The same record in another broker's copy of the partition.
		if sk := (seenKey{k, c}); !seen[sk] {
			seen[sk] = true
			c.Input = r.Input
			t.Commits = append(t.Commits, c)
		}
	}
	x := &Index{byPart: map[topicPart][]*Timeline{}, cluster: cluster}
	for _, t := range lines {
		slices.SortStableFunc(t.Commits, func(a, b Commit) int {
			return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.LogPartition, b.LogPartition),
				cmp.Compare(a.LogOffset, b.LogOffset), cmp.Compare(a.Input, b.Input))
		})
		t.reach = make([]int64, len(t.Commits))
		for i, c := range t.Commits {
			t.reach[i] = c.Offset
			if i > 0 {
				t.reach[i] = max(c.Offset, t.reach[i-1])
				if c.Offset < t.Commits[i-1].Offset {
					t.Resets++
				}
			}
		}
		x.all = append(x.all, t)
	}
	slices.SortFunc(x.all, func(a, b *Timeline) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition),
			strings.Compare(a.Cluster, b.Cluster))
	})
	for _, t := range x.all {
		p := topicPart{t.Topic, t.Partition}
		x.byPart[p] = append(x.byPart[p], t)
	}
	return x
}

// clusterOf is the cluster of the partition dir dir of input, "" when
// unknown.
func (x *Index) clusterOf(input int32, dir string) string {
	if x == nil {
		return ""
	}
	return x.cluster(input, dir)
}

// of returns the timelines of a partition that apply to the copy of it in
// the partition dir dir of input: those of its cluster, or of every
// cluster when either is unknown.
func (x *Index) of(input int32, dir, topic string, partition int32) []*Timeline {
	ts := x.byPart[topicPart{topic, partition}]
	c := x.cluster(input, dir)
	if c == "" {
		return ts
	}
	var out []*Timeline
	for _, t := range ts {
		if t.Cluster == "" || t.Cluster == c {
			out = append(out, t)
		}
	}
	return out
}

// Timelines are every group's timeline per partition, by group, topic,
// partition and cluster.
func (x *Index) Timelines() []*Timeline {
	if x == nil {
		return nil
	}
	return x.all
}

// Empty reports whether the index holds no commit.
func (x *Index) Empty() bool { return x == nil || len(x.all) == 0 }

// Consumption is a group that committed past an offset, with the first
// commit that did.
type Consumption struct {
	Group  string
	Commit Commit
}

// ConsumedPast lists, by group name, the groups that committed past
// offset of the copy of the partition in the partition dir dir of input
// (a committed offset above it) and the first such commit of each. A
// commit of exactly offset does not count: it says offset is the next
// record to read.
func (x *Index) ConsumedPast(input int32, dir, topic string, partition int32, offset int64) []Consumption {
	if x == nil {
		return nil
	}
	var out []Consumption
	for _, t := range x.of(input, dir, topic, partition) {
		if c, ok := t.First(offset); ok {
			out = append(out, Consumption{Group: t.Group, Commit: c})
		}
	}
	return out
}

// Groups names the groups of cs.
func Groups(cs []Consumption) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Group
	}
	return out
}

// Text says who consumed an offset range of the copy of a partition in
// the partition dir dir of input, e.g. "consumed by group billing
// (committed 1234 at 2024-05-01T03:14:07Z)": for each group that
// committed past first, its first commit past last, or, when it never
// got past last, its first commit past first ("partly consumed by").
// Empty when no group committed past first.
func (x *Index) Text(input int32, dir, topic string, partition int32, first, last int64) string {
	if x == nil {
		return ""
	}
	var all, part []string
	for _, t := range x.of(input, dir, topic, partition) {
		c, ok := t.First(first)
		if !ok {
			continue
		}
		if full, ok := t.First(max(first, last)); ok {
			all = append(all, commitText(t.Group, full))
		} else {
			part = append(part, commitText(t.Group, c))
		}
	}
	var s []string
	if len(all) > 0 {
		s = append(s, "consumed by "+strings.Join(all, ", "))
	}
	if len(part) > 0 {
		s = append(s, "partly consumed by "+strings.Join(part, ", "))
	}
	return strings.Join(s, "; ")
}

func commitText(group string, c Commit) string {
	return fmt.Sprintf("group %s (committed %d at %s)", group, c.Offset, FormatTime(c.Time))
}

// FormatTime writes a commit timestamp as the commands do: RFC 3339 in
// UTC to the second, "-" when there is none.
func FormatTime(ms int64) string {
	if ms < 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05Z")
}
