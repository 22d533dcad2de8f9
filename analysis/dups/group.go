package dups

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
)

// Finish groups the records and calls emit with their rows, in group
// order: once per group, or for a group of more than emitRows members
// once per emitRows of them, in member order; the slice is reused after
// emit returns.
//
// It works in three passes, each in bounded memory. The grouping writes
// every member to a tape, and the later copies to grade (restart-resend
// and txn-retry) to a sorter; the chain pass sorts those by writer and
// forms the runs they make, whose facts grade each copy; the rows are
// then made from the tape with their grades.
func (d *Detector) Finish(ctx context.Context, emit func([]analysis.DuplicateRow) error) (Stats, error) {
	if d.finished {
		return Stats{}, errors.New("dups: Finish called twice")
	}
	d.finished = true
	d.rankScopes()
	d.rankParts()
	d.indexSessions()
	// The tape and the candidates take a sixteenth of the budget each
	// beside the records' entries; the chain pass, after the entries are
	// released, an eighth for its facts and as much for its links.
	g := &grouper{d: d, ctx: ctx,
		tape: &tape{tmpDir: d.opts.TmpDir, name: "rows", limit: int(max(d.opts.MemBudget/16, 4096))}}
	g.cands = newExtSorter(d.opts.TmpDir, "cands", int(max(d.opts.MemBudget/16/64, 64)),
		codec[cand]{candBytes, encodeCand, decodeCand}, d.cmpSession)
	g.retries = d.newRetrySorter()
	defer g.tape.close()
	defer g.cands.close()
	defer g.retries.close()
	var err error
	if d.spill == nil {
		err = g.process(d.buf)
	} else {
		if err = d.spillBuf(); err == nil {
			err = d.spill.drain(ctx, d, g)
		}
	}
	d.buf = nil
	freeRecs(d.arena) // no slice of it outlives the grouping above
	d.arena = nil
	st := Stats{Records: d.records, Groups: g.groups}
	if err == nil {
		var gr grades
		gr.links, gr.facts, err = d.chains(ctx, g.cands, &st)
		st.SpillFiles, st.SpillBytes = st.SpillFiles+g.cands.files, st.SpillBytes+g.cands.bytes
		if err == nil {
			gr.retryLinks, gr.retryFacts, err = d.retryRuns(ctx, g.retries, &st)
			if err != nil {
				err = errors.Join(err, gr.links.close(), gr.facts.close())
			}
		}
		if err == nil {
			err = g.rows(emit, &gr)
			err = errors.Join(err, gr.links.close(), gr.facts.close(), gr.retryLinks.close(), gr.retryFacts.close())
			st.SpillFiles += gr.links.files + gr.facts.files + gr.retryLinks.files + gr.retryFacts.files
			st.SpillBytes += gr.links.bytes + gr.facts.bytes + gr.retryLinks.bytes + gr.retryFacts.bytes
		}
	}
	st.Members, st.Duplicates = g.members, g.members-g.groups
	st.SpillFiles += g.tape.files
	st.SpillBytes += g.tape.bytes
	if d.spill != nil {
		st.SpillFiles, st.SpillBytes, st.SortedRuns = st.SpillFiles+d.spill.files, st.SpillBytes+d.spill.bytes, d.spill.runs
	}
	return st, err
}

// grouper turns sorted entries into groups, their members onto the tape.
type grouper struct {
	d       *Detector
	ctx     context.Context
	tape    *tape
	cands   *extSorter[cand]
	retries *extSorter[retryCand]
	ncand   int64
	groups  int64
	members int64
	n       int
	buf     []byte
}

func (g *grouper) process(rs []rec) error {
	d := g.d
	rs = repeated(rs)
	d.sortRecs(rs)
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[j].fp == rs[i].fp && d.parts[rs[j].part].scope == d.parts[rs[i].part].scope {
			j++
		}
		if j-i >= 2 {
			if err := g.group(rs[i:j]); err != nil {
				return err
			}
		}
		i = j
		if g.n++; g.n%4096 == 0 {
			if err := g.ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// group handles one run of entries sharing fingerprint and scope, in
// memory.
func (g *grouper) group(ms []rec) error {
	g.d.inPartitionOrder(ms)
	var st groupStats
	f := memberFilter{d: g.d}
	for k := range ms {
		if f.keep(&ms[k]) {
			st.add(g.d, &ms[k])
		}
	}
	if !st.reported(g.d.opts.SamePID) {
		return nil
	}
	w := g.start(&st)
	f = memberFilter{d: g.d}
	for k := range ms {
		if f.keep(&ms[k]) {
			if err := g.add(w.row(&ms[k])); err != nil {
				return err
			}
		}
	}
	return nil
}

// add writes a member to the tape, and a later copy to grade to the
// candidates (a retry to the retries').
func (g *grouper) add(t *tapeRow) error {
	t.cand = -1
	if t.class == ClassRetry {
		t.cand = g.ncand
		g.ncand++
		if err := g.addRetry(t); err != nil {
			return err
		}
	}
	if t.class == ClassRestartResend || t.class == ClassTxnRetry || t.class == ClassReprocess {
		t.cand = g.ncand
		g.ncand++
		c := cand{id: t.cand, part: t.m.part, refPart: t.ref.part, pid: t.m.pid, refPID: t.ref.pid, epoch: t.m.epoch, refEp: t.ref.epoch,
			seq: t.m.seq, refSeq: t.ref.seq, refTs: t.ref.ts, fp: binary.BigEndian.Uint64(t.m.fp[:8]) ^ binary.BigEndian.Uint64(t.m.fp[8:]), common: t.common}
		if err := g.cands.add(&c); err != nil {
			return err
		}
	}
	g.buf = t.encode(g.buf[:0])
	return g.tape.write(g.buf)
}

// flush is where a group's rows end; the tape needs no mark.
func (g *grouper) flush() error { return nil }

// memberFilter drops replicas of a record (the same offset copied from two
// brokers, or a -future dir), which are one record: of the entries of a
// group in order, the first copy, the undamaged one, is the member.
type memberFilter struct {
	d    *Detector
	last rec
	any  bool
}

// keep reports whether m is a member, not a replica of the last member.
func (f *memberFilter) keep(m *rec) bool {
	if f.any {
		p, q := &f.d.parts[f.last.part], &f.d.parts[m.part]
		if m.off == f.last.off && p.topicIdx == q.topicIdx && p.partition == q.partition {
			return false
		}
	}
	f.last, f.any = *m, true
	return true
}

// groupStats is what a first pass over a group's members learns: their
// number, the first, and the PIDs of the later ones that differ from the
// first's, in order of appearance, the first maxNamedPIDs of them (a
// heartbeat written under millions of PIDs must not hold them all).
type groupStats struct {
	n     int
	first rec
	pids  []int64
	more  bool // PIDs beyond pids
	// retried: an aborted member is followed by one that is not, which
	// is a transaction's retry even under one PID: a transactional.id
	// keeps its PID across restarts, and an aborted transaction's
	// records are sent again in a later one.
	aborted, retried bool
	// caused: a member repeats the one before it as a retry or a failed
	// deduplication (causes.go), which needs no second writer either;
	// last is the member before.
	caused bool
	last   rec
	// tally counts the members of the first sessions (PID and epoch),
	// up to maxNamedPIDs+1 of them.
	tally []sessionCount
}

type sessionCount struct {
	pid   int64
	epoch int16
	n     int32
}

func (s *groupStats) add(d *Detector, m *rec) {
	s.count(m)
	if s.n > 0 && d.cause(&s.last, m) != "" {
		s.caused = true
	}
	s.last = *m
	if m.txn() == analysis.TxnAborted {
		s.aborted = true
	} else if s.aborted {
		s.retried = true
	}
	if s.n++; s.n == 1 {
		s.first = *m
		return
	}
	if m.pid == s.first.pid || s.more || slices.Contains(s.pids, m.pid) {
		return
	}
	if len(s.pids) == maxNamedPIDs {
		s.more = true
		return
	}
	s.pids = append(s.pids, m.pid)
}

func (s *groupStats) count(m *rec) {
	for i := range s.tally {
		if c := &s.tally[i]; c.pid == m.pid && c.epoch == m.epoch {
			c.n++
			return
		}
	}
	if len(s.tally) <= maxNamedPIDs {
		s.tally = append(s.tally, sessionCount{m.pid, m.epoch, 1})
	}
}

// writes is how many members the session of m wrote; 0 when unknown (a
// session beyond the tallied ones).
func (s *groupStats) writes(m *rec) int32 {
	for _, c := range s.tally {
		if c.pid == m.pid && c.epoch == m.epoch {
			return c.n
		}
	}
	return 0
}

// reported: a group is two members or more written under two PIDs at
// least, or under one with --same-pid, when an aborted copy was sent
// again (a txn-retry needs no second PID), or when a copy is a retry or
// a dedup failure.
func (s *groupStats) reported(samePID bool) bool {
	return s.n >= 2 && (len(s.pids) > 0 || samePID || s.retried || s.caused)
}

// start numbers a reported group and returns what makes its rows.
func (g *grouper) start(st *groupStats) *groupRows {
	g.groups++
	w := &groupRows{d: g.d, group: g.groups, stats: st}
	if !g.d.opts.NoExplanations {
		w.first = g.d.firstExplanation(st)
	}
	// Content that new sessions of an application write at their start
	// (a startup message): three writers or more, the first of them
	// opening its own session with it (or writing without a session,
	// PID -1). A resend's first copy is where the earlier session was
	// when it crashed, seldom its first record.
	if len(st.pids)+1 >= 3 {
		f := &st.first
		w.common = f.pid < 0 || g.d.pos(f.part, f.pid, f.epoch, f.seq) == 0
	}
	return w
}

// groupRows makes the tape rows of a group's members, given one at a
// time in order. Each later member is compared with the last member
// (lastA) when that is of the same producer session, else with the
// latest earlier member by another writer (lastB), else with lastA.
type groupRows struct {
	d            *Detector
	group        int64
	stats        *groupStats
	first        string
	common       bool
	k            int
	lastA, lastB rec
	hasB         bool
	t            tapeRow
}

func (w *groupRows) row(m *rec) *tapeRow {
	w.k++
	w.t = tapeRow{group: w.group, k: int32(w.k), m: *m, common: w.common}
	if w.k == 1 {
		w.t.first = w.first
	} else {
		ref := &w.lastA
		switch a := &w.lastA; {
		case w.d.cause(a, m) != "":
			// A retry or a failed deduplication repeats the copy just
			// before it.
		case a.writerEq(m) && a.epoch == m.epoch && m.pid >= 0 && a.txn() != analysis.TxnAborted:
			// m's session wrote this content already: a restarted
			// producer resends a record once, so this copy is the
			// session's own repeat (a heartbeat), not a resend of
			// another writer's.
		case a.writerEq(m) && w.hasB:
			ref = &w.lastB
		}
		w.t.ref = *ref
		w.t.writes = w.stats.writes(m)
		v := w.d.judgeAll(m, ref)
		w.t.class, w.t.reason, w.t.sessionGap = v.class, v.reason, v.sessionGap
		if v.gap != nil {
			w.t.hasGap, w.t.gap = true, *v.gap
		}
		if !w.lastA.writerEq(m) {
			w.lastB, w.hasB = w.lastA, true
		}
	}
	w.lastA = *m
	return &w.t
}

// tapeRow is a member as the tape holds it: the record, the earlier copy
// it was compared with and the verdict (k > 1), or the first copy's
// explanation.
type tapeRow struct {
	group      int64
	k          int32
	m, ref     rec
	class      string
	reason     reasonKind
	hasGap     bool
	common     bool
	gap        int64
	sessionGap int64
	cand       int64 // -1: not graded
	writes     int32 // members of the group by this copy's session; 0 unknown
	first      string
}

var classIndex = map[string]byte{"": 0, ClassRestartResend: 1, ClassTxnRetry: 2, ClassRepeat: 3, ClassRetry: 4, ClassDedupFailure: 5,
	ClassReprocess: 6, ClassRebalance: 7}
var classByIndex = [...]string{"", ClassRestartResend, ClassTxnRetry, ClassRepeat, ClassRetry, ClassDedupFailure, ClassReprocess, ClassRebalance}

const tapeRowBytes = 8 + 4 + 2*recordBytes + 4 + 3*8 + 4 + 4

func (t *tapeRow) encode(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(t.group))
	b = le.AppendUint32(b, uint32(t.k))
	var r [recordBytes]byte
	encodeRec(r[:], &t.m)
	b = append(b, r[:]...)
	encodeRec(r[:], &t.ref)
	b = append(b, r[:]...)
	var flags byte
	if t.hasGap {
		flags |= 1
	}
	if t.common {
		flags |= 2
	}
	b = append(b, classIndex[t.class], byte(t.reason), flags, 0)
	b = le.AppendUint64(b, uint64(t.gap))
	b = le.AppendUint64(b, uint64(t.sessionGap))
	b = le.AppendUint64(b, uint64(t.cand))
	b = le.AppendUint32(b, uint32(t.writes))
	b = le.AppendUint32(b, uint32(len(t.first)))
	return append(b, t.first...)
}

// read reads the next row from the tape; io.EOF at its end.
func (t *tapeRow) read(tp *tape, b []byte) ([]byte, error) {
	b = slices.Grow(b[:0], tapeRowBytes)[:tapeRowBytes]
	if err := tp.read(b); err != nil {
		return b, err
	}
	le := binary.LittleEndian
	t.group, t.k = int64(le.Uint64(b)), int32(le.Uint32(b[8:]))
	p := b[12:]
	decodeRec(p, &t.m)
	decodeRec(p[recordBytes:], &t.ref)
	p = p[2*recordBytes:]
	if int(p[0]) >= len(classByIndex) {
		return b, errors.New("dups: spill: bad tape row")
	}
	t.class, t.reason, t.hasGap, t.common = classByIndex[p[0]], reasonKind(p[1]), p[2]&1 != 0, p[2]&2 != 0
	t.gap, t.sessionGap, t.cand = int64(le.Uint64(p[4:])), int64(le.Uint64(p[12:])), int64(le.Uint64(p[20:]))
	t.writes = int32(le.Uint32(p[28:]))
	n := le.Uint32(p[32:])
	if n > 1<<24 {
		return b, fmt.Errorf("dups: spill: tape row text of %d bytes", n)
	}
	b = slices.Grow(b[:0], int(n))[:n]
	if err := tp.read(b); err != nil {
		if err == io.EOF {
			err = errors.New("dups: spill: tape cut short")
		}
		return b, err
	}
	t.first = string(b)
	return b, nil
}

// grades are what the rows are graded on: the chain of every
// restart-resend and txn-retry candidate and the chains' facts, the run
// of every retry and the runs' facts, each sorted by candidate id.
type grades struct {
	links, retryLinks *extSorter[candChain]
	facts, retryFacts *store
}

// pullLinks iterates links in candidate order; *errp holds its error
// once it has stopped.
func (g *grouper) pullLinks(links *extSorter[candChain], errp *error) (func() (candChain, bool), func()) {
	return iter.Pull(func(yield func(candChain) bool) {
		*errp = links.each(g.ctx, func(c *candChain) error {
			if !yield(*c) {
				return errEnough
			}
			return nil
		})
	})
}

// rows reads the tape back and emits the rows, graded by the chains and
// the retries' runs.
func (g *grouper) rows(emit func([]analysis.DuplicateRow) error, gr *grades) error {
	d := g.d
	if err := g.tape.rewind(); err != nil {
		return err
	}
	var linkErr, retryErr error
	next, stop := g.pullLinks(gr.links, &linkErr)
	defer stop()
	nextRetry, stopRetry := g.pullLinks(gr.retryLinks, &retryErr)
	defer stopRetry()
	var (
		rows []analysis.DuplicateRow
		t    tapeRow
		buf  []byte
		fb   [chainFactsBytes]byte
		rb   [retryFactsBytes]byte
		err  error
	)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		g.members += int64(len(rows))
		err := emit(rows)
		rows = rows[:0]
		return err
	}
	for n := 0; ; n++ {
		if buf, err = t.read(g.tape, buf); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		if n%4096 == 0 {
			if err := g.ctx.Err(); err != nil {
				return err
			}
		}
		if len(rows) > 0 && (rows[0].GroupID != t.group || len(rows) >= emitRows) {
			if err := flush(); err != nil {
				return err
			}
		}
		var f *chainFacts
		var rf *retryFacts
		switch {
		case t.cand >= 0 && t.class == ClassRetry:
			c, ok := nextRetry()
			if !ok || c.id != t.cand {
				return errors.Join(retryErr, fmt.Errorf("dups: retry %d has no run", t.cand))
			}
			if err := gr.retryFacts.get(c.chain, rb[:]); err != nil {
				return err
			}
			rf = &retryFacts{}
			rf.decode(rb[:])
		case t.cand >= 0:
			c, ok := next()
			if !ok || c.id != t.cand {
				return errors.Join(linkErr, fmt.Errorf("dups: candidate %d has no chain", t.cand))
			}
			if err := gr.facts.get(c.chain, fb[:]); err != nil {
				return err
			}
			f = &chainFacts{}
			f.decode(fb[:])
		}
		rows = append(rows, d.makeRow(&t, f, rf))
	}
	return flush()
}

// makeRow is the row of tape row t, graded on the facts f of its chain
// when it is a restart-resend or txn-retry, on those of its run rf when
// it is a retry.
func (d *Detector) makeRow(t *tapeRow, f *chainFacts, rf *retryFacts) analysis.DuplicateRow {
	m := &t.m
	pi := &d.parts[m.part]
	row := analysis.DuplicateRow{Input: pi.input, Source: pi.source, GroupID: t.group, Fingerprint: hex.EncodeToString(m.fp[:]), Topic: pi.topic,
		Partition: pi.partition, Offset: m.off, ProducerID: m.pid, ProducerEpoch: int32(m.epoch), Sequence: m.seq, Timestamp: analysis.Millis(m.ts),
		Occurrence: t.k, TxnState: m.txn().String(), Damaged: m.damaged(), Dir: pi.dir}
	if t.k == 1 {
		row.Explanation = t.first
		return row
	}
	ref := &t.ref
	rp := &d.parts[ref.part]
	topic, part, off, pid := rp.topic, rp.partition, ref.off, ref.pid
	row.RefTopic, row.RefPartition, row.RefOffset, row.RefProducerID = &topic, &part, &off, &pid
	row.RefDir = rp.dir
	row.Class = t.class
	if t.hasGap {
		g := t.gap
		row.GapMillis = &g
	}
	row.CopyGapMillis, row.SessionAgeMillis = copyGap(m, ref), d.sessionAge(m)
	v := verdict{class: t.class, reason: t.reason, sessionGap: t.sessionGap, gap: row.GapMillis}
	switch {
	case f != nil:
		row.Evidence, row.EvidenceWhy, row.EvidenceReasons = d.grade(m, ref, &v, f, t.writes)
	case rf != nil:
		row.Evidence, row.EvidenceWhy, row.EvidenceReasons = d.gradeRetry(m, ref, rf)
	case t.class == ClassDedupFailure:
		row.Evidence, row.EvidenceWhy, row.EvidenceReasons = d.gradeDedup(m, ref)
	}
	var cm *consumerMatch
	if t.class == ClassReprocess || t.class == ClassRebalance {
		// The match is found again: it is a function of the two copies
		// and the groups' records, cheaper to redo than to keep on the tape.
		cm = d.consumerCause(m, ref, &verdict{class: producerClass(t.class, t.reason), reason: t.reason})
		switch {
		case cm != nil && cm.class == ClassReprocess && !cm.link.checked && row.Evidence != EvidenceStrong:
			// A link only inferred is not enough to say more than the
			// producers show when their bytes do not show a resend
			// either: a group of the same application restarting with
			// it fits every restart.
			cm, row.Class, v.class = nil, ClassRestartResend, ClassRestartResend
		case cm != nil:
			row.Evidence, row.EvidenceWhy, row.EvidenceReasons = d.gradeConsumer(cm, row.Evidence, row.EvidenceWhy, row.EvidenceReasons)
		}
	}
	if !d.opts.NoExplanations {
		row.Explanation = d.explain(m, ref, &v, row.Evidence, row.EvidenceReasons, cm)
	}
	return row
}

// emitRows is how many rows are emitted at once: a group of more members
// (a constant heartbeat repeated by millions of records) comes in parts,
// so its rows, a few hundred bytes each with the explanation, are never
// all in memory.
const emitRows = 4096
