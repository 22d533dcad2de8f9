package replicas

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// Verdicts of a copy against the reference: the copy states of package
// analysis, whose wording every command shares.
const (
	VerdictReference = string(analysis.CopyReference)
	VerdictInSync    = string(analysis.CopyInSync)
	VerdictLagging   = string(analysis.CopyLagging)
	VerdictDiverged  = string(analysis.CopyDiverged)
	VerdictAhead     = string(analysis.CopyAhead)
	// VerdictUnread: a prefix of the reference whose input (a cut
	// archive) ended before the rest: what it lacks was not read, which
	// says nothing of the broker.
	VerdictUnread = string(analysis.CopyUnread)
	// VerdictDamaged: the same batches as the reference, but some fail
	// their CRC, or do not decode, in this copy while the reference's are
	// intact.
	VerdictDamaged = string(analysis.CopyDamaged)
	// VerdictLost: a prefix of the reference whose own checkpoints say it
	// held more: it lost its tail, it is not behind.
	VerdictLost = string(analysis.CopyLost)
)

// damagedOnly lists the batches of a that are damaged (CRC, or records
// that do not decode) where b holds a batch of the same offsets that is
// not: the records there survive in b's copy only.
func damagedOnly(a, b []batch) []analysis.OffsetRange {
	var out []analysis.OffsetRange
	for i := range a {
		x := &a[i]
		if !x.damaged {
			continue
		}
		j, ok := slices.BinarySearchFunc(b, x.base, func(y batch, o int64) int { return cmp.Compare(y.base, o) })
		if !ok || b[j].last != x.last || b[j].damaged {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Last+1 == x.base {
			out[n-1].Last = x.last
			continue
		}
		out = append(out, analysis.OffsetRange{First: x.base, Last: x.last})
	}
	return out
}

// rangesText is "4–4, 9–12".
func rangesText(rs []analysis.OffsetRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d–%d", r.First, r.Last)
	}
	return strings.Join(parts, ", ")
}

// CauseDivergence is the loss-ledger cause of offsets a diverged copy
// holds outside the reference's history.
const CauseDivergence = "replica-divergence"

// Result is the comparison of every partition held by two or more copies.
type Result struct {
	// Rows has one row per copy, grouped by partition (topic, partition
	// order), the reference first.
	Rows []analysis.ReplicaRow
	// Gaps are the loss-ledger rows of the diverged copies.
	Gaps []analysis.GapRow
	// Findings: replica-divergence, replica-ahead and replica-lagging.
	Findings []analysis.AnomalyRow
}

// view is one copy with what the comparison derives from it.
type view struct {
	r          *replica
	ld         *logDir
	start, leo int64
	hist       []analysis.EpochStart
	lastEpoch  int32
	name       string
}

func (c *Collector) view(r *replica) *view {
	byBase := func(a, b batch) int { return cmp.Compare(a.base, b.base) }
	// A copy's batches almost always come in offset order already; the
	// stable sort's merges would still cost a pass of comparisons per
	// level over a 1 GiB copy's 114,000 batches.
	if !slices.IsSortedFunc(r.batches, byBase) {
		slices.SortStableFunc(r.batches, byBase)
	}
	v := &view{r: r, ld: c.logDirOfCopy(r), lastEpoch: -1}
	t := tp{r.topic, r.part}
	if start, leo, ok := r.bounds(); ok {
		v.start, v.leo = start, leo
	} else if ls, ok := v.ld.logStrt[t]; ok {
		v.start, v.leo = ls, ls
	}
	if ls, ok := v.ld.logStrt[t]; ok && ls > v.start && ls <= v.leo {
		v.start = ls
	}
	v.hist = history(r)
	if n := len(v.hist); n > 0 {
		v.lastEpoch = v.hist[n-1].Epoch
	}
	if v.ld.broker >= 0 {
		v.name = fmt.Sprintf("broker %d", v.ld.broker)
	} else {
		v.name = c.source(r.key.input) + ":" + r.key.dir
	}
	return v
}

// history merges the leader-epoch-checkpoint with the epochs the batches
// carry: the checkpoint is what the broker truncates by, and may name an
// epoch no batch was written in yet (a new leader's); the batches cover a
// copy whose checkpoint is missing or was rewritten behind the data.
func history(r *replica) []analysis.EpochStart {
	byEpoch := map[int32]int64{}
	for _, e := range r.ckpt {
		byEpoch[e.Epoch] = e.StartOffset
	}
	last := int32(-1)
	note := func(epoch int32, base int64) {
		if epoch > last {
			last = epoch
			if _, ok := byEpoch[epoch]; !ok {
				byEpoch[epoch] = base
			}
		}
	}
	if r.sole {
		for _, x := range r.fold.inOrder() {
			note(x.epoch, x.base)
		}
	}
	for i := range r.batches {
		note(r.batches[i].epoch, r.batches[i].base)
	}
	out := make([]analysis.EpochStart, 0, len(byEpoch))
	for e, o := range byEpoch {
		if e >= 0 {
			out = append(out, analysis.EpochStart{Epoch: e, StartOffset: o})
		}
	}
	slices.SortFunc(out, func(a, b analysis.EpochStart) int { return cmp.Compare(a.Epoch, b.Epoch) })
	return out
}

// epochAt is the leader epoch the history gives offset o, -1 when none.
func epochAt(h []analysis.EpochStart, o int64) int32 {
	e := int32(-1)
	for _, x := range h {
		if x.StartOffset <= o {
			e = x.Epoch
		}
	}
	return e
}

// epochStart is the offset the epoch history of e starts at in h.
func epochStart(h []analysis.EpochStart, e int32) int64 {
	for _, x := range h {
		if x.Epoch == e {
			return x.StartOffset
		}
	}
	return -1
}

// group is the copies of one partition of one cluster.
type group struct {
	topic   string
	part    int32
	cluster string
	topicID string
}

// Compare compares the copies of every partition two or more log dirs
// hold. Copies are of one partition when their topic and partition agree
// and so do their log dirs' cluster.id and their partition.metadata topic
// ids (a topic deleted and created again has a new id). A copy whose log
// dir names no cluster and whose dir has no topic id is compared with
// nothing, unless OneCluster says the inputs are one cluster's: log dirs
// of unrelated clusters hold partitions of the same names
// (__consumer_offsets-0 in every one), and brokers before Kafka 2.4 wrote
// no cluster.id.
// Call it once the scan and the checks have finished.
func (c *Collector) Compare() *Result {
	groups := map[group][]*replica{}
	var keys []group
	local, remote := c.splitRemote()
	for _, r := range local {
		g := group{r.topic, r.part, c.logDirOfCopy(r).cluster, r.topicID}
		if g.cluster == "" && g.topicID == "" && !c.OneCluster {
			continue
		}
		if groups[g] == nil {
			keys = append(keys, g)
		}
		groups[g] = append(groups[g], r)
	}
	slices.SortFunc(keys, func(a, b group) int {
		return cmp.Or(strings.Compare(a.topic, b.topic), cmp.Compare(a.part, b.part), strings.Compare(a.cluster, b.cluster),
			strings.Compare(a.topicID, b.topicID))
	})
	res := &Result{}
	c.remoteOverlaps(res, local, remote)
	for _, t := range keys {
		g := groups[t]
		if len(g) < 2 {
			continue
		}
		views := make([]*view, len(g))
		ids := map[int32]int{}
		for i, r := range g {
			views[i] = c.view(r)
			if b := views[i].ld.broker; b >= 0 {
				ids[b]++
			}
		}
		for _, v := range views {
			if b := v.ld.broker; b >= 0 && ids[b] > 1 {
				// Two copies say they are one broker (its log dirs copied
				// twice, or an id reused): the sentences name the input.
				v.name = fmt.Sprintf("broker %d of input %d", b, v.r.key.input)
			}
		}
		ref := slices.MaxFunc(views, func(a, b *view) int {
			// MaxFunc keeps the first maximum: ties go to the earlier input.
			return cmp.Or(cmp.Compare(a.lastEpoch, b.lastEpoch), cmp.Compare(a.leo, b.leo),
				cmp.Compare(b.r.key.input, a.r.key.input), strings.Compare(b.r.key.dir, a.r.key.dir))
		})
		res.Rows = append(res.Rows, c.row(ref, ref))
		for _, v := range views {
			if v != ref {
				c.compare(res, v, ref)
			}
		}
	}
	return res
}

// row is the copy's own columns, with ref as its reference.
func (c *Collector) row(v, ref *view) analysis.ReplicaRow {
	r := v.r
	t := tp{r.topic, r.part}
	row := analysis.ReplicaRow{Input: r.key.input, Source: c.source(r.key.input), Topic: r.topic, Partition: r.part, Dir: r.key.dir,
		LogStartOffset: v.start, LogEndOffset: v.leo, LeaderEpochs: v.hist, LastEpoch: v.lastEpoch,
		ReferenceSource: c.source(ref.r.key.input), ReferenceDir: ref.r.key.dir,
		MissingRanges: []analysis.OffsetRange{}, ExtraRanges: []analysis.OffsetRange{}}
	if row.LeaderEpochs == nil {
		row.LeaderEpochs = []analysis.EpochStart{}
	}
	if v.ld.broker >= 0 {
		b := v.ld.broker
		row.Broker = &b
	}
	if ref.ld.broker >= 0 {
		b := ref.ld.broker
		row.ReferenceBroker = &b
	}
	if hw, ok := v.ld.hw[t]; ok {
		row.HighWatermark = &hw
		if hw < v.leo {
			row.AboveHighWatermark = v.leo - max(hw, v.start)
		}
	}
	if rp, ok := v.ld.rp[t]; ok {
		row.RecoveryPoint = &rp
	}
	if v == ref {
		row.Verdict = VerdictReference
		row.Explanation = fmt.Sprintf("%s is the reference: the highest last leader epoch (%d), %s", v.name, v.lastEpoch, offsets(v.start, v.leo))
		if v.ld.cluster == "" && v.r.topicID == "" {
			row.Explanation += "; the log dirs name no cluster.id (written before Kafka 2.4) and the partition no topic id: the copies are taken as one cluster's"
		}
	}
	return row
}

func offsets(start, end int64) string {
	if end <= start {
		return "no offsets"
	}
	return fmt.Sprintf("offsets %d–%d", start, end-1)
}

// split is where a copy differs from the reference: ranges of batches
// that differ within one leader epoch, and where it leaves the
// reference's history for good (tail, -1 for never).
type split struct {
	ranges []analysis.OffsetRange
	tail   int64
}

// first is the first offset where v differs, -1 when it does not.
func (d split) first() int64 {
	if len(d.ranges) > 0 {
		return d.ranges[0].First
	}
	return d.tail
}

// divergence compares v with ref. Their histories first disagreeing, a
// batch of another leader epoch, or v going on past ref's end begin the
// tail: leader-epoch truncation removes it. Batches that differ where
// both copies are in the same epoch are ranges of their own: truncation
// by epoch keeps them, and the batches after them may agree again.
func divergence(v, ref *view, cl *cleaner) split {
	from, to := max(v.start, ref.start), min(v.leo, ref.leo)
	d := split{tail: -1}
	// The histories are step functions: they first disagree at a start
	// offset of one of them.
	points := []int64{from}
	for _, h := range [][]analysis.EpochStart{v.hist, ref.hist} {
		for _, x := range h {
			if x.StartOffset > from && x.StartOffset < to {
				points = append(points, x.StartOffset)
			}
		}
	}
	slices.Sort(points)
	for _, o := range points {
		if o < to && epochAt(v.hist, o) != epochAt(ref.hist, o) {
			d.tail = o
			break
		}
	}
	limit := to
	if d.tail >= 0 {
		limit = d.tail
	}
	var other int64
	d.ranges, other = batchDifferences(v.r.batches, ref.r.batches, from, limit, cl)
	if other >= 0 {
		d.tail = other
	}
	if d.tail < 0 && v.leo > ref.leo {
		d.tail = max(ref.leo, v.start)
	}
	return d
}

// batchDifferences walks both copies' batches over [from, to) and
// returns the offset ranges where they differ in the same leader epoch,
// each from the first differing offset to where the two copies' batch
// bounds agree again. other is the first offset where a batch of another
// leader epoch stands in one copy's place (-1 for none): the comparison
// stops there.
func batchDifferences(a, b []batch, from, to int64, cl *cleaner) (rs []analysis.OffsetRange, other int64) {
	for from < to {
		at, found := firstBatchDifference(a, b, from, to, cl)
		if !found {
			break
		}
		x, y := holding(a, at), holding(b, at)
		if x != nil && y != nil && x.epoch != y.epoch {
			return rs, at
		}
		end := at
		for grown := true; grown; {
			grown = false
			for _, bs := range [][]batch{a, b} {
				if z := holding(bs, end); z != nil && z.last > end {
					end, grown = z.last, true
				}
			}
		}
		end = min(end, to-1)
		if n := len(rs); n > 0 && rs[n-1].Last+1 == at {
			rs[n-1].Last = end
		} else {
			rs = append(rs, analysis.OffsetRange{First: at, Last: end})
		}
		from = end + 1
	}
	return rs, -1
}

// holding is the batch of bs that holds offset o, nil when none does.
func holding(bs []batch, o int64) *batch {
	i, _ := slices.BinarySearchFunc(bs, o, func(x batch, o int64) int { return cmp.Compare(x.last, o) })
	if i < len(bs) && bs[i].base <= o {
		return &bs[i]
	}
	return nil
}

// firstBatchDifference walks both copies' batches over [from, to) and
// returns the first offset where they differ. With cl (a compacted
// partition) a batch one copy lacks, or holds rewritten with fewer
// records, is no difference when it is the log cleaner's doing.
func firstBatchDifference(a, b []batch, from, to int64, cl *cleaner) (int64, bool) {
	i, _ := slices.BinarySearchFunc(a, from, func(x batch, o int64) int { return cmp.Compare(x.last, o) })
	j, _ := slices.BinarySearchFunc(b, from, func(x batch, o int64) int { return cmp.Compare(x.last, o) })
	for {
		var x, y *batch
		if i < len(a) && a[i].base < to {
			x = &a[i]
		}
		if j < len(b) && b[j].base < to {
			y = &b[j]
		}
		switch {
		case x == nil && y == nil:
			return 0, false
		case x != nil && y != nil && x.base == y.base && x.last == y.last && x.epoch == y.epoch:
			// A batch that fails its CRC in one copy is damage there,
			// which damagedOnly reports, not another batch.
			if x.crc != y.crc && !x.damaged && !y.damaged {
				if cl == nil {
					return max(from, x.base), true
				}
				if at, bad := cl.rewritten(x, y); bad {
					return max(from, at), true
				}
			}
			i++
			j++
		case y == nil || x != nil && x.last < y.base: // x: only in a
			if cl == nil || !cl.removed(x, cl.a) {
				return max(from, x.base), true
			}
			i++
		case x == nil || y.last < x.base: // y: only in b
			if cl == nil || !cl.removed(y, cl.b) {
				return max(from, y.base), true
			}
			j++
		default: // overlapping batches of other bounds
			return max(from, min(x.base, y.base)), true
		}
	}
}

// batchAt is the batch of v holding offset o, nil when none does.
func (v *view) batchAt(o int64) *batch {
	bs := v.r.batches
	i, _ := slices.BinarySearchFunc(bs, o, func(x batch, o int64) int { return cmp.Compare(x.last, o) })
	if i < len(bs) && bs[i].base <= o {
		return &bs[i]
	}
	if i < len(bs) {
		return &bs[i]
	}
	return nil
}

// compare judges v against ref and adds its row, and its losses.
func (c *Collector) compare(res *Result, v, ref *view) {
	row := c.row(v, ref)
	cl := c.cleanerOf(v, ref)
	d := divergence(v, ref, cl)
	at, diverges := d.first(), d.first() >= 0
	w := finding.Where{Input: v.r.key.input, Topic: v.r.topic, Partition: v.r.part, File: v.r.key.dir}
	pos := int64(-1)
	if b := v.batchAt(at); diverges && b != nil {
		w.File, pos = v.r.segs[b.seg], b.pos
	}
	switch {
	case !diverges && v.leo == ref.leo:
		row.Verdict = VerdictInSync
		row.Explanation = fmt.Sprintf("%s holds the same batches as %s: %s", v.name, ref.name, offsets(v.start, v.leo))
		if cl != nil && cl.differences+int64(cl.unchecked) > 0 {
			row.Explanation = fmt.Sprintf("%s holds the same records as %s: %s", v.name, ref.name, offsets(v.start, v.leo))
		}
	case !diverges && c.Unread != nil && c.Unread(v.r.key.input, v.r.key.dir):
		// The loss ledger's unread range already says so, as a warning.
		row.Verdict = VerdictUnread
		row.MissingRanges = append(row.MissingRanges, analysis.OffsetRange{First: v.leo, Last: ref.leo - 1})
		row.Explanation = fmt.Sprintf("%s ends %d offset(s) short of %s, at %d: "+
			"the archive it was read from ended before the rest, so %d–%d were not read (not a lag of the broker)",
			v.name, ref.leo-v.leo, ref.name, v.leo, v.leo, ref.leo-1)
	case !diverges && c.heldPast(v):
		c.lostTail(&row, v, ref)
	case !diverges:
		row.Verdict = VerdictLagging
		row.MissingRanges = append(row.MissingRanges, analysis.OffsetRange{First: v.leo, Last: ref.leo - 1})
		row.Explanation = fmt.Sprintf("%s lags %s by %d offset(s): it lacks %d–%d, which it fetches when it follows again",
			v.name, ref.name, ref.leo-v.leo, v.leo, ref.leo-1)
		row.Explanation += cl.sentence(c.overFPs)
		res.Findings = append(res.Findings, finding.New(w, KindLagging, -1, v.leo, "%s", row.Explanation))
	case len(d.ranges) == 0 && at == ref.leo && epochAt(v.hist, at) >= ref.lastEpoch:
		// Nothing of the reference is contradicted: v went on in the
		// reference's own last epoch.
		e, re := epochAt(v.hist, at), ref.lastEpoch
		row.FirstDivergentOffset, row.Epoch, row.ReferenceEpoch = &at, &e, &re
		row.ExtraRanges = append(row.ExtraRanges, analysis.OffsetRange{First: at, Last: v.leo - 1})
		row.Verdict = VerdictAhead
		row.Explanation = fmt.Sprintf("%s holds offsets %d–%d (epoch %d) past the end of %s's copy (%d) in the same leader epoch: "+
			"the reference copy is behind (copied earlier, or a lagging leader's)", v.name, at, v.leo-1, e, ref.name, ref.leo)
		res.Findings = append(res.Findings, finding.New(w, KindAhead, pos, at, "%s", row.Explanation))
	default:
		c.diverged(res, &row, v, ref, d, w, pos)
	}
	if cl != nil {
		row.CleanerDifferences = cl.differences
		if row.Verdict == VerdictInSync {
			row.Explanation += cl.sentence(c.overFPs)
		}
	}
	// Batches that agree by header but are damaged in one copy: the
	// comparison by offsets, epoch and stored CRC cannot see the damage.
	if d := damagedOnly(v.r.batches, ref.r.batches); len(d) > 0 {
		if row.Verdict == VerdictInSync {
			row.Verdict = VerdictDamaged
		}
		row.Explanation += fmt.Sprintf("; but its batch(es) at offsets %s are damaged in this copy (they fail their CRC or their records do not decode), "+
			"where %s's are intact: those records survive in %s's copy only",
			rangesText(d), ref.name, ref.name)
	}
	if d := damagedOnly(ref.r.batches, v.r.batches); len(d) > 0 {
		row.Explanation += fmt.Sprintf("; %s's batch(es) at offsets %s are damaged (they fail their CRC or their records do not decode), "+
			"and this copy holds them intact", ref.name, rangesText(d))
	}
	res.Rows = append(res.Rows, row)
}

// Finding kinds of the comparison (analysis/finding lists them).
const (
	KindDivergence = finding.KindReplicaDivergence
	KindLagging    = finding.KindReplicaLagging
	KindAhead      = finding.KindReplicaAhead
)

// times is the span of the batch timestamps of v over the ranges.
func (v *view) times(rs []analysis.OffsetRange) (first, last *int64) {
	for i := range v.r.batches {
		b := &v.r.batches[i]
		if !slices.ContainsFunc(rs, func(r analysis.OffsetRange) bool { return b.last >= r.First && b.base <= r.Last }) {
			continue
		}
		if b.firstTs >= 0 && (first == nil || b.firstTs < *first) {
			t := b.firstTs
			first = &t
		}
		if b.maxTs >= 0 && (last == nil || b.maxTs > *last) {
			t := b.maxTs
			last = &t
		}
	}
	return first, last
}
