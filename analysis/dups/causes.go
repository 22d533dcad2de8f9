package dups

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
)

// Two causes of a later copy that need no second writer: a producer
// without idempotence that sent a batch again after its request failed
// while the broker had appended it (retry), and a broker that appended a
// batch of an idempotent producer twice, sequence numbers and all,
// instead of rejecting the second as a duplicate (dedup-failure).
//
// Both are told from the copy just before in the group: a retry keeps the
// producer's timestamps (it stamps a record once, when it is sent) and
// lands later in the same partition; a dedup failure repeats the PID,
// epoch and sequence number in the same partition.

// DefaultRetryDistance is how many offsets after its first copy a retried
// record may land and still be strong evidence of a retry: what other
// producers appended while the request was in flight lies between.
const DefaultRetryDistance = 10_000

// retryDistance is the bound in offsets; 0 when there is none.
func (o *Options) retryDistance() int64 {
	switch {
	case o.RetryDistance == 0:
		return DefaultRetryDistance
	case o.RetryDistance < 0:
		return 0
	}
	return o.RetryDistance
}

// cause is ClassRetry or ClassDedupFailure when m, the member after a in
// a group, repeats a as a retry or as a failed deduplication; "" when it
// is neither.
func (d *Detector) cause(a, m *rec) string {
	pa, pm := &d.parts[a.part], &d.parts[m.part]
	if pa.topicIdx != pm.topicIdx || pa.partition != pm.partition || m.off <= a.off {
		return ""
	}
	switch {
	case a.pid >= 0 && m.pid == a.pid && m.epoch == a.epoch && a.seq >= 0 && m.seq == a.seq:
		return ClassDedupFailure
	case a.pid < 0 && m.pid < 0 && a.ts >= 0 && m.ts == a.ts && (a.flags|m.flags)&flagLogAppend == 0 && !a.sameBatch(m):
		return ClassRetry
	}
	return ""
}

// retryCand is a retry copy to grade: where it landed and where its
// earlier copy is (always the same partition).
type retryCand struct {
	id        int64
	part      uint32
	off, ref  int64
	fp        uint64
	refPartOK bool // the earlier copy is in the same partition dir
}

const retryCandBytes = 8 + 4 + 8 + 8 + 8 + 1

func encodeRetryCand(b []byte, c *retryCand) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(c.id))
	le.PutUint32(b[8:], c.part)
	le.PutUint64(b[12:], uint64(c.off))
	le.PutUint64(b[20:], uint64(c.ref))
	le.PutUint64(b[28:], c.fp)
	b[36] = 0
	if c.refPartOK {
		b[36] = 1
	}
}

func decodeRetryCand(b []byte, c *retryCand) {
	le := binary.LittleEndian
	_ = b[retryCandBytes-1]
	c.id, c.part = int64(le.Uint64(b[0:])), le.Uint32(b[8:])
	c.off, c.ref, c.fp = int64(le.Uint64(b[12:])), int64(le.Uint64(b[20:])), le.Uint64(b[28:])
	c.refPartOK = b[36] != 0
}

// retryFacts are what a run of retried records shows: copies at
// consecutive offsets of one partition dir repeating earlier records in
// their order, with their timestamps.
type retryFacts struct {
	records, distinct int64
	// minDist and maxDist bound how many offsets after its earlier copy
	// each copy of the run landed.
	minDist, maxDist int64
}

const retryFactsBytes = 4 * 8

func (f *retryFacts) encode(b []byte) {
	for i, v := range []int64{f.records, f.distinct, f.minDist, f.maxDist} {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
}

func (f *retryFacts) decode(b []byte) {
	for i, p := range []*int64{&f.records, &f.distinct, &f.minDist, &f.maxDist} {
		*p = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// newRetrySorter holds the retry copies to grade, in offset order of
// their partition dirs, in a thirty-second of the budget.
func (d *Detector) newRetrySorter() *extSorter[retryCand] {
	return newExtSorter(d.opts.TmpDir, "retries", int(max(d.opts.MemBudget/32/retryCandBytes, 64)),
		codec[retryCand]{retryCandBytes, encodeRetryCand, decodeRetryCand},
		func(a, b *retryCand) int {
			return cmp.Or(cmp.Compare(d.rank[a.part], d.rank[b.part]), cmp.Compare(a.off, b.off), cmp.Compare(a.id, b.id))
		})
}

// addRetry takes a retry copy of the tape row t.
func (g *grouper) addRetry(t *tapeRow) error {
	c := retryCand{id: t.cand, part: t.m.part, off: t.m.off, ref: t.ref.off, refPartOK: t.ref.part == t.m.part,
		fp: binary.BigEndian.Uint64(t.m.fp[:8]) ^ binary.BigEndian.Uint64(t.m.fp[8:])}
	return g.retries.add(&c)
}

// retryRuns forms the runs of the retry copies and returns, sorted by
// candidate id, the run of each, and the runs' facts. A copy continues a
// run when it lands at the next offset of the same partition dir and its
// earlier copy lies after the run's last earlier copy: a retried batch is
// written whole, and a client that re-batches its retries keeps their
// order.
func (d *Detector) retryRuns(ctx context.Context, cands *extSorter[retryCand], st *Stats) (*extSorter[candChain], *store, error) {
	facts := &store{tape: tape{tmpDir: d.opts.TmpDir, name: "retry-runs", limit: int(max(d.opts.MemBudget/32, 4096))}, size: retryFactsBytes}
	links := newExtSorter(d.opts.TmpDir, "retry-runs", int(max(d.opts.MemBudget/32/16, 64)), codec[candChain]{16, encodeCandChain, decodeCandChain},
		func(a, b *candChain) int { return cmp.Compare(a.id, b.id) })
	var (
		f    retryFacts
		last retryCand
		open bool
		n    int64
		b    [retryFactsBytes]byte
	)
	end := func() error {
		if !open {
			return nil
		}
		f.encode(b[:])
		_, err := facts.add(b[:])
		n++
		return err
	}
	err := cands.each(ctx, func(x *retryCand) error {
		dist := x.off - x.ref
		if open && x.part == last.part && x.off == last.off+1 && x.ref > last.ref && x.refPartOK == last.refPartOK {
			f.records++
			if x.fp != last.fp {
				f.distinct++
			}
			f.minDist, f.maxDist = min(f.minDist, dist), max(f.maxDist, dist)
		} else {
			if err := end(); err != nil {
				return err
			}
			open, f = true, retryFacts{records: 1, distinct: 1, minDist: dist, maxDist: dist}
		}
		last = *x
		return links.add(&candChain{id: x.id, chain: n})
	})
	if err == nil {
		err = end()
	}
	if err == nil {
		err = facts.done()
	}
	st.SpillFiles, st.SpillBytes = st.SpillFiles+cands.files, st.SpillBytes+cands.bytes
	cands.close()
	if err != nil {
		facts.close()
		links.close()
		return nil, nil, err
	}
	return links, facts, nil
}

// gradeRetry judges retry copy m of ref on the facts of its run.
func (d *Detector) gradeRetry(m, ref *rec, f *retryFacts) (evidence string, why uint16, reasons string) {
	_, _, minRun := d.opts.evidenceOpts()
	var rs []string
	switch {
	case f.records < minRun && f.records == 1:
		why |= WhyShort
		rs = append(rs, RunOfOne+": an application that writes a record twice within one millisecond leaves the same bytes")
	case f.records < minRun:
		why |= WhyShort
		rs = append(rs, fmt.Sprintf("a run of %d records, fewer than %d", f.records, minRun))
	}
	if f.records > 1 && f.distinct < 2 {
		why |= WhyConstant
		rs = append(rs, "one value repeated")
	}
	if bound := d.opts.retryDistance(); bound > 0 && f.maxDist > bound {
		why |= WhyFar
		rs = append(rs, fmt.Sprintf("up to %d offsets after the first copies, more than %d: a retry lands behind what was appended while its request was in flight, "+
			"and an application replaying records with their own timestamps reads the same", f.maxDist, bound))
	}
	if why != 0 {
		return EvidenceWeak, why, strings.Join(rs, "; ")
	}
	dist := fmt.Sprintf("%d", f.minDist)
	if f.maxDist != f.minDist {
		dist = fmt.Sprintf("%d to %d", f.minDist, f.maxDist)
	}
	return EvidenceStrong, 0, fmt.Sprintf("a run of %d records with the timestamps of their first copies, in their order, %s offsets later in %s: "+
		"a producer without idempotence sent the batch again after its request failed or timed out, and the broker had appended it the first time",
		f.records, dist, d.pname(m))
}

// gradeDedup judges dedup-failure copy m of ref: a batch resent by its
// producer keeps its timestamps; a client that reset its sequence numbers
// writes the same sequence at another time.
func (d *Detector) gradeDedup(m, ref *rec) (evidence string, why uint16, reasons string) {
	switch {
	case m.ts < 0 || ref.ts < 0:
		return EvidenceWeak, WhyTimestamps, "no timestamps to show the producer resent the same batch"
	case m.ts != ref.ts:
		return EvidenceWeak, WhyTimestamps, fmt.Sprintf("the timestamps differ by %s: a producer resending a batch keeps them, "+
			"while a client that reset its sequence numbers writes the same sequence anew", fmtGap(m.ts-ref.ts))
	}
	return EvidenceStrong, 0, fmt.Sprintf("%s (epoch %d) wrote sequence %d in %s twice, at offsets %d and %d, with the same timestamp: "+
		"the broker appended a batch it should have rejected as a duplicate (its producer state had lost the PID's last sequences, "+
		"as after an unclean leader election or a lost producer snapshot); a broker-side fault", pidName(m), m.epoch, m.seq, d.pname(m), ref.off, m.off)
}

// causeText explains a retry or dedup-failure copy m of ref.
func (d *Detector) causeText(m, ref *rec, class string) string {
	if class == ClassDedupFailure {
		return fmt.Sprintf("the same PID, epoch and sequence (%d) in the same partition: the broker appended a duplicate it should have rejected", m.seq)
	}
	return fmt.Sprintf("the same timestamp, %d offsets later in the same partition: a retry of a producer without idempotence", m.off-ref.off)
}

// notRetry says why two PID -1 copies are not a retry.
func (d *Detector) notRetry(m, ref *rec) string {
	pm, pr := &d.parts[m.part], &d.parts[ref.part]
	switch {
	case pm.topicIdx != pr.topicIdx || pm.partition != pr.partition:
		return "in another partition (a retry goes to the same one)"
	case m.ts < 0 || ref.ts < 0:
		return "without timestamps to tell a retry by"
	case (m.flags|ref.flags)&flagLogAppend != 0:
		return "the broker stamped the timestamps (LogAppendTime), so they cannot show a retry"
	case m.ts != ref.ts:
		return fmt.Sprintf("with timestamps %s apart (a retry keeps the producer's; an application that sends again stamps new ones)", fmtGap(abs(m.ts-ref.ts)))
	case m.sameBatch(ref):
		return "in the same batch (a retry is a batch of its own: the application sent it twice)"
	}
	return "at an earlier offset than the first copy"
}

// notDedup says why two copies of one producer session are not a failed
// deduplication, when they are in one partition.
func (d *Detector) notDedup(m, ref *rec) string {
	pm, pr := &d.parts[m.part], &d.parts[ref.part]
	if pm.topicIdx != pr.topicIdx || pm.partition != pr.partition || m.seq < 0 || ref.seq < 0 || m.txn() == analysis.TxnAborted {
		return ""
	}
	return fmt.Sprintf(", under sequences %d and %d: sent twice by the producer (a broker dedup failure repeats the sequence)", ref.seq, m.seq)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
