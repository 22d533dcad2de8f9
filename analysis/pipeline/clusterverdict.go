package pipeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/brokerlog"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// ClusterFacts are what the cluster verdicts are judged from: the copies'
// own verdicts and loss ledger, the replica comparison's rows and the
// cluster's events. Broker and Cluster name a copy's log dir's broker id
// (nil: unknown) and cluster.id ("" when unknown); either may be nil.
type ClusterFacts struct {
	Copies   []analysis.Verdict
	Gaps     []analysis.GapRow
	Replicas []analysis.ReplicaRow
	Events   []analysis.ClusterEventRow
	Broker   func(input int32, dir string) *int32
	Cluster  func(input int32, dir string) string
}

// copyKey names one copy: its input and partition dir.
type copyKey struct {
	input int32
	dir   string
}

// partitionKey names a partition across copies: copies of one cluster's
// topic-partition are one partition, whatever broker holds them.
type partitionKey struct {
	cluster, topic string
	part           int32
}

// ClusterVerdicts judges every topic-partition across all its copies, in
// (cluster, topic, partition) order. Pure: it reads only its facts.
func ClusterVerdicts(f ClusterFacts) []analysis.ClusterVerdict {
	gaps := map[copyKey][]analysis.GapRow{}
	for _, g := range f.Gaps {
		k := copyKey{g.Input, g.Dir}
		gaps[k] = append(gaps[k], g)
	}
	reps := map[copyKey]*analysis.ReplicaRow{}
	for i := range f.Replicas {
		r := &f.Replicas[i]
		reps[copyKey{r.Input, r.Dir}] = r
	}
	groups := map[partitionKey][]*analysis.Verdict{}
	var keys []partitionKey
	for i := range f.Copies {
		v := &f.Copies[i]
		k := partitionKey{topic: v.Topic, part: v.Partition}
		if f.Cluster != nil {
			k.cluster = f.Cluster(v.Input, v.Dir)
		}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], v)
	}
	slices.SortFunc(keys, func(a, b partitionKey) int {
		return cmp.Or(cmp.Compare(a.cluster, b.cluster), cmp.Compare(a.topic, b.topic), cmp.Compare(a.part, b.part))
	})
	out := make([]analysis.ClusterVerdict, 0, len(keys))
	for _, k := range keys {
		cv := analysis.ClusterVerdict{Cluster: k.cluster, Topic: k.topic, Partition: k.part,
			LostRanges: []analysis.ClusterLoss{}, Events: partitionEvents(f.Events, k)}
		var held [][]analysis.OffsetRange
		var losses []analysis.GapRow
		for _, v := range groups[k] {
			ck := copyKey{v.Input, v.Dir}
			c, h := judgeCopy(v, gaps[ck], reps[ck])
			if f.Broker != nil {
				c.Broker = f.Broker(v.Input, v.Dir)
			}
			cv.Copies = append(cv.Copies, c)
			held = append(held, h)
			for _, g := range gaps[ck] {
				if finding.Counts(g.Severity) {
					losses = append(losses, g)
				}
			}
		}
		judgeCluster(&cv, held, losses)
		out = append(out, cv)
	}
	return out
}

// partitionEvents are the events of the partition that bear on a loss:
// an unclean election (a leader from outside the ISR and the eligible
// leader replicas, or in leader recovery state RECOVERING, from the KRaft
// metadata log or a broker's log) and a broker's log truncation.
func partitionEvents(events []analysis.ClusterEventRow, k partitionKey) []analysis.ClusterEventRow {
	out := []analysis.ClusterEventRow{}
	for _, e := range events {
		if e.Topic == nil || *e.Topic != k.topic || e.Partition == nil || *e.Partition != k.part {
			continue
		}
		if e.Kind == cluster.EventUncleanElection || e.Kind == brokerlog.KindTruncation || strings.Contains(e.Details, "RECOVERING") {
			out = append(out, e)
		}
	}
	return out
}

// judgeCopy is one copy's line of the cluster verdict and the offset
// ranges it holds intact: its span less every gap worse than a note (a
// gap of unknown end takes the rest).
func judgeCopy(v *analysis.Verdict, gaps []analysis.GapRow, rep *analysis.ReplicaRow) (analysis.ClusterCopy, []analysis.OffsetRange) {
	c := analysis.ClusterCopy{Input: v.Input, Source: v.Source, Dir: v.Dir, State: v.State,
		FirstOffset: v.FirstOffset, LogEndOffset: v.LogEndOffset, Crashed: v.Crashed}
	if rep != nil && v.State == analysis.CopyIntact {
		c.State = analysis.CopyState(rep.Verdict)
	}
	var held []analysis.OffsetRange
	if v.FirstOffset >= 0 && v.LogEndOffset > v.FirstOffset {
		held = []analysis.OffsetRange{{First: v.FirstOffset, Last: v.LogEndOffset - 1}}
	}
	for _, g := range gaps {
		if !finding.Counts(g.Severity) {
			continue
		}
		last := int64(1) << 62
		if g.LastOffset != nil {
			last = *g.LastOffset
		}
		held = subtract(held, analysis.OffsetRange{First: g.FirstOffset, Last: last})
	}
	for _, h := range held {
		c.Held += h.Count()
	}
	return c, held
}

// subtract removes x from the sorted, disjoint ranges rs.
func subtract(rs []analysis.OffsetRange, x analysis.OffsetRange) []analysis.OffsetRange {
	var out []analysis.OffsetRange
	for _, r := range rs {
		if x.Last < r.First || x.First > r.Last {
			out = append(out, r)
			continue
		}
		if r.First < x.First {
			out = append(out, analysis.OffsetRange{First: r.First, Last: x.First - 1})
		}
		if r.Last > x.Last {
			out = append(out, analysis.OffsetRange{First: x.Last + 1, Last: r.Last})
		}
	}
	return out
}

// endless is the last offset of a gap whose end is unknown.
const endless = int64(1) << 62

// judgeCluster sets the verdict from what each copy holds and the copies'
// losses: an offset some copy lost is lost cluster-wide only when no copy
// holds it; the best copy is the one holding the most.
func judgeCluster(cv *analysis.ClusterVerdict, held [][]analysis.OffsetRange, losses []analysis.GapRow) {
	var all []analysis.OffsetRange
	for _, h := range held {
		all = append(all, h...)
	}
	cv.LostRanges = lostEverywhere(all, losses)
	cv.FirstOffset, cv.LogEndOffset = -1, -1
	for _, c := range cv.Copies {
		if c.FirstOffset >= 0 && (cv.FirstOffset < 0 || c.FirstOffset < cv.FirstOffset) {
			cv.FirstOffset = c.FirstOffset
		}
		cv.LogEndOffset = max(cv.LogEndOffset, c.LogEndOffset)
	}
	unread := true
	for _, l := range cv.LostRanges {
		unread = unread && l.Unread
		if l.LastOffset == nil {
			cv.Unbounded = true
			continue
		}
		cv.Lost += *l.LastOffset - l.FirstOffset + 1
		cv.LogEndOffset = max(cv.LogEndOffset, *l.LastOffset+1)
		if cv.FirstOffset < 0 || l.FirstOffset < cv.FirstOffset {
			cv.FirstOffset = l.FirstOffset
		}
	}
	switch {
	case len(cv.LostRanges) == 0:
		cv.Verdict = analysis.CopyIntact
	case unread:
		cv.Verdict = analysis.CopyUnread
	default:
		cv.Verdict = analysis.CopyLost
	}
	for i := range cv.Copies {
		lacks := mergeRanges(all)
		for _, h := range held[i] {
			lacks = subtract(lacks, h)
		}
		cv.Copies[i].Lacks = append([]analysis.OffsetRange{}, lacks...)
	}
	best := -1
	for i, c := range cv.Copies {
		if best < 0 || c.Held > cv.Copies[best].Held ||
			c.Held == cv.Copies[best].Held && c.State == analysis.CopyReference && cv.Copies[best].State != analysis.CopyReference {
			best = i
		}
	}
	if best >= 0 {
		b := cv.Copies[best]
		cv.BestCopy = &b
		cv.Full = unionSize(all) == unionSize(held[best])
	}
	cv.Text = clusterText(cv)
}

// lostEverywhere cuts the losses at every boundary of a loss and of a
// held range, keeps the pieces no copy holds, and joins neighbours of the
// same causes: one range per set of causes.
func lostEverywhere(held []analysis.OffsetRange, losses []analysis.GapRow) []analysis.ClusterLoss {
	var cuts []int64
	lastOf := func(g analysis.GapRow) int64 {
		if g.LastOffset == nil {
			return endless
		}
		return *g.LastOffset
	}
	for _, g := range losses {
		cuts = append(cuts, g.FirstOffset, lastOf(g)+1)
	}
	for _, h := range held {
		cuts = append(cuts, h.First, h.Last+1)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	out := []analysis.ClusterLoss{}
	for i := 0; i+1 < len(cuts); i++ {
		piece := analysis.OffsetRange{First: cuts[i], Last: cuts[i+1] - 1}
		if slices.ContainsFunc(held, func(h analysis.OffsetRange) bool { return h.First <= piece.First && piece.Last <= h.Last }) {
			continue
		}
		var causes []string
		for _, g := range losses {
			if g.FirstOffset <= piece.First && piece.Last <= lastOf(g) && !slices.Contains(causes, g.Cause) {
				causes = append(causes, g.Cause)
			}
		}
		if len(causes) == 0 {
			continue
		}
		slices.Sort(causes)
		unread := len(causes) == 1 && causes[0] == check.CauseUnread
		if n := len(out); n > 0 && out[n-1].LastOffset != nil && *out[n-1].LastOffset+1 == piece.First &&
			slices.Equal(out[n-1].Causes, causes) {
			out[n-1].LastOffset = lastPtr(piece.Last)
			continue
		}
		out = append(out, analysis.ClusterLoss{FirstOffset: piece.First, LastOffset: lastPtr(piece.Last), Causes: causes, Unread: unread})
	}
	return out
}

// lastPtr is a range's last offset as a column: null for an endless one.
func lastPtr(last int64) *int64 {
	if last >= endless-1 {
		return nil
	}
	return &last
}

// mergeRanges is the union of the ranges as sorted, disjoint ranges.
func mergeRanges(rs []analysis.OffsetRange) []analysis.OffsetRange {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b analysis.OffsetRange) int { return cmp.Compare(a.First, b.First) })
	var out []analysis.OffsetRange
	for _, r := range rs {
		if n := len(out); n > 0 && r.First <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// unionSize counts the offsets the ranges cover together.
func unionSize(rs []analysis.OffsetRange) int64 {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b analysis.OffsetRange) int { return cmp.Compare(a.First, b.First) })
	var n int64
	end := int64(-1) << 62
	for _, r := range rs {
		if first := max(r.First, end+1); r.Last >= first {
			n += r.Last - first + 1
			end = r.Last
		}
	}
	return n
}

// clusterCopyName is "broker 2", or the copy's source and dir when its broker is
// unknown.
func clusterCopyName(c *analysis.ClusterCopy) string {
	if c.Broker != nil {
		return fmt.Sprintf("broker %d", *c.Broker)
	}
	return c.Source + ":" + c.Dir
}

// clusterText is the verdict in one line: what is lost everywhere, or
// intact and which copies are not as the best one.
func clusterText(cv *analysis.ClusterVerdict) string {
	var b strings.Builder
	switch cv.Verdict {
	case analysis.CopyIntact:
		copies := "copies"
		if len(cv.Copies) == 1 {
			copies = "copy"
		}
		fmt.Fprintf(&b, "intact across %d %s: ", len(cv.Copies), copies)
		if cv.FirstOffset < 0 || cv.LogEndOffset <= cv.FirstOffset {
			b.WriteString("no batches")
		} else {
			fmt.Fprintf(&b, "offsets %d..%d", cv.FirstOffset, cv.LogEndOffset-1)
		}
	default:
		var rs []string
		for _, l := range cv.LostRanges {
			last := "?"
			if l.LastOffset != nil {
				last = fmt.Sprint(*l.LastOffset)
			}
			rs = append(rs, fmt.Sprintf("%d..%s (%s)", l.FirstOffset, last, strings.Join(l.Causes, ", ")))
		}
		fmt.Fprintf(&b, "%s in every copy: %s", strings.ToUpper(string(cv.Verdict)), strings.Join(rs, ", "))
	}
	if cv.BestCopy != nil && len(cv.Copies) > 1 {
		full := "the most"
		if cv.Full {
			full = "every offset"
		}
		fmt.Fprintf(&b, "; %s holds %s", clusterCopyName(cv.BestCopy), full)
	}
	for i := range cv.Copies {
		c := &cv.Copies[i]
		switch c.State {
		case analysis.CopyIntact, analysis.CopyReference, analysis.CopyInSync:
		default:
			fmt.Fprintf(&b, "; %s %s", clusterCopyName(c), c.State)
			for i, r := range c.Lacks {
				if i == 3 {
					b.WriteString(" …")
					break
				}
				fmt.Fprintf(&b, " %d..%d", r.First, r.Last)
			}
		}
		if c.Crashed {
			fmt.Fprintf(&b, "; %s not shut down cleanly", clusterCopyName(c))
		}
	}
	if n := len(cv.Events); n > 0 {
		fmt.Fprintf(&b, "; %d unclean election(s) or truncation(s) in the cluster's history", n)
	}
	return b.String()
}

// ClusterVerdicts is one verdict per topic-partition across every copy of
// the run (ClusterVerdicts, the function, over the run's facts). Copies in
// a -delete, -future or -stray dir are not copies a broker serves, and
// are left out.
func (r *Result) ClusterVerdicts() []analysis.ClusterVerdict {
	brokers := map[copyKey]*int32{}
	moved := map[copyKey]bool{}
	for _, p := range r.Scan.Partitions {
		k := copyKey{p.Input, p.Dir}
		brokers[k] = p.BrokerID
		moved[k] = p.DirState != ""
	}
	var copies []analysis.Verdict
	for _, v := range r.Check.Partitions {
		if !moved[copyKey{v.Input, v.Dir}] {
			copies = append(copies, v.Verdict)
		}
	}
	f := ClusterFacts{Copies: copies, Gaps: r.Check.Gaps, Events: r.ClusterEvents(), Cluster: r.ClusterOf,
		Broker: func(in int32, dir string) *int32 { return brokers[copyKey{in, dir}] }}
	if r.Replicas != nil {
		f.Replicas = r.Replicas.Rows
	}
	return ClusterVerdicts(f)
}
