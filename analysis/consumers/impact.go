package consumers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
)

// What a flagged range is.
const (
	FlaggedDuplicate = "duplicate" // later copies of a duplicate group
	FlaggedGap       = "gap"       // a range of the loss ledger
	FlaggedAborted   = "aborted"   // the records of an aborted transaction
)

// Flagged is an offset range another table flags: a run of later
// duplicate copies, a gap, an aborted transaction.
type Flagged struct {
	What  string
	Input int32
	// Dir is the partition dir of the copy, within its input: its log
	// dir names the cluster whose commits count.
	Dir       string
	Topic     string
	Partition int32
	// First and Last bound the range (Last = First when its end is
	// unknown); Records is how many records it holds where known.
	First, Last int64
	Records     int64
	// Detail is the duplicate class, the gap's cause, or the producer of
	// the aborted transaction ("PID 2000 epoch 0").
	Detail string
	// ReferenceEpoch, for records a replica lost by divergence, is the
	// leader epoch in which the partition's surviving history holds the
	// range's offsets: commits of that epoch or later read those records,
	// not the lost ones, and do not count.
	ReferenceEpoch *int32
}

// Impact is a group that committed past the start of a flagged range.
type Impact struct {
	Flagged
	Group string
	// Complete: the group committed past the whole range, and Commit is
	// the first commit past its last offset; otherwise only past some of
	// it, and Commit is the first commit past its first offset.
	Complete bool
	Commit   Commit
}

// Impacts lists, for every flagged range, the groups that committed past
// its first offset, in the order of fs and then by group.
func (x *Index) Impacts(fs []Flagged) []Impact {
	if x == nil {
		return nil
	}
	var out []Impact
	for _, f := range fs {
		first := (*Timeline).First
		if f.ReferenceEpoch != nil {
			e := *f.ReferenceEpoch
			first = func(t *Timeline, offset int64) (Commit, bool) { return t.FirstBefore(offset, e) }
		}
		for _, t := range x.of(f.Input, f.Dir, f.Topic, f.Partition) {
			c, ok := first(t, f.First)
			if !ok {
				continue
			}
			im := Impact{Flagged: f, Group: t.Group, Commit: c}
			if full, ok := first(t, max(f.First, f.Last)); ok {
				im.Complete, im.Commit = true, full
			}
			out = append(out, im)
		}
	}
	return out
}

// DuplicateRanges merges the later copies of rows into ranges of
// consecutive offsets of one class in one partition copy. A range that
// another copy of the partition in the same cluster repeats is listed
// once. x may be nil (clusters unknown).
func (x *Index) DuplicateRanges(rows []analysis.DuplicateRow) []Flagged {
	later := make([]*analysis.DuplicateRow, 0, len(rows))
	for i := range rows {
		if rows[i].Class != "" {
			later = append(later, &rows[i])
		}
	}
	slices.SortFunc(later, func(a, b *analysis.DuplicateRow) int {
		return cmp.Or(cmp.Compare(a.Input, b.Input), strings.Compare(a.Dir, b.Dir), strings.Compare(a.Topic, b.Topic),
			cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
	var out []Flagged
	for _, r := range later {
		if n := len(out); n > 0 {
			l := &out[n-1]
			if l.Input == r.Input && l.Dir == r.Dir && l.Topic == r.Topic && l.Partition == r.Partition && l.Detail == r.Class && r.Offset <= l.Last+1 {
				l.Last = max(l.Last, r.Offset)
				l.Records++
				continue
			}
		}
		out = append(out, Flagged{What: FlaggedDuplicate, Input: r.Input, Dir: r.Dir, Topic: r.Topic, Partition: r.Partition,
			First: r.Offset, Last: r.Offset, Records: 1, Detail: r.Class})
	}
	return x.once(out)
}

// GapRanges are the ranges of the loss ledger, as DuplicateRanges.
func (x *Index) GapRanges(gaps []analysis.GapRow) []Flagged {
	var out []Flagged
	for _, g := range gaps {
		f := Flagged{What: FlaggedGap, Input: g.Input, Dir: g.Dir, Topic: g.Topic, Partition: g.Partition, First: g.FirstOffset,
			Last: g.FirstOffset, Detail: g.Cause, ReferenceEpoch: g.ReferenceEpoch}
		if g.LastOffset != nil {
			f.Last = *g.LastOffset
			f.Records = f.Last - f.First + 1
		}
		out = append(out, f)
	}
	return x.once(out)
}

// AbortedRanges are the aborted transactions that wrote data: from the
// first data batch to the ABORT marker, as DuplicateRanges.
func (x *Index) AbortedRanges(rows []analysis.PartitionTxnRow) []Flagged {
	var out []Flagged
	for _, r := range rows {
		if r.EndMarker != "ABORT" || r.Empty || r.EndOffset == nil {
			continue
		}
		out = append(out, Flagged{What: FlaggedAborted, Input: r.Input, Dir: r.Dir, Topic: r.Topic, Partition: r.Partition,
			First: r.FirstOffset, Last: *r.EndOffset, Records: r.Records,
			Detail: fmt.Sprintf("PID %d epoch %d", r.ProducerID, r.ProducerEpoch)})
	}
	return x.once(out)
}

// once drops the ranges that an earlier one of another copy of the
// partition in the same cluster repeats: commits name a partition of a
// cluster, not a broker's copy of it. Another cluster's range of the
// same offsets is another partition's.
func (x *Index) once(fs []Flagged) []Flagged {
	type key struct {
		what, topic, detail, cluster string
		partition                    int32
		first, last                  int64
	}
	seen := map[key]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := key{f.What, f.Topic, f.Detail, x.clusterOf(f.Input, f.Dir), f.Partition, f.First, f.Last}
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}
