package dups

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/ksleuth/ksleuth/analysis"
)

// Run is a stretch of later occurrences written by one producer into one
// partition, copying one earlier producer's records in order: the unit
// the human report is about ("PID 1002 resent 25 records ...").
type Run struct {
	Input int32 `json:"input"`
	// Dir is the partition dir of the run's copies, within their input.
	Dir        string `json:"-"`
	Topic      string `json:"topic"`
	Partition  int32  `json:"partition"`
	ProducerID int64  `json:"producer_id"`
	Epoch      int32  `json:"producer_epoch"`
	Class      string `json:"class"`
	RefTopic   string `json:"ref_topic"`
	RefPart    int32  `json:"ref_partition"`
	RefPID     int64  `json:"ref_producer_id"`
	// First and Last bound the run's offsets; RefFirst and RefLast those of
	// the copies it repeats (the smallest and largest).
	First    int64 `json:"first_offset"`
	Last     int64 `json:"last_offset"`
	RefFirst int64 `json:"ref_first_offset"`
	RefLast  int64 `json:"ref_last_offset"`
	Records  int64 `json:"records"`
	// GapMillis is the gap of the run's first record (see DuplicateRow).
	GapMillis *int64 `json:"gap_ms"`
	Damaged   int64  `json:"damaged"`
	Aborted   int64  `json:"aborted"`
	// Attribution of the two PIDs and how the PID changed, as in
	// DuplicateRow (empty or null when unknown).
	TransactionalID      string `json:"transactional_id"`
	AllocatedByBroker    *int32 `json:"allocated_by_broker"`
	RefTransactionalID   string `json:"ref_transactional_id"`
	RefAllocatedByBroker *int32 `json:"ref_allocated_by_broker"`
	PIDChange            string `json:"pid_change"`
	// Evidence is the grade of the run's copies (strong or weak; empty for
	// repeats), Why the reasons a weak run is not strong (Why* bits).
	// SessionAge and CopyGap are those of its first copy (DuplicateRow).
	Evidence   string `json:"evidence"`
	Why        uint16 `json:"-"`
	SessionAge *int64 `json:"session_age_ms"`
	CopyGap    *int64 `json:"copy_gap_ms"`
	// Times are the timestamps of the run's first and last copies and of
	// the earliest and latest copies they repeat, where the builder was
	// given them (RunBuilder.AddWith); Note is the head's note.
	Times RunTimes `json:"-"`
	Note  uint64   `json:"-"`
}

// RunTimes are the timestamps around a run; nil where unknown.
type RunTimes struct {
	First, Last, RefFirst, RefLast *int64
}

// maxRunStep is how far apart two consecutive members of a run may be:
// 2 lets a run continue over a transaction marker between batches.
const maxRunStep = 2

// Runs collapses later occurrences (rows with a class) into runs, sorted
// by impact: most records first, then topic, partition, offset. It holds
// them all in memory; RunBuilder does the same within a budget.
func Runs(rows []analysis.DuplicateRow) []Run {
	b := NewRunBuilder("", math.MaxInt/2)
	defer b.Close()
	ctx := context.Background()
	for i := range rows {
		if err := b.Add(&rows[i]); err != nil {
			panic(err) // in memory: nothing can fail
		}
	}
	var runs []Run
	if _, err := b.Finish(ctx); err != nil {
		panic(err)
	}
	if err := b.Each(ctx, 0, func(u *Run) error { runs = append(runs, *u); return nil }); err != nil {
		panic(err)
	}
	return runs
}

// DefaultRunBudget is the memory a RunBuilder holds later copies and runs
// in before it sorts them on disk.
const DefaultRunBudget = 64 << 20

// RunBuilder makes runs of later occurrences taken in any order (as
// Detector.Finish emits them, by fingerprint) in bounded memory: the
// copies are sorted by writer and offset, in memory up to half the
// budget and on disk beyond it, the runs formed in one pass, and the
// runs sorted by impact the same way.
//
//	b := NewRunBuilder(tmp, DefaultRunBudget)
//	defer b.Close()
//	... b.Add(&row) for every emitted row ...
//	total, err := b.Finish(ctx)
//	err = b.Each(ctx, limit, func(u *Run) error { ... })
type RunBuilder struct {
	names []string
	ids   map[string]uint32
	later *extSorter[laterCopy]
	runs  *extSorter[runAcc]
	seq   int64
	total int
}

// laterCopy is a later occurrence as a run needs it; strings are indexes
// into the builder's names.
type laterCopy struct {
	input     int32
	topic     uint32
	partition int32
	pid       int64
	epoch     int32
	offset    int64
	class     uint32
	refTopic  uint32
	refPart   int32
	refPID    int64
	refOffset int64
	gap       int64
	txnID     uint32
	alloc     int32
	refTxnID  uint32
	refAlloc  int32
	pidChange uint32
	flags     uint8
	seq       int64 // order of arrival: the last key, so the order is total
	ts, refTs int64
	note      uint64
	dir       uint32
	refDir    uint32
	evidence  uint32
	why       uint16
	flags2    uint8 // lcAge, lcCopyGap
	age, cgap int64
}

const (
	lcGap = 1 << iota
	lcDamaged
	lcAborted
	lcAlloc
	lcRefAlloc
	lcTs
	lcRefTs
)

const (
	lcAge = 1 << iota
	lcCopyGap
)

const laterCopyBytes = 129 + 4 + 2 + 1 + 8 + 8

func encodeLater(b []byte, c *laterCopy) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(c.input))
	le.PutUint32(b[4:], c.topic)
	le.PutUint32(b[8:], uint32(c.partition))
	le.PutUint64(b[12:], uint64(c.pid))
	le.PutUint32(b[20:], uint32(c.epoch))
	le.PutUint64(b[24:], uint64(c.offset))
	le.PutUint32(b[32:], c.class)
	le.PutUint32(b[36:], c.refTopic)
	le.PutUint32(b[40:], uint32(c.refPart))
	le.PutUint64(b[44:], uint64(c.refPID))
	le.PutUint64(b[52:], uint64(c.refOffset))
	le.PutUint64(b[60:], uint64(c.gap))
	le.PutUint32(b[68:], c.txnID)
	le.PutUint32(b[72:], uint32(c.alloc))
	le.PutUint32(b[76:], c.refTxnID)
	le.PutUint32(b[80:], uint32(c.refAlloc))
	le.PutUint32(b[84:], c.pidChange)
	b[88] = c.flags
	le.PutUint64(b[89:], uint64(c.seq))
	le.PutUint64(b[97:], uint64(c.ts))
	le.PutUint64(b[105:], uint64(c.refTs))
	le.PutUint64(b[113:], c.note)
	le.PutUint32(b[121:], c.dir)
	le.PutUint32(b[125:], c.refDir)
	le.PutUint32(b[129:], c.evidence)
	le.PutUint16(b[133:], c.why)
	b[135] = c.flags2
	le.PutUint64(b[136:], uint64(c.age))
	le.PutUint64(b[144:], uint64(c.cgap))
	_ = b[laterCopyBytes-1]
}

func decodeLater(b []byte, c *laterCopy) {
	le := binary.LittleEndian
	_ = b[laterCopyBytes-1]
	c.input = int32(le.Uint32(b[0:]))
	c.topic = le.Uint32(b[4:])
	c.partition = int32(le.Uint32(b[8:]))
	c.pid = int64(le.Uint64(b[12:]))
	c.epoch = int32(le.Uint32(b[20:]))
	c.offset = int64(le.Uint64(b[24:]))
	c.class = le.Uint32(b[32:])
	c.refTopic = le.Uint32(b[36:])
	c.refPart = int32(le.Uint32(b[40:]))
	c.refPID = int64(le.Uint64(b[44:]))
	c.refOffset = int64(le.Uint64(b[52:]))
	c.gap = int64(le.Uint64(b[60:]))
	c.txnID = le.Uint32(b[68:])
	c.alloc = int32(le.Uint32(b[72:]))
	c.refTxnID = le.Uint32(b[76:])
	c.refAlloc = int32(le.Uint32(b[80:]))
	c.pidChange = le.Uint32(b[84:])
	c.flags = b[88]
	c.seq = int64(le.Uint64(b[89:]))
	c.ts = int64(le.Uint64(b[97:]))
	c.refTs = int64(le.Uint64(b[105:]))
	c.note = le.Uint64(b[113:])
	c.dir = le.Uint32(b[121:])
	c.refDir = le.Uint32(b[125:])
	c.evidence = le.Uint32(b[129:])
	c.why, c.flags2 = le.Uint16(b[133:]), b[135]
	c.age, c.cgap = int64(le.Uint64(b[136:])), int64(le.Uint64(b[144:]))
}

// runAcc is a run being formed, or formed: its first copy and how far it
// reaches.
type runAcc struct {
	head                          laterCopy
	last, refFirst, refLast       int64
	records, damaged, aborted     int64
	lastTs, refFirstTs, refLastTs int64
	tflags                        uint8 // rtLast, rtRefFirst, rtRefLast: the three are known
}

const (
	rtLast = 1 << iota
	rtRefFirst
	rtRefLast
)

const runAccBytes = laterCopyBytes + 9*8 + 1

func encodeRun(b []byte, u *runAcc) {
	encodeLater(b, &u.head)
	le := binary.LittleEndian
	p := b[laterCopyBytes:]
	le.PutUint64(p[0:], uint64(u.last))
	le.PutUint64(p[8:], uint64(u.refFirst))
	le.PutUint64(p[16:], uint64(u.refLast))
	le.PutUint64(p[24:], uint64(u.records))
	le.PutUint64(p[32:], uint64(u.damaged))
	le.PutUint64(p[40:], uint64(u.aborted))
	le.PutUint64(p[48:], uint64(u.lastTs))
	le.PutUint64(p[56:], uint64(u.refFirstTs))
	le.PutUint64(p[64:], uint64(u.refLastTs))
	p[72] = u.tflags
}

func decodeRun(b []byte, u *runAcc) {
	decodeLater(b, &u.head)
	le := binary.LittleEndian
	p := b[laterCopyBytes:]
	u.last = int64(le.Uint64(p[0:]))
	u.refFirst = int64(le.Uint64(p[8:]))
	u.refLast = int64(le.Uint64(p[16:]))
	u.records = int64(le.Uint64(p[24:]))
	u.damaged = int64(le.Uint64(p[32:]))
	u.aborted = int64(le.Uint64(p[40:]))
	u.lastTs = int64(le.Uint64(p[48:]))
	u.refFirstTs = int64(le.Uint64(p[56:]))
	u.refLastTs = int64(le.Uint64(p[64:]))
	u.tflags = p[72]
}

// NewRunBuilder returns a RunBuilder holding up to budget bytes of copies
// and runs in memory, sorting beyond that in a directory of its own
// under tmpDir (removed by Close).
func NewRunBuilder(tmpDir string, budget int64) *RunBuilder {
	b := &RunBuilder{ids: map[string]uint32{}}
	half := budget / 2
	b.later = newExtSorter(tmpDir, "runs", int(min(half/int64(unsafe.Sizeof(laterCopy{})), math.MaxInt32)),
		codec[laterCopy]{laterCopyBytes, encodeLater, decodeLater}, b.cmpLater)
	b.runs = newExtSorter(tmpDir, "runs", int(min(half/int64(unsafe.Sizeof(runAcc{})), math.MaxInt32)),
		codec[runAcc]{runAccBytes, encodeRun, decodeRun}, b.cmpImpact)
	return b
}

func (b *RunBuilder) id(s string) uint32 {
	if i, ok := b.ids[s]; ok {
		return i
	}
	i := uint32(len(b.names))
	b.names = append(b.names, s)
	b.ids[s] = i
	return i
}

// Add takes a row of a duplicate group; a first occurrence (no class) is
// ignored.
func (b *RunBuilder) Add(r *analysis.DuplicateRow) error { return b.AddWith(r, nil, 0) }

// AddWith is Add with the timestamp of the copy r repeats (its ref), when
// known, and a note of the caller's that the run comes back with when r
// is its first copy (Run.Note).
func (b *RunBuilder) AddWith(r *analysis.DuplicateRow, refTs *int64, note uint64) error {
	if r.Class == "" || r.RefOffset == nil || r.RefTopic == nil || r.RefPartition == nil || r.RefProducerID == nil {
		return nil
	}
	c := laterCopy{input: r.Input, topic: b.id(r.Topic), partition: r.Partition, pid: r.ProducerID, epoch: r.ProducerEpoch,
		offset: r.Offset, class: b.id(r.Class), refTopic: b.id(*r.RefTopic), refPart: *r.RefPartition, refPID: *r.RefProducerID,
		refOffset: *r.RefOffset, txnID: b.id(r.TransactionalID), refTxnID: b.id(r.RefTransactionalID), pidChange: b.id(r.PIDChange), seq: b.seq, note: note,
		dir: b.id(r.Dir), refDir: b.id(r.RefDir), evidence: b.id(r.Evidence), why: r.EvidenceWhy}
	b.seq++
	if r.SessionAgeMillis != nil {
		c.flags2 |= lcAge
		c.age = *r.SessionAgeMillis
	}
	if r.CopyGapMillis != nil {
		c.flags2 |= lcCopyGap
		c.cgap = *r.CopyGapMillis
	}
	if r.Timestamp != nil {
		c.flags |= lcTs
		c.ts = *r.Timestamp
	}
	if refTs != nil {
		c.flags |= lcRefTs
		c.refTs = *refTs
	}
	if r.GapMillis != nil {
		c.flags |= lcGap
		c.gap = *r.GapMillis
	}
	if r.Damaged {
		c.flags |= lcDamaged
	}
	if r.TxnState == "aborted" {
		c.flags |= lcAborted
	}
	if r.AllocatedByBroker != nil {
		c.flags |= lcAlloc
		c.alloc = *r.AllocatedByBroker
	}
	if r.RefAllocatedByBroker != nil {
		c.flags |= lcRefAlloc
		c.refAlloc = *r.RefAllocatedByBroker
	}
	return b.later.add(&c)
}

// cmpLater orders copies by writer and offset: input, topic, partition,
// partition dir, PID, epoch, offset.
func (b *RunBuilder) cmpLater(x, y *laterCopy) int {
	return cmp.Or(cmp.Compare(x.input, y.input), cmp.Compare(b.names[x.topic], b.names[y.topic]), cmp.Compare(x.partition, y.partition),
		cmp.Compare(b.names[x.dir], b.names[y.dir]), cmp.Compare(x.pid, y.pid), cmp.Compare(x.epoch, y.epoch), cmp.Compare(x.offset, y.offset),
		cmp.Compare(x.seq, y.seq))
}

// cmpImpact orders runs by impact: most records first, then topic,
// partition, first offset, input, and the order they were formed in.
func (b *RunBuilder) cmpImpact(x, y *runAcc) int {
	return cmp.Or(cmp.Compare(y.records, x.records), cmp.Compare(b.names[x.head.topic], b.names[y.head.topic]),
		cmp.Compare(x.head.partition, y.head.partition), cmp.Compare(x.head.offset, y.head.offset), cmp.Compare(x.head.input, y.head.input),
		b.cmpLater(&x.head, &y.head))
}

// Finish forms the runs and returns how many there are.
func (b *RunBuilder) Finish(ctx context.Context) (int, error) {
	var u runAcc
	open := false
	err := b.later.each(ctx, func(c *laterCopy) error {
		h := &u.head
		if open && h.input == c.input && h.topic == c.topic && h.partition == c.partition && h.dir == c.dir && h.refDir == c.refDir &&
			h.pid == c.pid && h.epoch == c.epoch &&
			h.class == c.class && h.evidence == c.evidence && h.why == c.why &&
			h.refTopic == c.refTopic && h.refPart == c.refPart && h.refPID == c.refPID && h.pidChange == c.pidChange &&
			c.offset-u.last <= maxRunStep && c.refOffset > u.refLast-maxRunStep && c.refOffset-u.refLast <= maxRunStep && c.refOffset != u.refLast {
			u.last = c.offset
			if c.refOffset < u.refFirst {
				u.refFirst = c.refOffset
				u.refFirstTs, u.tflags = c.refTs, u.tflags&^rtRefFirst|refTsFlag(c, rtRefFirst)
			}
			u.refLast, u.refLastTs = c.refOffset, c.refTs
			u.lastTs = c.ts
			u.tflags = u.tflags&^(rtLast|rtRefLast) | tsFlag(c, rtLast) | refTsFlag(c, rtRefLast)
			u.records++
			u.count(c)
			return nil
		}
		if open {
			if err := b.runs.add(&u); err != nil {
				return err
			}
			b.total++
		}
		u = runAcc{head: *c, last: c.offset, refFirst: c.refOffset, refLast: c.refOffset, records: 1,
			lastTs: c.ts, refFirstTs: c.refTs, refLastTs: c.refTs, tflags: tsFlag(c, rtLast) | refTsFlag(c, rtRefFirst|rtRefLast)}
		u.count(c)
		open = true
		return nil
	})
	if err != nil {
		return 0, err
	}
	if open {
		if err := b.runs.add(&u); err != nil {
			return 0, err
		}
		b.total++
	}
	return b.total, nil
}

func tsFlag(c *laterCopy, f uint8) uint8 {
	if c.flags&lcTs != 0 {
		return f
	}
	return 0
}

func refTsFlag(c *laterCopy, f uint8) uint8 {
	if c.flags&lcRefTs != 0 {
		return f
	}
	return 0
}

func (u *runAcc) count(c *laterCopy) {
	if c.flags&lcDamaged != 0 {
		u.damaged++
	}
	if c.flags&lcAborted != 0 {
		u.aborted++
	}
}

var errEnough = errors.New("enough runs")

// Each calls fn with the runs, most records first, at most limit of them
// (0: all). The Run is reused between calls; what its pointers point to
// is not.
func (b *RunBuilder) Each(ctx context.Context, limit int, fn func(*Run) error) error {
	n := 0
	var u Run
	err := b.runs.each(ctx, func(a *runAcc) error {
		if limit > 0 && n >= limit {
			return errEnough
		}
		n++
		h := &a.head
		u = Run{Input: h.input, Dir: b.names[h.dir], Topic: b.names[h.topic], Partition: h.partition, ProducerID: h.pid, Epoch: h.epoch,
			Class: b.names[h.class], RefTopic: b.names[h.refTopic], RefPart: h.refPart, RefPID: h.refPID,
			First: h.offset, Last: a.last, RefFirst: a.refFirst, RefLast: a.refLast, Records: a.records,
			Damaged: a.damaged, Aborted: a.aborted, TransactionalID: b.names[h.txnID], RefTransactionalID: b.names[h.refTxnID],
			PIDChange: b.names[h.pidChange], Note: h.note, Evidence: b.names[h.evidence], Why: h.why}
		// Pointers are the Run's own: a and h belong to the sorter.
		ptr := func(ok bool, v int64) *int64 {
			if ok {
				return &v
			}
			return nil
		}
		u.GapMillis = ptr(h.flags&lcGap != 0, h.gap)
		u.SessionAge, u.CopyGap = ptr(h.flags2&lcAge != 0, h.age), ptr(h.flags2&lcCopyGap != 0, h.cgap)
		if h.flags&lcAlloc != 0 {
			v := h.alloc
			u.AllocatedByBroker = &v
		}
		if h.flags&lcRefAlloc != 0 {
			v := h.refAlloc
			u.RefAllocatedByBroker = &v
		}
		u.Times = RunTimes{First: ptr(h.flags&lcTs != 0, h.ts), Last: ptr(a.tflags&rtLast != 0, a.lastTs),
			RefFirst: ptr(a.tflags&rtRefFirst != 0, a.refFirstTs), RefLast: ptr(a.tflags&rtRefLast != 0, a.refLastTs)}
		return fn(&u)
	})
	if err == errEnough {
		err = nil
	}
	return err
}

// SpillBytes is how many bytes the builder wrote to disk.
func (b *RunBuilder) SpillBytes() int64 { return b.later.bytes + b.runs.bytes }

// Close removes what the builder wrote to disk.
func (b *RunBuilder) Close() error {
	return errors.Join(b.later.close(), b.runs.close())
}

// String is the report line of a run, e.g. (one line, wrapped here)
//
//	orders-0: PID 1002 (epoch 0) resent 25 records first written by PID 1001 —
//	  offsets 600–624 repeat 575–599, 2.1 s after PID 1001's last write [restart-resend]
//
// With attribution (see DuplicateRow) the PIDs are named, and how the PID
// changed is said before the class:
//
//	payments-0: PID 5000 (epoch 0, txn id payments-app, block of broker 3) resent 25 records
//	  first written by PID 4000 (txn id payments-app, broker 2) — ..., 2.1 s after PID 4000's last write;
//	  PID change under the stable transactional id payments-app: the coordinator rotated it
//	  from PID 4000 to PID 5000 (epoch exhaustion) [restart-resend]
func (u *Run) String() string {
	writer := fmt.Sprintf("PID %d (epoch %d%s)", u.ProducerID, u.Epoch, owner(", ", u.TransactionalID, u.AllocatedByBroker, "block of broker"))
	if u.ProducerID < 0 {
		writer = "a non-idempotent producer (PID -1)"
	}
	refPID := fmt.Sprintf("PID %d", u.RefPID)
	refOwner := ""
	if o := owner("", u.RefTransactionalID, u.RefAllocatedByBroker, "broker"); o != "" {
		refOwner = " (" + o + ")"
	}
	where := ""
	if u.RefTopic != u.Topic || u.RefPart != u.Partition {
		where = fmt.Sprintf(" in %s-%d", u.RefTopic, u.RefPart)
	}
	recs := fmt.Sprintf("%d record%s", u.Records, plural(int(u.Records), "", "s"))
	var what, maybe string
	if u.Evidence == EvidenceWeak {
		maybe = "possibly "
	}
	ownRetry := u.Class == ClassTxnRetry && u.RefPID == u.ProducerID && u.ProducerID >= 0
	switch {
	case u.Class == ClassRestartResend:
		what = fmt.Sprintf("%sresent %s first written by %s%s%s", maybe, recs, refPID, refOwner, where)
	case ownRetry:
		// A transactional.id keeps its PID across restarts: the retry is
		// of the writer's own aborted transaction.
		what = fmt.Sprintf("%sretried %s of its own aborted transaction%s", maybe, recs, where)
	case u.Class == ClassTxnRetry:
		what = fmt.Sprintf("%sretried %s of an aborted transaction of %s%s%s", maybe, recs, refPID, refOwner, where)
	case u.Class == ClassRetry:
		what = fmt.Sprintf("%sretried %s with their first copies' timestamps", maybe, recs)
	case u.Class == ClassReprocess:
		what = fmt.Sprintf("%sre-produced %s first written by %s%s%s, its consumer group having re-read their input", maybe, recs, refPID, refOwner, where)
	case u.Class == ClassRebalance:
		what = fmt.Sprintf("%swrote %s already written by %s%s%s, both members of a consumer group that moved their input", maybe, recs, refPID, refOwner, where)
	case u.Class == ClassDedupFailure:
		what = fmt.Sprintf("wrote %s twice under the same sequence numbers, which the broker appended again", recs)
	default:
		what = fmt.Sprintf("wrote %s already written by %s%s%s", recs, refPID, refOwner, where)
	}
	span := fmt.Sprintf("offset %d repeats %d", u.First, u.RefFirst)
	if u.Records > 1 || u.First != u.Last {
		span = fmt.Sprintf("offsets %d–%d repeat %d–%d", u.First, u.Last, u.RefFirst, u.RefLast)
	}
	gap := ""
	age := ""
	if u.SessionAge != nil && u.ProducerID >= 0 {
		age = fmt.Sprintf("%s into PID %d's session", fmtGap(*u.SessionAge), u.ProducerID)
	}
	if u.GapMillis != nil && u.Class != ClassRetry && u.Class != ClassDedupFailure {
		switch {
		case (u.Class == ClassRestartResend || u.Class == ClassReprocess) && age != "":
			gap = fmt.Sprintf(", written %s, which began %s after %s's last write", age, fmtGap(*u.GapMillis), refPID)
		case u.Class == ClassRestartResend || u.Class == ClassReprocess:
			gap = fmt.Sprintf(", %s after %s's last write", fmtGap(*u.GapMillis), refPID)
		case *u.GapMillis >= 0:
			gap = fmt.Sprintf(", %s later", fmtGap(*u.GapMillis))
		default:
			gap = fmt.Sprintf(", %s earlier by timestamp", fmtGap(-*u.GapMillis))
		}
		if u.Class != ClassRestartResend && u.Class != ClassReprocess && age != "" {
			gap += ", " + age
		}
	}
	note := ""
	if u.Damaged > 0 {
		note += fmt.Sprintf(" (%d in damaged batches)", u.Damaged)
	}
	if u.Aborted > 0 {
		note += fmt.Sprintf(" (%d aborted)", u.Aborted)
	}
	if c := PIDChangeText(u.PIDChange, u.TransactionalID, u.ProducerID, u.RefPID); c != "" {
		note += "; " + c
	}
	return fmt.Sprintf("%s-%d: %s %s — %s%s%s [%s]", u.Topic, u.Partition, writer, what, span, gap, note, u.Tag())
}

// Tag is the class of the run with its grade: "restart-resend, strong
// evidence", "possible restart-resend: too few records, ...", or the bare
// class when ungraded.
func (u *Run) Tag() string {
	switch u.Evidence {
	case EvidenceStrong:
		return u.Class + ", strong evidence"
	case EvidenceWeak:
		return "possible " + u.Class + ": " + strings.Join(WhyText(u.Why), ", ")
	}
	return u.Class
}

// owner names a PID's transactional id and allocating broker, e.g. "txn
// id payments-app, block of broker 3", after prefix; "" when neither is
// known.
func owner(prefix, tid string, broker *int32, brokerWord string) string {
	var parts []string
	if tid != "" {
		parts = append(parts, "txn id "+tid)
	}
	if broker != nil {
		parts = append(parts, fmt.Sprintf("%s %d", brokerWord, *broker))
	}
	if len(parts) == 0 {
		return ""
	}
	return prefix + strings.Join(parts, ", ")
}

// PIDChangeText explains a pid_change value (see DuplicateRow) for the
// later writer pid (of transactional id tid) and the earlier refPID; ""
// for an empty or unknown value.
func PIDChangeText(change, tid string, pid, refPID int64) string {
	switch change {
	case analysis.PIDChangeRotation:
		return fmt.Sprintf("PID change under the stable transactional id %s: the coordinator rotated it from PID %d to PID %d (epoch exhaustion)", tid, refPID, pid)
	case analysis.PIDChangeNewUnderTxnID:
		return fmt.Sprintf("PID change under the stable transactional id %s, from PID %d to PID %d (epoch exhaustion or a fenced producer)", tid, refPID, pid)
	case analysis.PIDChangeIdempotentRestart:
		return "idempotent-only restart: no transactional id, so every restart gets a new PID"
	}
	return ""
}

// AttributionNote is what attribution adds to the explanation of a later
// copy in duplicates.parquet, in the words of the report line: the two
// PIDs' transactional ids and brokers and the PID change; "" when nothing
// is known.
func AttributionNote(r *analysis.DuplicateRow) string {
	if r.RefProducerID == nil {
		return ""
	}
	var s string
	if o := owner("", r.TransactionalID, r.AllocatedByBroker, "block of broker"); o != "" && r.ProducerID >= 0 {
		s += fmt.Sprintf("; PID %d: %s", r.ProducerID, o)
	}
	if o := owner("", r.RefTransactionalID, r.RefAllocatedByBroker, "broker"); o != "" {
		s += fmt.Sprintf("; PID %d: %s", *r.RefProducerID, o)
	}
	if c := PIDChangeText(r.PIDChange, r.TransactionalID, r.ProducerID, *r.RefProducerID); c != "" {
		s += "; " + c
	}
	return s
}

// SpillFiles is how many files the builder wrote.
func (b *RunBuilder) SpillFiles() int { return b.later.files + b.runs.files }
