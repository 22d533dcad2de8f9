package dups

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
)

// Two causes on the consumer side of a consume-transform-produce
// application, told from what __consumer_offsets holds of its group (the
// pipeline hands the commits and group records over with SetConsumers):
//
// reprocess: the application wrote outputs, died before committing the
// input offsets they came from, and its next instance, under a new PID,
// re-read the input from the last commit and wrote them again. The group's
// generation changes between the two producer sessions, its last commit
// before the change is older than the first copy, and its commits after
// the change go on from there.
//
// rebalance: two live instances of the group wrote the outputs of the
// same input. One was paused past its poll interval, the group moved its
// partitions to another member, which re-read them from the last commit,
// and the paused one resumed and wrote what it had in hand. The producer
// sessions are concurrent, and the group's generation changes, a member
// leaving, before the later copy.
//
// Which output topic an application writes from which input is not in
// the bytes: a Pipeline names it (the link is then checked), otherwise
// every group that commits on another topic than the copy's is a possible
// link, and the grade is weak.

// Classes of the consumer-side causes.
const (
	ClassReprocess = "reprocess"
	ClassRebalance = "rebalance"
)

// Pipeline says that consumer group Group reads topic Input and writes
// what it makes of it to topic Output.
type Pipeline struct {
	Group, Input, Output string
}

// ErrPipeline is returned by ParsePipeline for a value not of the form
// GROUP:INPUT_TOPIC:OUTPUT_TOPIC.
var ErrPipeline = errors.New("want GROUP:INPUT_TOPIC:OUTPUT_TOPIC")

// ParsePipeline reads GROUP:INPUT_TOPIC:OUTPUT_TOPIC. Topic names cannot
// hold a colon and group ids can, so the topics are the last two fields.
func ParsePipeline(s string) (Pipeline, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return Pipeline{}, ErrPipeline
	}
	j := strings.LastIndexByte(s[:i], ':')
	if j < 0 {
		return Pipeline{}, ErrPipeline
	}
	p := Pipeline{Group: s[:j], Input: s[j+1 : i], Output: s[i+1:]}
	if p.Group == "" || p.Input == "" || p.Output == "" {
		return Pipeline{}, ErrPipeline
	}
	return p, nil
}

// PipelineError is a value ParsePipelines could not read.
type PipelineError struct{ Value string }

func (e *PipelineError) Error() string { return fmt.Sprintf("%q: %v", e.Value, ErrPipeline) }

func (e *PipelineError) Unwrap() error { return ErrPipeline }

// ParsePipelines reads every value with ParsePipeline.
func ParsePipelines(vs []string) ([]Pipeline, error) {
	var out []Pipeline
	for _, v := range vs {
		p, err := ParsePipeline(v)
		if err != nil {
			return nil, &PipelineError{v}
		}
		out = append(out, p)
	}
	return out, nil
}

// ConcurrentWords are the words a rebalance's explanation says its
// producers' sessions overlapped with (the SQL twin, which cannot see the
// groups, calls such a copy a repeat).
const ConcurrentWords = "wrote concurrently, and"

// clockSlack is how far apart the clocks of the producer (its records'
// timestamps) and of the group coordinator (the group records') may be
// and still order a generation change against a write.
const clockSlack = 1000

// commitPoint is one applied offset commit.
type commitPoint struct {
	ts, off int64
}

// genChange is a group record that starts a generation: when, from which
// generation to which, and the members of the one before that are not in
// the new one.
type genChange struct {
	ts       int64
	from, to int32
	left     []analysis.GroupMemberRow
	joined   int // members of the new generation not in the one before
}

// groupLine is what one group's records show.
type groupLine struct {
	name    string
	changes []genChange
	// commits by input topic, then partition, in time order.
	commits map[string]map[int32][]commitPoint
}

// consumerIndex holds the groups' timelines for the detector.
type consumerIndex struct {
	groups []*groupLine // by name
	byName map[string]*groupLine
	hints  map[string][]Pipeline // by output topic
	// Memos: the links of each output topic, and the input ranges of
	// each link at each generation change. They depend on the groups'
	// records alone, and every later copy asks for them.
	linkMemo  map[string]*topicLinks
	rangeMemo map[rangeKey][]inputRange
}

type rangeKey struct {
	g      *groupLine
	out    string
	change int
}

// SetConsumers hands the detector the groups' offset commits and group
// records before Finish, for the consumer-side causes. Damaged records,
// tombstones and commits of transactions not committed are not evidence.
func (d *Detector) SetConsumers(commits []analysis.CommitRow, groups []analysis.GroupRow) {
	ix := &consumerIndex{byName: map[string]*groupLine{}, hints: map[string][]Pipeline{},
		linkMemo: map[string]*topicLinks{}, rangeMemo: map[rangeKey][]inputRange{}}
	line := func(name string) *groupLine {
		g := ix.byName[name]
		if g == nil {
			g = &groupLine{name: name, commits: map[string]map[int32][]commitPoint{}}
			ix.byName[name] = g
			ix.groups = append(ix.groups, g)
		}
		return g
	}
	for i := range commits {
		c := &commits[i]
		ts := cmp.Or(c.CommitTimestamp, c.Timestamp)
		if c.Damaged || c.Tombstone || c.CommittedOffset == nil || ts == nil || (c.TxnState != "" && c.TxnState != "none" && c.TxnState != "committed") {
			continue
		}
		g := line(c.Group)
		byPart := g.commits[c.Topic]
		if byPart == nil {
			byPart = map[int32][]commitPoint{}
			g.commits[c.Topic] = byPart
		}
		byPart[c.Partition] = append(byPart[c.Partition], commitPoint{*ts, *c.CommittedOffset})
	}
	byGroup := map[string][]*analysis.GroupRow{}
	for i := range groups {
		r := &groups[i]
		if r.Damaged || r.Tombstone || r.Generation == nil || cmp.Or(r.CurrentStateTimestamp, r.Timestamp) == nil {
			continue
		}
		byGroup[r.Group] = append(byGroup[r.Group], r)
	}
	for name, rs := range byGroup {
		line(name).changes = changes(rs)
	}
	for _, g := range ix.groups {
		for _, byPart := range g.commits {
			for _, cs := range byPart {
				// By time, then offset: the order the inputs were read in
				// (and replicas' copies of one commit) must not matter.
				slices.SortFunc(cs, func(a, b commitPoint) int { return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.off, b.off)) })
			}
		}
	}
	slices.SortFunc(ix.groups, func(a, b *groupLine) int { return strings.Compare(a.name, b.name) })
	for _, p := range d.opts.Pipelines {
		ix.hints[p.Output] = append(ix.hints[p.Output], p)
	}
	d.consumers = ix
}

// changes are the generation changes of one group's records, put in
// time order: the records of several replicas of __consumer_offsets,
// read one input after the other, repeat each generation.
func changes(rs []*analysis.GroupRow) []genChange {
	at := func(r *analysis.GroupRow) int64 { return *cmp.Or(r.CurrentStateTimestamp, r.Timestamp) }
	slices.SortStableFunc(rs, func(a, b *analysis.GroupRow) int {
		return cmp.Or(cmp.Compare(at(a), at(b)), cmp.Compare(*a.Generation, *b.Generation), cmp.Compare(len(a.Members), len(b.Members)))
	})
	var out []genChange
	for i := 1; i < len(rs); i++ {
		prev, r := rs[i-1], rs[i]
		if *prev.Generation == *r.Generation {
			continue
		}
		ch := genChange{ts: at(r), from: *prev.Generation, to: *r.Generation}
		for _, m := range prev.Members {
			if !slices.ContainsFunc(r.Members, func(n analysis.GroupMemberRow) bool { return n.MemberID == m.MemberID }) {
				ch.left = append(ch.left, m)
			}
		}
		for _, m := range r.Members {
			if !slices.ContainsFunc(prev.Members, func(n analysis.GroupMemberRow) bool { return n.MemberID == m.MemberID }) {
				ch.joined++
			}
		}
		out = append(out, ch)
	}
	return out
}

// link is a group that may have written a topic, with the input topics
// it read.
type link struct {
	g       *groupLine
	inputs  []string
	checked bool
}

// links are the groups that may have written topic out: those a Pipeline
// names, else every group that commits on another topic.
func (ix *consumerIndex) links(out string) []link { return ix.topic(out).links }

// topicLinks are the links of an output topic, and the times of all
// their groups' generation changes in order: a copy with none near it,
// most of them in a large log, needs no look at each group.
type topicLinks struct {
	links []link
	times []int64
}

func (ix *consumerIndex) topic(out string) *topicLinks {
	tl := ix.linkMemo[out]
	if tl == nil {
		tl = &topicLinks{links: ix.findLinks(out)}
		for _, l := range tl.links {
			for _, ch := range l.g.changes {
				tl.times = append(tl.times, ch.ts)
			}
		}
		slices.Sort(tl.times)
		ix.linkMemo[out] = tl
	}
	return tl
}

// anyChange reports whether a generation change of a link of out lies
// within [lo, hi].
func (ix *consumerIndex) anyChange(out string, lo, hi int64) bool {
	tl := ix.topic(out)
	k, _ := slices.BinarySearch(tl.times, lo)
	return k < len(tl.times) && tl.times[k] <= hi
}

func (ix *consumerIndex) findLinks(out string) []link {
	if hs := ix.hints[out]; len(hs) > 0 {
		var ls []link
		for _, h := range hs {
			if g := ix.byName[h.Group]; g != nil {
				ls = append(ls, link{g: g, inputs: []string{h.Input}, checked: true})
			}
		}
		return ls
	}
	var ls []link
	for _, g := range ix.groups {
		var in []string
		for t := range g.commits {
			if t != out {
				in = append(in, t)
			}
		}
		if len(in) > 0 {
			slices.Sort(in)
			ls = append(ls, link{g: g, inputs: in})
		}
	}
	return ls
}

// changeFrom is the index of the group's first generation change at ts
// or later.
func (g *groupLine) changeFrom(ts int64) int {
	k, _ := slices.BinarySearchFunc(g.changes, ts, func(c genChange, t int64) int { return cmp.Compare(c.ts, t) })
	return k
}

// ranges are l.ranges at the group's change k, for a copy in topic out.
func (ix *consumerIndex) ranges(l *link, out string, k int) []inputRange {
	key := rangeKey{l.g, out, k}
	rs, ok := ix.rangeMemo[key]
	if !ok {
		rs = l.ranges(l.g.changes[k].ts)
		ix.rangeMemo[key] = rs
	}
	return rs
}

// inputRange is what one input partition's commits show around a
// generation change: the last commit before it (from), and the first
// after it (next, -1 when none).
type inputRange struct {
	topic              string
	partition          int32
	from, fromTs, next int64
}

// ranges are the input partitions of l the group had committed on
// before the change at ts.
func (l *link) ranges(ts int64) []inputRange {
	var out []inputRange
	for _, t := range l.inputs {
		byPart := l.g.commits[t]
		parts := make([]int32, 0, len(byPart))
		for p := range byPart {
			parts = append(parts, p)
		}
		slices.Sort(parts)
		for _, p := range parts {
			cs := byPart[p]
			k, _ := slices.BinarySearchFunc(cs, ts+1, func(c commitPoint, t int64) int { return cmp.Compare(c.ts, t) })
			if k == 0 {
				continue
			}
			r := inputRange{topic: t, partition: p, from: cs[k-1].off, fromTs: cs[k-1].ts, next: -1}
			if k < len(cs) {
				r.next = cs[k].off
			}
			out = append(out, r)
		}
	}
	return out
}

// consumerMatch is the consumer evidence of a later copy.
type consumerMatch struct {
	class  string
	out    string // the copy's topic
	link   link
	change genChange
	ranges []inputRange
	fits   int // how many groups fit
}

// reprocessOf finds the group whose generation changed between the end
// of ref's session and the start of m's (a restart, judged by timing):
// the group whose instance died, with a commit older than the first copy
// on an input it reads.
func (d *Detector) reprocessOf(m, ref *rec) *consumerMatch {
	ix := d.consumers
	if ix == nil || ref.ts < 0 {
		return nil
	}
	later, earlier := d.spans[spanKey{m.part, m.pid, int32(m.epoch)}], d.spans[spanKey{ref.part, ref.pid, anyEpoch}]
	if later == nil || earlier == nil || later.firstTs < 0 || earlier.lastTs < 0 {
		return nil
	}
	out := d.parts[m.part].topic
	if !ix.anyChange(out, earlier.lastTs-clockSlack, later.firstTs+clockSlack) {
		return nil
	}
	var best *consumerMatch
	for _, l := range ix.links(out) {
		first := true
		for k := l.g.changeFrom(earlier.lastTs - clockSlack); k < len(l.g.changes); k++ {
			ch := l.g.changes[k]
			if ch.ts > later.firstTs+clockSlack {
				break
			}
			// The instance that came back joined the group; a writer that
			// died with its instance wrote nothing after its group moved
			// on, and one that did is a zombie (rebalance).
			if last := d.sessionLast(ref); ch.joined == 0 || last > ch.ts+clockSlack {
				continue
			}
			// A consumer commits the positions of all its partitions at
			// once: the first copy was written after the group's last
			// commit before the change, or that commit covered its input.
			rs := ix.ranges(&l, out, k)
			if len(rs) == 0 || slices.MaxFunc(rs, func(a, b inputRange) int { return cmp.Compare(a.fromTs, b.fromTs) }).fromTs > ref.ts+clockSlack {
				continue
			}
			best = pick(best, &consumerMatch{class: ClassReprocess, out: out, link: l, change: ch, ranges: rs}, first)
			break
		}
	}
	return best
}

// sessionLast is when r's session last wrote, in any partition; -1
// unknown.
func (d *Detector) sessionLast(r *rec) int64 {
	if e := d.sessions[sessKey{r.pid, r.epoch, d.clusterOf[r.part]}]; e != nil {
		return e.last
	}
	return -1
}

// rebalanceOf finds the group whose generation changed, a member
// leaving, within the restart window before the later copy m and not
// long before the first, while the writers of both were live: before
// m, when the copies are concurrent (after is m.ts), or, when m's session
// began after ref's writer's last write, before that last write (after
// is then ref's writer's last write: it wrote on after losing its input).
func (d *Detector) rebalanceOf(m, ref *rec, after int64) *consumerMatch {
	ix := d.consumers
	if ix == nil || m.ts < 0 || ref.ts < 0 || m.pid == ref.pid {
		return nil
	}
	w := d.opts.RestartWindow.Milliseconds()
	out := d.parts[m.part].topic
	if !ix.anyChange(out, m.ts-w, after+clockSlack) {
		return nil
	}
	var best *consumerMatch
	for _, l := range ix.links(out) {
		first := true
		for k := l.g.changeFrom(m.ts - w); k < len(l.g.changes); k++ {
			ch := l.g.changes[k]
			if ch.ts > after+clockSlack {
				break
			}
			if ref.ts < ch.ts-w {
				continue
			}
			best = pick(best, &consumerMatch{class: ClassRebalance, out: out, link: l, change: ch, ranges: ix.ranges(&l, out, k)}, first)
			first = false
		}
	}
	return best
}

// pick keeps the better of two matches: a checked link, a member that
// left, then the later change, the nearest to the copy. fits counts the
// groups that fit: one more when b is the first match of its group.
func pick(a, b *consumerMatch, first bool) *consumerMatch {
	if a == nil {
		b.fits = 1
		return b
	}
	fits := a.fits
	if first {
		fits++
	}
	score := func(x *consumerMatch) int {
		s := 0
		if x.link.checked {
			s += 2
		}
		if len(x.change.left) > 0 {
			s++
		}
		return s
	}
	if sb, sa := score(b), score(a); sb > sa || (sb == sa && b.change.ts > a.change.ts) {
		a = b
	}
	a.fits = fits
	return a
}

// consumerCause is the consumer-side match of later copy m of ref judged
// v by the producer side (restart-resend or repeat), nil when none fits.
func (d *Detector) consumerCause(m, ref *rec, v *verdict) *consumerMatch {
	switch {
	case d.consumers == nil:
		return nil
	case v.class == ClassRestartResend:
		if cm := d.reprocessOf(m, ref); cm != nil {
			return cm
		}
		// The earlier writer may have written on after its group moved
		// its input away: a zombie whose successor wrote in this
		// partition only after it.
		if last := d.sessionLast(ref); last >= 0 {
			if cm := d.rebalanceOf(m, ref, last-clockSlack); cm != nil && len(cm.change.left) > 0 {
				return cm
			}
		}
	case v.class == ClassRepeat && v.reason == reasonConcurrent:
		return d.rebalanceOf(m, ref, m.ts)
	case v.class == ClassRepeat && v.reason == reasonBeyondWindow:
		// An application restarted after longer than the restart window:
		// only a link a pipeline names says its group re-read the input.
		if cm := d.reprocessOf(m, ref); cm != nil && cm.link.checked {
			return cm
		}
	}
	return nil
}

// gradeConsumer judges the consumer evidence of a reprocess or rebalance
// copy; a reprocess is also graded as the resend it is (evidence, why,
// reasons of the chain), which it may only weaken.
func (d *Detector) gradeConsumer(cm *consumerMatch, evidence string, why uint16, reasons string) (string, uint16, string) {
	var rs []string
	if reasons != "" && evidence != EvidenceStrong {
		rs = append(rs, reasons)
	}
	if !cm.link.checked {
		why |= WhyInferred
		rs = append(rs, fmt.Sprintf("that group %s, reading %s, writes %s is inferred from the timing of its generations; a pipeline hint naming them checks it",
			cm.link.g.name, namedList(cm.link.inputs), cm.out))
	}
	if cm.fits > 1 {
		why |= WhyInferred
		rs = append(rs, fmt.Sprintf("%d groups fit", cm.fits))
	}
	switch cm.class {
	case ClassReprocess:
		if !slices.ContainsFunc(cm.ranges, func(r inputRange) bool { return r.next >= r.from }) {
			why |= WhyNoResume
			rs = append(rs, "no commit after the restart shows the group resuming from its last one")
		}
	case ClassRebalance:
		if len(cm.change.left) == 0 {
			why |= WhyNoResume
			rs = append(rs, fmt.Sprintf("no member left the group at generation %d", cm.change.to))
		}
	}
	if why != 0 {
		return EvidenceWeak, why, strings.Join(rs, "; ")
	}
	s := d.consumerText(cm)
	if reasons != "" {
		s += "; " + reasons
	}
	return EvidenceStrong, 0, s
}

// consumerText says what the group's records show.
func (d *Detector) consumerText(cm *consumerMatch) string {
	g := fmt.Sprintf("group %s went from generation %d to %d at %s", cm.link.g.name, cm.change.from, cm.change.to,
		time.UnixMilli(cm.change.ts).UTC().Format("2006-01-02T15:04:05Z"))
	if len(cm.change.left) > 0 {
		var ms []string
		for _, m := range cm.change.left {
			ms = append(ms, fmt.Sprintf("%s (client %s, host %s)", m.MemberID, m.ClientID, m.ClientHost))
		}
		g += ", member " + strings.Join(ms, ", ") + " leaving"
	}
	if cm.class == ClassReprocess {
		return g + "; its new generation re-read " + d.rangeText(cm) + " from its last commits before the restart, older than the first copy: " +
			"the outputs of what was read after them were written again"
	}
	return g + "; the member given its partitions re-read " + d.rangeText(cm) + " while the one that lost them wrote what it had read"
}

// notConsumer says why a repeat is neither a reprocess nor a rebalance,
// when the inputs hold consumer groups; "" otherwise.
func (d *Detector) notConsumer(m, ref *rec, v *verdict) string {
	if d.consumers == nil || len(d.consumers.groups) == 0 || v.class != ClassRepeat {
		return ""
	}
	topic := d.parts[m.part].topic
	switch {
	case len(d.consumers.hints[topic]) > 0 && len(d.consumers.links(topic)) == 0:
		return "; not a reprocess or rebalance: no group a pipeline hint names for " + topic + " left records"
	case len(d.consumers.links(topic)) == 0:
		return "; not a reprocess or rebalance: no consumer group reads another topic to have written this one"
	case v.reason == reasonConcurrent:
		return "; not a rebalance: no group's generation changed within the restart window before this copy"
	}
	return "; not a reprocess or rebalance: the producers show neither a restart nor concurrent sessions"
}

// consumerCauseText explains a reprocess or rebalance copy m of ref: the
// producers' sessions, then the group.
func (d *Detector) consumerCauseText(m, ref *rec, v *verdict, cm *consumerMatch) string {
	in := namedList(cm.link.inputs)
	if cm.class == ClassReprocess {
		return fmt.Sprintf("a reprocess by consumer group %s after a crash: %s's session in %s began %s after %s's last write, and the group, "+
			"reading %s, went from generation %d to %d between them, re-reading from its last commit (%s)",
			cm.link.g.name, pidName(m), d.pname(m), fmtGap(v.sessionGap), pidName(ref), in, cm.change.from, cm.change.to, d.rangeText(cm))
	}
	left := ""
	if len(cm.change.left) > 0 {
		left = fmt.Sprintf(", member %s leaving", cm.change.left[0].ClientID)
	}
	how := fmt.Sprintf("%s and %s %s", pidName(ref), pidName(m), ConcurrentWords)
	if v.reason == reasonRestart {
		how = fmt.Sprintf("%s's session in %s began %s after %s's last write there, yet %s wrote on elsewhere after",
			pidName(m), d.pname(m), fmtGap(v.sessionGap), pidName(ref), pidName(ref))
	}
	return fmt.Sprintf("a rebalance zombie in consumer group %s: %s the group, reading %s, went from generation %d to %d%s "+
		"before this copy; its new owner re-read from the last commit (%s) while the member that lost the partitions wrote what it had read",
		cm.link.g.name, how, in, cm.change.from, cm.change.to, left, d.rangeText(cm))
}

// maxNamedInputs is how many input partitions an explanation names.
const maxNamedInputs = 4

// rangeText names the offsets re-read: from the last commit before the
// change to the first commit after it.
func (d *Detector) rangeText(cm *consumerMatch) string {
	if len(cm.ranges) == 0 {
		return "no commit before the change"
	}
	var parts []string
	for i, r := range cm.ranges {
		if i == maxNamedInputs {
			parts = append(parts, fmt.Sprintf("and %d more partitions", len(cm.ranges)-i))
			break
		}
		s := fmt.Sprintf("%s-%d from offset %d", r.topic, r.partition, r.from)
		if r.next > r.from {
			s = fmt.Sprintf("%s-%d offsets %d to %d", r.topic, r.partition, r.from, r.next-1)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// namedList joins the first maxNamedInputs names and counts the others.
func namedList(names []string) string {
	if len(names) <= maxNamedInputs {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamedInputs], ", "), len(names)-maxNamedInputs)
}
