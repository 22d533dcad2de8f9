package dups

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// Evidence grades of a later copy of any class but repeat.
const (
	EvidenceStrong = "strong"
	EvidenceWeak   = "weak"
)

// Defaults of the evidence thresholds (Options).
const (
	// DefaultResendHead: a resend may follow this many records of the later
	// session in its partition (a startup message, a first batch of new
	// data) and still be its head.
	DefaultResendHead = 10
	// DefaultResendTail: the earlier session may have written this many
	// records after the resent run that were never resent (content that
	// changed on replay, or was acknowledged before the crash).
	DefaultResendTail = 10
	// DefaultResendMinRun: a run of fewer records does not show a resend:
	// one record written again reads the same whether it was resent or
	// written anew.
	DefaultResendMinRun = 2
)

// Why bits: the reasons a copy is not strong (DuplicateRow.EvidenceWhy).
const (
	WhyNoRestart   uint16 = 1 << iota // the sessions do not show a restart (txn-retry)
	WhyShort                          // the run is shorter than the minimum
	WhyNotHead                        // the run is not the later session's head
	WhyNotTail                        // the run is not the earlier session's tail
	WhyConstant                       // one value repeated
	WhyCommon                         // content that new sessions write at their start
	WhyNoSequence                     // no sequence numbers to place the run
	WhyNotInFlight                    // the earlier session wrote on elsewhere long after the run
	WhyFar                            // (retry) the copies landed further after the first than a retry does
	WhyTimestamps                     // (dedup-failure) the timestamps differ or are unknown
	WhyInferred                       // (reprocess, rebalance) the group's link to the topic is inferred
	WhyNoResume                       // (reprocess) no commit shows the group resume; (rebalance) no member left
)

// RunOfOne opens the reason a run of a single record gives for not being
// strong, so that callers reading the JSON can tell that contract apart
// from a grading miss.
const RunOfOne = "a run of one record"

var whyWords = [...]string{"no restart", "too few records", "not the session's head", "not the earlier session's tail",
	"one value repeated", "content new sessions write", "no sequence numbers", "not in flight at the session's end",
	"far from the first copy", "other timestamps",
	"link inferred", "no resume or leave"}

// WhyText lists the reasons in w in a few words each.
func WhyText(w uint16) []string {
	var out []string
	for i, s := range whyWords {
		if w&(1<<i) != 0 {
			out = append(out, s)
		}
	}
	return out
}

// Threshold is the Options value of an evidence threshold n given as a
// count (0 is none, not the default).
func Threshold(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// evidenceOpts returns the thresholds with the defaults filled in: 0
// means the default, a negative value none.
func (o *Options) evidenceOpts() (head, tail, minRun int64) {
	pick := func(v, def int) int64 {
		switch {
		case v == 0:
			return int64(def)
		case v < 0:
			return 0
		}
		return int64(v)
	}
	return pick(o.ResendHead, DefaultResendHead), pick(o.ResendTail, DefaultResendTail), max(pick(o.ResendMinRun, DefaultResendMinRun), 1)
}

// cand is a later copy to grade, as the chain pass needs it.
type cand struct {
	id            int64
	part, refPart uint32
	pid, refPID   int64
	epoch, refEp  int16
	seq, refSeq   int32
	fp            uint64 // the fingerprint folded to 64 bits: enough to tell values apart
	common        bool
	// fresh is how many records of its session in its partition precede
	// the copy and are not copies to grade themselves; -1 unknown. pos
	// counts them all, other the copies among them of another earlier
	// session or partition than this copy's, same those of the same.
	fresh, pos, other, same int64
	refTs                   int64 // the earlier copy's timestamp, -1 unknown
}

const candBytes = 8 + 4 + 4 + 8 + 8 + 2 + 2 + 4 + 4 + 8 + 1 + 5*8

func encodeCand(b []byte, c *cand) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(c.id))
	le.PutUint32(b[8:], c.part)
	le.PutUint32(b[12:], c.refPart)
	le.PutUint64(b[16:], uint64(c.pid))
	le.PutUint64(b[24:], uint64(c.refPID))
	le.PutUint16(b[32:], uint16(c.epoch))
	le.PutUint16(b[34:], uint16(c.refEp))
	le.PutUint32(b[36:], uint32(c.seq))
	le.PutUint32(b[40:], uint32(c.refSeq))
	le.PutUint64(b[44:], c.fp)
	b[52] = 0
	if c.common {
		b[52] = 1
	}
	for i, v := range []int64{c.fresh, c.pos, c.other, c.same, c.refTs} {
		le.PutUint64(b[53+8*i:], uint64(v))
	}
}

func decodeCand(b []byte, c *cand) {
	le := binary.LittleEndian
	_ = b[candBytes-1]
	c.id = int64(le.Uint64(b[0:]))
	c.part, c.refPart = le.Uint32(b[8:]), le.Uint32(b[12:])
	c.pid, c.refPID = int64(le.Uint64(b[16:])), int64(le.Uint64(b[24:]))
	c.epoch, c.refEp = int16(le.Uint16(b[32:])), int16(le.Uint16(b[34:]))
	c.seq, c.refSeq = int32(le.Uint32(b[36:])), int32(le.Uint32(b[40:]))
	c.fp = le.Uint64(b[44:])
	c.common = b[52] != 0
	for i, v := range []*int64{&c.fresh, &c.pos, &c.other, &c.same, &c.refTs} {
		*v = int64(le.Uint64(b[53+8*i:]))
	}
}

// candChain links a candidate to the chain it belongs to.
type candChain struct{ id, chain int64 }

func encodeCandChain(b []byte, c *candChain) {
	binary.LittleEndian.PutUint64(b, uint64(c.id))
	binary.LittleEndian.PutUint64(b[8:], uint64(c.chain))
}

func decodeCandChain(b []byte, c *candChain) {
	c.id, c.chain = int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
}

// chainFacts are what a chain shows: a resend block, consecutive records
// of one earlier session in one partition repeated in order by one later
// session of the topic (in one partition, or spread over several when the
// records are keyless).
type chainFacts struct {
	records  int64
	distinct int64 // changes of value along the chain, plus one
	common   int64 // copies of content that new sessions write
	trailing int64 // earlier-session records after the chain; -1 unknown
	firstPos int64 // records of the later session before the chain that count; -1 unknown
	parts    int64 // later partitions the chain spans
	// skipped are the records before the chain that do not count towards
	// its head: copies of other earlier sessions or partitions (graded in
	// their own chains) and the copies of this one's earlier session that
	// it continues after a hole; copies are those that count and are
	// copies of this chain's earlier session all the same.
	skipped, copies int64
	// The chain's sessions and the timestamp of its last earlier record
	// (-1 unknown), and what sessionEnd finds: how long the earlier
	// session wrote on elsewhere after it, in how many other partitions,
	// and in how many of those the later session resent no tail.
	laterPID, refPID             int64
	refEndTs                     int64
	after, laterParts, uncovered int64
	laterEp, refEp               int16
	refPart                      uint32
	headOK                       bool
}

const chainFactsBytes = 14*8 + 2*2 + 4 + 1

func (f *chainFacts) ints() []*int64 {
	return []*int64{&f.records, &f.distinct, &f.common, &f.trailing, &f.firstPos, &f.parts, &f.skipped, &f.copies,
		&f.laterPID, &f.refPID, &f.refEndTs, &f.after, &f.laterParts, &f.uncovered}
}

func (f *chainFacts) encode(b []byte) {
	le := binary.LittleEndian
	for i, v := range f.ints() {
		le.PutUint64(b[i*8:], uint64(*v))
	}
	le.PutUint16(b[112:], uint16(f.laterEp))
	le.PutUint16(b[114:], uint16(f.refEp))
	le.PutUint32(b[116:], f.refPart)
	b[120] = 0
	if f.headOK {
		b[120] = 1
	}
}

func (f *chainFacts) decode(b []byte) {
	le := binary.LittleEndian
	for i, p := range f.ints() {
		*p = int64(le.Uint64(b[i*8:]))
	}
	f.laterEp, f.refEp = int16(le.Uint16(b[112:])), int16(le.Uint16(b[114:]))
	f.refPart = le.Uint32(b[116:])
	f.headOK = b[120] != 0
}

// seqDist is how many sequence numbers from a to b (sequences wrap from
// the largest int32 to 0); -1 when either is unknown.
func seqDist(a, b int32) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	d := int64(b) - int64(a)
	if d < 0 {
		d += 1 << 31
	}
	return d
}

// pos is how many records the session of (part, pid, epoch) wrote in
// that partition before the one of sequence seq; -1 unknown.
func (d *Detector) pos(part uint32, pid int64, epoch int16, seq int32) int64 {
	s := d.spans[spanKey{part, pid, int32(epoch)}]
	if s == nil {
		return -1
	}
	return seqDist(s.firstSeq, seq)
}

// rankParts orders the partition dirs by topic, partition, source and
// dir, so that the chain pass does not depend on the order of the inputs.
func (d *Detector) rankParts() {
	idx := make([]uint32, len(d.parts))
	for i := range idx {
		idx[i] = uint32(i)
	}
	cmpPart := func(a, b uint32) int {
		pa, pb := &d.parts[a], &d.parts[b]
		return cmp.Or(cmp.Compare(pa.topicIdx, pb.topicIdx), cmp.Compare(pa.partition, pb.partition),
			strings.Compare(pa.source, pb.source), strings.Compare(pa.dir, pb.dir), cmp.Compare(pa.input, pb.input))
	}
	slices.SortFunc(idx, cmpPart)
	d.rank = make([]uint32, len(d.parts))
	for r, i := range idx {
		d.rank[i] = uint32(r)
	}
}

// cmpSession orders candidates by the later writer's session in its
// partition, then sequence.
func (d *Detector) cmpSession(a, b *cand) int {
	return cmp.Or(cmp.Compare(d.rank[a.part], d.rank[b.part]), cmp.Compare(a.pid, b.pid), cmp.Compare(a.epoch, b.epoch),
		cmp.Compare(a.seq, b.seq), cmp.Compare(a.id, b.id))
}

// cmpCand orders candidates by chain: the later writer's topic, PID and
// epoch, the earlier writer's partition, PID and epoch, then the earlier
// copy's sequence, and the later copy's partition and sequence.
func (d *Detector) cmpCand(a, b *cand) int {
	return cmp.Or(cmp.Compare(d.parts[a.part].topicIdx, d.parts[b.part].topicIdx), cmp.Compare(a.pid, b.pid), cmp.Compare(a.epoch, b.epoch),
		cmp.Compare(d.rank[a.refPart], d.rank[b.refPart]), cmp.Compare(a.refPID, b.refPID), cmp.Compare(a.refEp, b.refEp),
		cmp.Compare(a.refSeq, b.refSeq), cmp.Compare(d.rank[a.part], d.rank[b.part]), cmp.Compare(a.seq, b.seq), cmp.Compare(a.id, b.id))
}

func sameChainKey(d *Detector, a, b *cand) bool {
	return d.parts[a.part].topicIdx == d.parts[b.part].topicIdx && a.pid == b.pid && a.epoch == b.epoch &&
		a.refPart == b.refPart && a.refPID == b.refPID && a.refEp == b.refEp
}

// chainer forms the chains of the candidates, in cmpCand order.
type chainer struct {
	d          *Detector
	head, tail int64
	facts      *store
	links      *extSorter[candChain]
	open       bool
	last       cand
	f          chainFacts
	parts      map[uint32]*chainPart
	n          int64
	// block is how many copies the chains just before the open one, of
	// the same sessions and partitions, hold, when the open one continues
	// them after a hole (see hole).
	block int64
}

// chainPart is how far a chain has come in one later partition.
type chainPart struct {
	lastSeq int32
}

// add takes the next candidate in chain order. A copy continues the
// chain when it repeats the next record of the earlier session, comes
// after the chain's last copy in its own partition, and, while the chain
// is at the later session's head, has at most head records of the session
// before it that are not copies (in any partition the chain reaches:
// keyless records land anywhere, and a replay interleaves records of
// several earlier partitions).
func (c *chainer) add(x *cand) error {
	d := c.d
	head := x.fresh >= 0 && x.fresh <= c.head
	cont := c.open && sameChainKey(d, &c.last, x) && c.last.refSeq >= 0 && seqDist(c.last.refSeq, x.refSeq) == 1 && x.fresh >= 0 &&
		(head || !c.f.headOK)
	if p := c.parts[x.part]; cont && p != nil {
		d := seqDist(p.lastSeq, x.seq)
		cont = d >= 1 && d < 1<<30
	}
	if !cont {
		prev, prevRecs, wasOpen := c.last, c.f.records, c.open
		if err := c.end(); err != nil {
			return err
		}
		if wasOpen && sameChainKey(d, &prev, x) && c.hole(&prev, x) {
			c.block += prevRecs
		} else {
			c.block = 0
		}
		c.start(x)
	}
	p := c.parts[x.part]
	if p == nil {
		p = &chainPart{}
		c.parts[x.part] = p
		c.f.parts++
	}
	p.lastSeq = x.seq
	if c.f.records == 0 || x.fp != c.last.fp {
		c.f.distinct++
	}
	c.f.records++
	if x.common {
		c.f.common++
	}
	if x.refTs >= 0 {
		c.f.refEndTs = max(c.f.refEndTs, x.refTs)
	}
	c.last = *x
	return c.links.add(&candChain{id: x.id, chain: c.n})
}

// hole reports whether x, starting a chain, continues the one that ended
// with prev after a hole: a resend skips the earlier records it wrote
// with other content, but then writes those in their place, so the later
// session's records between the two chains are at least as many as the
// earlier session's, and those at most tail. A later session that copies
// records from the start of the earlier one and then, with nothing in
// between, its last ones (a startup sequence, then a shutdown message)
// does not continue it.
func (c *chainer) hole(prev, x *cand) bool {
	gap := seqDist(prev.refSeq, x.refSeq)
	if gap < 1 || gap-1 > c.tail {
		return false
	}
	if prev.part != x.part {
		return true
	}
	later := seqDist(prev.seq, x.seq)
	return later >= gap && later < 1<<30
}

// start opens a chain at x. The records of the later session before x
// count towards its head, but for copies of other earlier sessions or
// partitions, graded in chains of their own, and the copies of the
// chains this one continues after a hole (block).
func (c *chainer) start(x *cand) {
	c.open = true
	c.f = chainFacts{firstPos: -1, refEndTs: -1, laterPID: x.pid, laterEp: x.epoch, refPID: x.refPID, refEp: x.refEp, refPart: x.refPart}
	if x.pos >= 0 {
		excused := min(x.same, c.block)
		c.f.firstPos = max(x.pos-x.other-excused, 0)
		c.f.skipped, c.f.copies = x.pos-c.f.firstPos, x.same-excused
	}
	c.f.headOK = c.f.firstPos >= 0 && c.f.firstPos <= c.head
	clear(c.parts)
}

// end stores the open chain's facts.
func (c *chainer) end() error {
	if !c.open {
		return nil
	}
	c.open = false
	c.f.trailing = -1
	if s := c.d.spans[spanKey{c.last.refPart, c.last.refPID, int32(c.last.refEp)}]; s != nil {
		c.f.trailing = seqDist(c.last.refSeq, s.lastSeq)
	}
	if c.f.trailing >= 0 && c.f.trailing <= c.tail {
		c.d.cover(&c.f)
	}
	var b [chainFactsBytes]byte
	c.f.encode(b[:])
	if _, err := c.facts.add(b[:]); err != nil {
		return err
	}
	c.n++
	return nil
}

// fresher counts, in session order, the records of each later session
// before a candidate that are not candidates, and passes the candidates
// on to be sorted by chain.
type fresher struct {
	d     *Detector
	out   *extSorter[cand]
	last  cand
	any   bool
	count int64 // candidates of the session so far, distinct sequences
	// byRef counts them by earlier session and partition; as many keys
	// as the later session copied sessions from, at most the spans.
	byRef map[refKey]int64
}

type refKey struct {
	part  uint32
	pid   int64
	epoch int16
}

func (f *fresher) add(x *cand) error {
	same := f.any && x.part == f.last.part && x.pid == f.last.pid && x.epoch == f.last.epoch
	if !same {
		f.count = 0
		clear(f.byRef)
	}
	k := refKey{x.refPart, x.refPID, x.refEp}
	if !same || x.seq != f.last.seq {
		f.count++
		f.byRef[k]++
	}
	f.last, f.any = *x, true
	y := *x
	y.fresh, y.pos, y.other, y.same = -1, -1, 0, 0
	if p := f.d.pos(x.part, x.pid, x.epoch, x.seq); p >= 0 {
		before := f.count - 1
		y.fresh, y.pos = max(p-before, 0), p
		y.same = min(max(f.byRef[k]-1, 0), p)
		y.other = max(min(before-y.same, p-y.same), 0)
	}
	return f.out.add(&y)
}

// chains forms the chains of the candidates (sorted by session) and
// returns, sorted by candidate id, the chain of each, and the chains'
// facts; st counts the files it spilled and removed.
func (d *Detector) chains(ctx context.Context, cands *extSorter[cand], st *Stats) (*extSorter[candChain], *store, error) {
	byChain := newExtSorter(d.opts.TmpDir, "cands", int(max(d.opts.MemBudget/8/64, 64)), cands.codec, d.cmpCand)
	defer func() {
		byChain.close()
		st.SpillFiles, st.SpillBytes = st.SpillFiles+byChain.files, st.SpillBytes+byChain.bytes
	}()
	if err := cands.each(ctx, (&fresher{d: d, out: byChain, byRef: map[refKey]int64{}}).add); err != nil {
		return nil, nil, err
	}
	cands.close()
	head, tail, _ := d.opts.evidenceOpts()
	held := int(max(d.opts.MemBudget/8/16, 64)) // 16-byte links
	c := &chainer{d: d, head: head, tail: tail, parts: map[uint32]*chainPart{}, facts: d.factStore("chains"),
		links: newExtSorter(d.opts.TmpDir, "chains", held, codec[candChain]{16, encodeCandChain, decodeCandChain},
			func(a, b *candChain) int { return cmp.Compare(a.id, b.id) })}
	err := byChain.each(ctx, c.add)
	if err == nil {
		err = c.end()
	}
	if err == nil {
		err = c.facts.done()
	}
	var facts *store
	if err == nil {
		facts, err = d.endFacts(ctx, c.facts, st)
	}
	if err != nil {
		c.facts.close()
		c.links.close()
		return nil, nil, err
	}
	return c.links, facts, nil
}

func (d *Detector) factStore(name string) *store {
	return &store{tape: tape{tmpDir: d.opts.TmpDir, name: name, limit: int(max(d.opts.MemBudget/8, 4096))}, size: chainFactsBytes}
}

// endFacts copies the facts of every chain, with what the earlier
// session did after it across the inputs (sessionEnd), which needs every
// chain's tail first; it closes in.
func (d *Detector) endFacts(ctx context.Context, in *store, st *Stats) (*store, error) {
	out := d.factStore("ends")
	defer func() {
		st.SpillFiles, st.SpillBytes = st.SpillFiles+in.files, st.SpillBytes+in.bytes
		in.close()
	}()
	var b [chainFactsBytes]byte
	var f chainFacts
	for i := range in.n {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				out.close()
				return nil, err
			}
		}
		if err := in.get(i, b[:]); err != nil {
			out.close()
			return nil, err
		}
		f.decode(b[:])
		d.sessionEnd(&f)
		f.encode(b[:])
		if _, err := out.add(b[:]); err != nil {
			out.close()
			return nil, err
		}
	}
	if err := out.done(); err != nil {
		out.close()
		return nil, err
	}
	return out, nil
}

// grade judges later copy m of ref (verdict v) on the facts of its chain;
// writes is how many copies of the content m's session wrote (0 unknown).
func (d *Detector) grade(m, ref *rec, v *verdict, f *chainFacts, writes int32) (evidence string, why uint16, reasons string) {
	_, tailMax, minRun := d.opts.evidenceOpts()
	t := v
	if v.reason == reasonAborted {
		tv := d.timing(m, ref)
		t = &tv
	}
	var rs []string
	if t.reason != reasonRestart {
		why |= WhyNoRestart
		rs = append(rs, "no restart: "+d.reasonText(m, ref, t))
	}
	switch {
	case f.records < minRun && f.records == 1:
		why |= WhyShort
		rs = append(rs, RunOfOne+": one record written again reads the same whether it was resent or written anew")
	case f.records < minRun:
		why |= WhyShort
		rs = append(rs, fmt.Sprintf("a run of %d records, fewer than %d", f.records, minRun))
	}
	switch {
	case f.firstPos < 0:
		why |= WhyNoSequence
		rs = append(rs, "no sequence numbers to place the run in "+pidName(m)+"'s session")
	case !f.headOK:
		why |= WhyNotHead
		r := fmt.Sprintf("not the head of %s's session in %s: %d records of its own came before the run there", pidName(m), d.pname(m), f.firstPos)
		if f.copies > 0 {
			r += fmt.Sprintf(", %d of them copies of %s's records that this run does not continue", f.copies, pidName(ref))
		}
		rs = append(rs, r)
	}
	switch {
	case f.trailing < 0:
		if why&WhyNoSequence == 0 {
			why |= WhyNoSequence
			rs = append(rs, "no sequence numbers to place the run in "+pidName(ref)+"'s session")
		}
	case f.trailing > tailMax:
		why |= WhyNotTail
		rs = append(rs, fmt.Sprintf("not the tail of %s's session in %s: it wrote %d more records after the run", pidName(ref), d.pname(ref), f.trailing))
	}
	if f.records > 1 && f.distinct < 2 {
		why |= WhyConstant
		rs = append(rs, "one value repeated")
	}
	// A resend writes each record once; a producer that writes the same
	// content again and again is sending a constant.
	if writes > 1 {
		why |= WhyConstant
		rs = append(rs, fmt.Sprintf("%s's session wrote this content %d times", pidName(m), writes))
	}
	if f.common > 0 && 2*f.common >= f.records {
		why |= WhyCommon
		rs = append(rs, "content that new producer sessions write at their start (three producers or more wrote it, the first as its session's first record)")
	}
	// Only a restart resends what was in flight at a session's end; a
	// transaction is retried while its session lives.
	resend := v.class == ClassRestartResend || v.class == ClassReprocess
	if f.uncovered > 0 && resend {
		why |= WhyNotInFlight
		rs = append(rs, inFlightText(m, ref, f))
	}
	if why != 0 {
		return EvidenceWeak, why, strings.Join(rs, "; ")
	}
	s := fmt.Sprintf("%s's session in %s began %s after %s's last write; a run of %d records repeating %s's in order, the tail of its session",
		pidName(m), d.pname(m), fmtGap(t.sessionGap), pidName(ref), f.records, pidName(ref))
	if f.trailing > 0 {
		s += fmt.Sprintf(" but for %d record%s never resent", f.trailing, plural(int(f.trailing), "", "s"))
	}
	s += fmt.Sprintf(", and the head of %s's", pidName(m))
	if f.firstPos > 0 {
		s += fmt.Sprintf(" after %d record%s of its own", f.firstPos, plural(int(f.firstPos), "", "s"))
	}
	if f.skipped > 0 {
		s += fmt.Sprintf(" (not counting %d cop%s of earlier records before it, of this resend or of runs graded on their own)",
			f.skipped, plural(int(f.skipped), "y", "ies"))
	}
	if f.parts > 1 {
		s += fmt.Sprintf(", spread over %d partitions", f.parts)
	}
	if f.laterParts > 0 && resend {
		s += fmt.Sprintf("; %s wrote on in %d other partition%s for longer than %s after it, and %s resent their tails too (a replay)",
			pidName(ref), f.laterParts, plural(int(f.laterParts), "", "s"), fmtGap(d.opts.inFlight()), pidName(m))
	}
	return EvidenceStrong, 0, s
}
