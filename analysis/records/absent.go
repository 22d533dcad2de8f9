package records

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Absent is a part of the --offsets range that a partition dir of the
// inputs does not hold: no intact batch read there covers it. It is said
// so that a selection finding nothing is never silent; why the offsets
// are gone (retention, compaction, damage, a checkpoint ahead of the
// data) is the loss ledger's to tell, in verify.
type Absent struct {
	Input     int32
	Dir       string // the partition dir, relative to the input ("." for the input itself)
	Topic     string
	Partition int32 // -1 for segments outside a partition dir
	// First and Last are the offsets not on disk (an open end of the
	// range stays open: math.MinInt64 or math.MaxInt64).
	First, Last int64
	// Before and After are the nearest offsets on disk read around them,
	// -1 for none; After is a segment's base offset with NextSegment (a
	// segment past the range is not read). Empty says no batch was read
	// in the dir at all.
	Before, After int64
	NextSegment   bool
	Empty         bool
	// Damaged says the reader reported findings in the dir.
	Damaged bool
}

// Range is the absent offsets as a Range.
func (a Absent) Range() Range { return Range{a.First, a.Last} }

// Why says where the absent offsets lie, in words.
func (a Absent) Why() string {
	var s string
	switch {
	case a.Empty:
		s = "no batch was read there"
	case a.After >= 0 && a.NextSegment:
		s = fmt.Sprintf("the next segment starts at offset %d", a.After)
		if a.Before >= 0 {
			s = fmt.Sprintf("the batches before them end at offset %d, and %s", a.Before, s)
		}
	case a.Before >= 0 && a.After >= 0:
		s = fmt.Sprintf("no intact batch holds them: the batches around them end at offset %d and start at offset %d", a.Before, a.After)
	case a.Before >= 0:
		s = fmt.Sprintf("the last batch on disk ends at offset %d", a.Before)
	default:
		s = fmt.Sprintf("the first batch on disk after them starts at offset %d", a.After)
	}
	if a.Damaged {
		s += "; the findings reported there say what is damaged"
	}
	return s
}

// maxSpans bounds the spans kept per partition dir; a compacted one can
// have a gap between every two batches. Past it the dir is not judged.
const maxSpans = 1 << 16

// cover is what the read of one partition dir found of the offset range:
// the spans of offsets held by intact batches and by records handed over.
type cover struct {
	Absent
	spans   [][2]int64
	over    bool
	later   int64 // base offset of the first segment not read for being past the range, -1 none
	visited bool
}

// coverKey names a partition dir of an input.
type coverKey struct {
	input int
	dir   string
}

// judging reports whether the run says which offsets are absent: only
// for a selection by offsets without a time window (a .timeindex passes
// over offsets on disk that are older than --since).
func (r *run) judging() bool {
	return !r.o.Offsets.IsAll() && r.o.Window.IsAlways()
}

// coverFor returns the cover of the partition dir of entry e, made on
// first use.
func (r *run) coverFor(in int, e *source.Entry) *cover {
	if !r.judging() {
		return nil
	}
	k := coverKey{in, analysis.PartitionDir(e.Path)}
	if c := r.covers[k]; c != nil {
		return c
	}
	if r.covers == nil {
		r.covers = map[coverKey]*cover{}
	}
	c := &cover{Absent: Absent{Input: int32(in), Dir: k.dir, Partition: -1}, later: -1}
	if e.Partition != nil {
		c.Topic, c.Partition = e.Partition.Topic, e.Partition.Partition
	}
	r.covers[k] = c
	r.coverOrder = append(r.coverOrder, c)
	return c
}

// hold notes that offsets first..last are on disk.
func (c *cover) hold(first, last int64) {
	if c == nil || c.over {
		return
	}
	if n := len(c.spans); n > 0 && first >= c.spans[n-1][0] && first <= c.spans[n-1][1]+1 {
		c.spans[n-1][1] = max(c.spans[n-1][1], last)
		return
	}
	if len(c.spans) >= maxSpans {
		c.over = true
		return
	}
	c.spans = append(c.spans, [2]int64{first, last})
}

// passed notes a segment not read because its base offset is past the
// range.
func (c *cover) passed(base int64) {
	if c != nil && (c.later < 0 || base < c.later) {
		c.later = base
	}
}

// absent lists the parts of the range each partition dir does not hold.
// An open end of the range is judged only when the dir holds nothing of
// the range at all: past the last offset on disk is not missing.
func (r *run) absent() []Absent {
	var out []Absent
	rg := r.o.Offsets
	for _, c := range r.coverOrder {
		if c.over || !c.visited && c.later < 0 {
			continue
		}
		slices.SortFunc(c.spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		c.Empty = len(c.spans) == 0 && c.later < 0
		from, to := rg.From, rg.To
		inRange := false
		for _, s := range c.spans {
			if s[1] >= rg.From && s[0] <= rg.To {
				inRange = true
			}
		}
		if inRange {
			// Open ends are clipped to what the dir holds.
			if from == math.MinInt64 && len(c.spans) > 0 {
				from = max(from, c.spans[0][0])
			}
			if to == math.MaxInt64 {
				to = math.MinInt64
				for _, s := range c.spans {
					to = max(to, s[1])
				}
			}
		}
		before := int64(-1)
		at, full := from, false
		gap := func(first, last, after int64, seg bool) {
			a := c.Absent
			a.First, a.Last, a.Before, a.After, a.NextSegment = first, last, before, after, seg
			out = append(out, a)
		}
		for _, s := range c.spans {
			if s[1] < at {
				before = max(before, s[1])
				continue
			}
			if s[0] > to {
				break
			}
			if s[0] > at {
				gap(at, s[0]-1, s[0], false)
			}
			before = max(before, s[1])
			if s[1] == math.MaxInt64 {
				full = true
				break
			}
			at = s[1] + 1
		}
		if !full && at <= to {
			after, seg := int64(-1), false
			for _, s := range c.spans {
				if s[0] > to {
					after = s[0]
					break
				}
			}
			if after < 0 && c.later >= 0 {
				after, seg = c.later, true
			}
			gap(at, to, after, seg)
		}
	}
	return out
}
