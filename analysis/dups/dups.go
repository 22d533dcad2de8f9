// Package dups finds records whose content was written again under another
// producer, or by one producer as a retry or a failed deduplication
// (docs/duplicates.md), and explains each later copy as a restart-resend,
// a txn-retry, a retry, a dedup-failure or a repeat, grading the evidence
// of every class but repeat (evidence.go, causes.go).
//
//	d, _ := dups.New(dups.Options{TmpDir: dir})
//	defer d.Close()
//	p := d.Partition(input, source, topic, partition, dir)
//	for each record, in offset order per partition { d.Add(&dups.Record{Part: p, ...}) }
//	stats, err := d.Finish(ctx, func(group []analysis.DuplicateRow) error { ... })
//
// Every record costs one fixed-size entry (recordBytes). While the entries
// fit in Options.MemBudget they stay in memory; beyond it they are spilled
// to temporary files in a directory of its own under Options.TmpDir,
// partitioned by the leading bits of the fingerprint, and each partition is
// grouped in memory on its own (re-partitioned on the next bits if it is
// still too large). Groups are emitted in (fingerprint, scope) order and
// numbered in that order, so the result is the same at every budget.
// Scopes are ordered by topic name (then partition), and byte-identical
// replicas by source and dir, never by the order records were added, so
// the result is also the same whatever order the inputs are read in: one
// scan of everything, or the tables of several scans merged
// (ksleuth dups --from-tables).
// Close removes the temporary files.
//
// The package is pure computation apart from that spill directory: no
// flags, no printing.
package dups

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
)

// Parts selects what the fingerprint covers (--match).
type Parts uint8

const (
	MatchKey Parts = 1 << iota
	MatchValue
	MatchHeaders
	MatchAll = MatchKey | MatchValue | MatchHeaders
)

// Scope is where a duplicate is looked for (--scope).
type Scope int

const (
	ScopeTopic     Scope = iota // same topic, any partition (the default)
	ScopePartition              // same topic-partition
	ScopeAll                    // anywhere in the inputs
)

// Defaults.
const (
	DefaultRestartWindow = 10 * time.Minute
	// DefaultMemBudget holds about 8 million records in memory before
	// spilling.
	DefaultMemBudget = 512 << 20
)

// Classes of later occurrences.
const (
	ClassRestartResend = "restart-resend"
	ClassTxnRetry      = "txn-retry"
	// ClassRetry: a producer without idempotence (PID -1) sent the batch
	// again, with its timestamps, after its request failed while the
	// broker had appended it (causes.go).
	ClassRetry = "retry"
	// ClassDedupFailure: the same PID, epoch and sequence written twice
	// into one partition, which the broker should have rejected.
	ClassDedupFailure = "dedup-failure"
	ClassRepeat       = "repeat"
)

// Options configure a Detector. The zero value is the documented default
// (docs/duplicates.md).
type Options struct {
	Scope Scope
	// SamePID also reports groups written by a single producer.
	SamePID bool
	// RestartWindow: a later PID whose session began within this long
	// after the earlier PID's last write is a restart; 0 means the default.
	RestartWindow time.Duration
	// MemBudget bounds the memory of the record entries, in bytes; 0 means
	// DefaultMemBudget.
	MemBudget int64
	// TmpDir is where the spill directory is created ("" = os.TempDir()).
	TmpDir string
	// NoExplanations leaves the explanation of every row empty, for a
	// report that does not show them: formatting them is half the time
	// of a group with millions of members.
	NoExplanations bool
	// ResendHead, ResendTail and ResendMinRun are the evidence thresholds
	// (DefaultResendHead and the rest): how many records of the later
	// session may precede a resend in its partition, how many records of
	// the earlier session may follow the resent run, and the fewest
	// records a run shows a resend with. 0 means the default, a negative
	// value none.
	ResendHead, ResendTail, ResendMinRun int
	// ResendInFlight bounds how long before the earlier session's last
	// write, in any partition, a resent record may have been created
	// (DefaultResendInFlight); 0 means the default, a negative value none.
	ResendInFlight time.Duration
	// RetryDistance bounds how many offsets after its first copy a retry
	// copy may land and be strong evidence (DefaultRetryDistance); 0
	// means the default, a negative value none.
	RetryDistance int64
	// Pipelines name the output topics consumer groups write from their
	// inputs (consumer.go): a reprocess or rebalance through one of them
	// is checked, not inferred.
	Pipelines []Pipeline
}

// PartID names a partition dir registered with Detector.Partition.
type PartID uint32

// Record is one data record. Control records must not be added.
type Record struct {
	Part        PartID
	Offset      int64
	Timestamp   int64 // -1 when unknown
	ProducerID  int64
	Epoch       int16
	Sequence    int32
	Txn         analysis.TxnState
	Damaged     bool // read from a damaged batch
	Fingerprint [16]byte
	// BatchStart is the offset of the first record of the record's batch,
	// when HasBatch: two copies in one batch are never a retry.
	BatchStart int64
	HasBatch   bool
	// LogAppendTime: the broker stamped the timestamp, so it does not
	// tell a retry from a new send.
	LogAppendTime bool
}

type partInfo struct {
	input     int32
	source    string
	topic     string
	partition int32
	dir       string
	topicIdx  uint32
	scope     uint32
}

// rec is the fixed-size entry kept per record (and spilled).
type rec struct {
	fp    [16]byte
	off   int64
	ts    int64
	pid   int64
	part  uint32
	seq   int32
	epoch int16
	flags uint8 // bits 0-1 txn state, bit 2 damaged, bit 3 LogAppendTime
	// inBatch is the record's offset less its batch's first record's
	// (noBatch: unknown); it fits beside flags in the entry's padding.
	inBatch uint32
}

const (
	recordBytes   = 56 // encoded size; in memory a rec takes 64
	memPerRec     = 64
	flagDamaged   = 4
	flagLogAppend = 8
	noBatch       = ^uint32(0)
)

func (r *rec) txn() analysis.TxnState { return analysis.TxnState(r.flags & 3) }
func (r *rec) damaged() bool          { return r.flags&flagDamaged != 0 }
func (r *rec) writerEq(o *rec) bool   { return r.pid == o.pid }

// sameBatch reports whether r and o (of one partition) are records of one
// batch.
func (r *rec) sameBatch(o *rec) bool {
	return r.inBatch != noBatch && o.inBatch != noBatch && r.off-int64(r.inBatch) == o.off-int64(o.inBatch)
}

type spanKey struct {
	part  uint32
	pid   int64
	epoch int32 // anyEpoch for the PID as a whole
}

const anyEpoch = -1 << 20

// span is what one writer did in one partition dir; firstSeq and
// lastSeq are the sequences at firstOff and lastOff.
type span struct {
	firstOff, lastOff int64
	firstTs, lastTs   int64 // -1 unknown
	firstSeq, lastSeq int32
}

// Detector finds duplicate groups. Not safe for concurrent use.
type Detector struct {
	opts     Options
	parts    []partInfo
	partIdx  map[partKey]PartID
	topics   map[string]uint32
	scopes   map[[2]uint32]uint32
	spans    map[spanKey]*span
	last     [8]lastSpans // by writer, see extend
	buf      []rec
	arena    []byte // the mapping buf was allocated in, if any (allocRecs)
	maxBuf   int
	spill    *spill
	rank     []uint32 // of each partition dir, see rankParts
	records  int64
	finished bool
	cluster  func(input int32, dir string) string // SetClusters
	// Set by indexSessions at Finish: each partition dir's logical
	// partition and cluster, each session's last writes, and the tails
	// later sessions resent (session.go).
	logical, clusterOf []uint32
	sessions           map[sessKey]*sessEnd
	covered            map[coverKey]bool
	consumers          *consumerIndex // SetConsumers
}

// lastSpans are the spans of a recent writer.
type lastSpans struct {
	key        spanKey
	epoch, pid *span
}

type partKey struct {
	input int32
	dir   string
}

// New returns a Detector.
func New(opts Options) (*Detector, error) {
	if opts.RestartWindow <= 0 {
		opts.RestartWindow = DefaultRestartWindow
	}
	if opts.MemBudget <= 0 {
		opts.MemBudget = DefaultMemBudget
	}
	maxBuf := int(min(opts.MemBudget/memPerRec, 1<<40))
	if maxBuf < 64 {
		maxBuf = 64
	}
	return &Detector{opts: opts, partIdx: map[partKey]PartID{}, topics: map[string]uint32{},
		scopes: map[[2]uint32]uint32{}, spans: map[spanKey]*span{}, maxBuf: maxBuf}, nil
}

// Partition registers a partition dir (once per input and dir) and
// returns its id. source names the input (see analysis.RecordRow); it
// orders replicas, so it should be unique per input.
func (d *Detector) Partition(input int32, source, topic string, partition int32, dir string) PartID {
	k := partKey{input, dir}
	if id, ok := d.partIdx[k]; ok {
		return id
	}
	ti, ok := d.topics[topic]
	if !ok {
		ti = uint32(len(d.topics))
		d.topics[topic] = ti
	}
	var scope uint32
	switch d.opts.Scope {
	case ScopeTopic:
		scope = ti
	case ScopePartition:
		sk := [2]uint32{ti, uint32(partition)}
		s, ok := d.scopes[sk]
		if !ok {
			s = uint32(len(d.scopes))
			d.scopes[sk] = s
		}
		scope = s
	}
	id := PartID(len(d.parts))
	d.parts = append(d.parts, partInfo{input: input, source: source, topic: topic, partition: partition, dir: dir, topicIdx: ti, scope: scope})
	d.partIdx[k] = id
	return id
}

// room makes room for one more entry. A full buffer doubles through
// Reserve, not append: append would copy an entry buffer mapped outside
// the heap (allocRecs) onto the heap and leave the old one to the
// collector, and with a budget of 1 GiB a scan of 10^7 records peaked at
// 2.1 GiB. Reserve releases the old buffer as soon as it is copied.
func (d *Detector) room() {
	if len(d.buf) == cap(d.buf) {
		d.Reserve(max(len(d.buf), 1024))
	}
}

// Reserve makes room for n more entries in memory (at most the memory
// budget allows), so a caller that can estimate the record count spares
// the entry buffer its repeated doubling: each doubling allocates and
// copies the whole buffer, and on a large scan that was a tenth of the CPU.
// Memory is taken from the system as it is written, so an estimate too
// high costs address space, not resident memory.
func (d *Detector) Reserve(n int) {
	n = min(len(d.buf)+n, d.maxBuf)
	if n <= cap(d.buf) {
		return
	}
	buf, mem := allocRecs(n)
	buf = append(buf, d.buf...)
	freeRecs(d.arena)
	d.buf, d.arena = buf, mem
}

// Add adds one data record.
func (d *Detector) Add(r *Record) error {
	if err := d.check(r.Part); err != nil {
		return err
	}
	d.records++
	e := rec{fp: r.Fingerprint, off: r.Offset, ts: r.Timestamp, pid: r.ProducerID, part: uint32(r.Part),
		seq: r.Sequence, epoch: r.Epoch, flags: uint8(r.Txn & 3), inBatch: noBatch}
	if r.Damaged {
		e.flags |= flagDamaged
	}
	if r.LogAppendTime {
		e.flags |= flagLogAppend
	}
	if d := r.Offset - r.BatchStart; r.HasBatch && d >= 0 && d < int64(noBatch) {
		e.inBatch = uint32(d)
	}
	d.extend(&e, &e)
	d.room()
	d.buf = append(d.buf, e)
	if len(d.buf) >= d.maxBuf {
		return d.spillBuf()
	}
	return nil
}

// AddBatch adds the data records of one batch written by pid and epoch
// into part; damaged marks them as read from a damaged batch, logAppend
// as stamped by the broker (LogAppendTime). It is Add for each
// non-control entry, with the writer's spans updated once.
func (d *Detector) AddBatch(part PartID, pid int64, epoch int16, damaged, logAppend bool, es []analysis.RecordEntry) error {
	if err := d.check(part); err != nil {
		return err
	}
	var flags uint8
	if damaged {
		flags = flagDamaged
	}
	if logAppend {
		flags |= flagLogAppend
	}
	var start int64
	if len(es) > 0 {
		start = es[0].Offset
	}
	var lo, hi rec // the batch's least and greatest offset and timestamp
	n := 0
	for i := range es {
		x := &es[i]
		if x.Control {
			continue
		}
		// The record is written field by field in place: a rec literal
		// appended whole is assembled on the stack and copied with wide
		// loads that cannot be forwarded from its narrow stores (a third
		// of this function's time in profiles).
		d.room()
		d.buf = d.buf[:len(d.buf)+1]
		e := &d.buf[len(d.buf)-1]
		e.fp, e.off, e.ts, e.pid, e.part = x.Fingerprint, x.Offset, x.Timestamp, pid, uint32(part)
		e.seq, e.epoch, e.flags = x.Sequence, epoch, flags|uint8(x.Txn&3)
		e.inBatch = noBatch
		if b := x.Offset - start; b >= 0 && b < int64(noBatch) {
			e.inBatch = uint32(b)
		}
		if n == 0 {
			lo, hi = *e, *e
		} else {
			if e.off < lo.off {
				lo.off, lo.seq = e.off, e.seq
			}
			if e.off > hi.off {
				hi.off, hi.seq = e.off, e.seq
			}
			if e.ts >= 0 {
				if lo.ts < 0 || e.ts < lo.ts {
					lo.ts = e.ts
				}
				hi.ts = max(hi.ts, e.ts)
			}
		}
		n++
		if len(d.buf) >= d.maxBuf {
			if err := d.spillBuf(); err != nil {
				return err
			}
		}
	}
	if n > 0 {
		d.records += int64(n)
		d.extend(&lo, &hi)
	}
	return nil
}

func (d *Detector) check(part PartID) error {
	if d.finished {
		return errors.New("dups: Add after Finish")
	}
	if int(part) >= len(d.parts) {
		return fmt.Errorf("dups: unregistered partition %d", part)
	}
	return nil
}

// extend widens the spans of the writer of lo and hi (same part, PID and
// epoch) to cover lo's and hi's offsets and timestamps.
func (d *Detector) extend(lo, hi *rec) {
	// Records come in runs of one writer (a batch), and the batches of a
	// few producers interleave: the spans of recent writers, in slots
	// chosen by producer and partition, skip the map.
	c := &d.last[(uint64(lo.pid)*0x9e3779b97f4a7c15^uint64(lo.part))>>61]
	if k := (spanKey{lo.part, lo.pid, int32(lo.epoch)}); c.epoch == nil || k != c.key {
		c.key = k
		c.epoch = d.span(k, lo)
		c.pid = d.span(spanKey{lo.part, lo.pid, anyEpoch}, lo)
	} else {
		c.epoch.add(lo)
		c.pid.add(lo)
	}
	if hi != lo {
		c.epoch.add(hi)
		c.pid.add(hi)
	}
}

// span adds e to the span of k, and returns it.
func (d *Detector) span(k spanKey, e *rec) *span {
	s := d.spans[k]
	if s == nil {
		s = &span{firstOff: e.off, lastOff: e.off, firstTs: e.ts, lastTs: e.ts, firstSeq: e.seq, lastSeq: e.seq}
		d.spans[k] = s
		return s
	}
	s.add(e)
	return s
}

func (s *span) add(e *rec) {
	if e.off < s.firstOff {
		s.firstOff, s.firstSeq = e.off, e.seq
	}
	if e.off > s.lastOff {
		s.lastOff, s.lastSeq = e.off, e.seq
	}
	if e.ts >= 0 {
		if s.firstTs < 0 || e.ts < s.firstTs {
			s.firstTs = e.ts
		}
		s.lastTs = max(s.lastTs, e.ts)
	}
}

// Stats describes a finished run.
type Stats struct {
	Records    int64 // data records fingerprinted
	Groups     int64 // duplicate groups reported
	Members    int64 // rows emitted (every member of every group)
	Duplicates int64 // later occurrences (Members minus Groups)
	// SpillFiles counts temporary files written (0: all in memory),
	// SpillBytes their total size.
	SpillFiles int
	SpillBytes int64
	// SortedRuns counts the runs of spill files that one fingerprint made
	// too large to split, sorted and merged on disk (SpillFiles counts
	// them too).
	SortedRuns int
}

// Close removes the temporary files and releases a reserved buffer that
// Finish has not. It is safe to call more than once.
func (d *Detector) Close() error {
	if d.arena != nil {
		d.buf = nil
		freeRecs(d.arena)
		d.arena = nil
	}
	if d.spill != nil {
		return d.spill.remove()
	}
	return nil
}

// SetClusters names the cluster of each partition dir (by input and dir,
// as Partition registered it: its log dir's cluster.id, "" when unknown)
// before Finish. Records of two clusters are never duplicates of each
// other: a mirror or a restored copy holds the same records at other
// offsets under other producer ids, and that is not a producer's resend.
// A partition dir of unknown cluster joins the run's only known cluster,
// or forms its own when the run knows several.
func (d *Detector) SetClusters(cluster func(input int32, dir string) string) { d.cluster = cluster }

// clusterRanks numbers the cluster of each partition dir in name order.
func (d *Detector) clusterRanks() []uint32 {
	ranks := make([]uint32, len(d.parts))
	if d.cluster == nil {
		return ranks
	}
	names := make([]string, len(d.parts))
	known := map[string]bool{}
	for i := range d.parts {
		names[i] = d.cluster(d.parts[i].input, d.parts[i].dir)
		if names[i] != "" {
			known[names[i]] = true
		}
	}
	if len(known) == 1 {
		for c := range known {
			for i := range names {
				names[i] = c
			}
		}
	}
	sorted := slices.Sorted(maps.Keys(known))
	for i, n := range names {
		if k, ok := slices.BinarySearch(sorted, n); ok {
			ranks[i] = uint32(k) + 1
		}
	}
	return ranks
}

// rankScopes renumbers topics and scopes in name order (they were
// numbered in the order they were first seen), so that group numbers and
// member order do not depend on the order of the inputs. A scope is also
// one cluster's (SetClusters).
func (d *Detector) rankScopes() {
	names := make([]string, 0, len(d.topics))
	for t := range d.topics {
		names = append(names, t)
	}
	slices.Sort(names)
	rank := make(map[string]uint32, len(names))
	for i, t := range names {
		rank[t] = uint32(i)
	}
	clusters := d.clusterRanks()
	type tp struct {
		cluster, topic uint32
		partition      int32
	}
	key := func(i int) tp {
		p := &d.parts[i]
		switch d.opts.Scope {
		case ScopeTopic:
			return tp{clusters[i], p.topicIdx, 0}
		case ScopePartition:
			return tp{clusters[i], p.topicIdx, p.partition}
		}
		return tp{cluster: clusters[i]}
	}
	order := func(a, b tp) int {
		return cmp.Or(cmp.Compare(a.cluster, b.cluster), cmp.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	}
	var tps []tp
	for i := range d.parts {
		p := &d.parts[i]
		p.topicIdx = rank[p.topic]
		tps = append(tps, key(i))
	}
	slices.SortFunc(tps, order)
	tps = slices.Compact(tps)
	for i := range d.parts {
		k, _ := slices.BinarySearchFunc(tps, key(i), order)
		d.parts[i].scope = uint32(k)
	}
}

// cmp orders entries by fingerprint, scope, then time, topic,
// partition, offset (the member order), undamaged copies first among
// replicas, then source, partition dir and input.
func (d *Detector) cmp(a, b *rec) int {
	// bytes.Compare of the fingerprints, as two big-endian words.
	if x, y := binary.BigEndian.Uint64(a.fp[:8]), binary.BigEndian.Uint64(b.fp[:8]); x != y {
		return cmpInt(x, y)
	}
	if x, y := binary.BigEndian.Uint64(a.fp[8:]), binary.BigEndian.Uint64(b.fp[8:]); x != y {
		return cmpInt(x, y)
	}
	pa, pb := &d.parts[a.part], &d.parts[b.part]
	if pa.scope != pb.scope {
		return cmpInt(pa.scope, pb.scope)
	}
	if a.ts != b.ts {
		return cmpInt(a.ts, b.ts)
	}
	if pa.topicIdx != pb.topicIdx {
		return cmpInt(pa.topicIdx, pb.topicIdx)
	}
	if pa.partition != pb.partition {
		return cmpInt(pa.partition, pb.partition)
	}
	if a.off != b.off {
		return cmpInt(a.off, b.off)
	}
	if a.damaged() != b.damaged() {
		if a.damaged() {
			return 1
		}
		return -1
	}
	if a.part == b.part {
		return 0
	}
	return cmp.Or(strings.Compare(pa.source, pb.source), strings.Compare(pa.dir, pb.dir), cmpInt(pa.input, pb.input))
}

// repeated moves to the front of rs, in order, every entry whose
// fingerprint occurs more than once in rs, and returns them: only those
// can form groups, and in a real log nearly every fingerprint is unique,
// so sorting all of them was most of the detector's time. It counts
// fingerprints in a table of 2-bit saturating counters (at least 8 slots
// per entry, indexed by the fingerprint's low bits, so 2 to 4 bytes an
// entry); an entry alone in its slot is certainly unique, and the few
// unique entries that share a slot stay, harmlessly. rs must hold every
// entry of each fingerprint in it (the whole buffer, or one spill
// partition, which splits by fingerprint).
func repeated(rs []rec) []rec {
	if len(rs) < 1<<12 {
		return rs
	}
	slots := 1 << bits.Len(uint(8*len(rs)-1))
	counts := make([]byte, slots/4)
	slot := func(r *rec) (int, uint) {
		i := int(binary.BigEndian.Uint64(r.fp[8:]) & uint64(slots-1))
		return i >> 2, uint(i&3) * 2
	}
	for i := range rs {
		b, sh := slot(&rs[i])
		if c := counts[b] >> sh & 3; c < 2 {
			counts[b] += 1 << sh
		}
	}
	n := 0
	for i := range rs {
		if b, sh := slot(&rs[i]); counts[b]>>sh&3 >= 2 {
			rs[n] = rs[i]
			n++
		}
	}
	return rs[:n]
}

// radixBucket is the entries sortRecs aims to leave in each bucket of a
// radix pass, and radixMaxBits the most bits one pass buckets by: with
// more buckets, the pass's moves spread over more of memory than the
// caches hold, and a pass over 10^7 entries on 16 bits spent more time
// waiting for memory than sorting.
const (
	radixBucket  = 256
	radixMaxBits = 10
)

// sortRecs sorts rs in d.cmp order. Fingerprints are uniformly spread, so
// in-place passes (an American flag sort) on their leading bits leave
// buckets of a few hundred entries each, which a comparison sort
// finishes: a fraction of the time of sorting the 64-byte entries by
// comparison alone, and no second buffer (the memory budget counts entries
// once). Each pass buckets by the bits after those all its entries share
// (a spill file's entries share their leading 6 bits or more, a bucket's
// those of its pass), at most radixMaxBits of them, and buckets still
// large are sorted the same way in turn. The order is exactly d.cmp's,
// because cmp orders by the fingerprint's bytes first.
func (d *Detector) sortRecs(rs []rec) {
	if len(rs) < 1<<12 {
		slices.SortFunc(rs, func(a, b rec) int { return d.cmp(&a, &b) })
		return
	}
	first := binary.BigEndian.Uint64(rs[0].fp[:8])
	var differ uint64
	for i := range rs {
		differ |= binary.BigEndian.Uint64(rs[i].fp[:8]) ^ first
	}
	if differ == 0 {
		// One leading 64 bits (a value repeated throughout): nothing to
		// bucket by.
		slices.SortFunc(rs, func(a, b rec) int { return d.cmp(&a, &b) })
		return
	}
	shared := bits.LeadingZeros64(differ)
	width := min(max(bits.Len(uint(len(rs)/radixBucket))-1, 1), radixMaxBits, 64-shared)
	buckets := 1 << width
	key := func(r *rec) int { return int(binary.BigEndian.Uint64(r.fp[:8]) << shared >> (64 - width)) }
	count := make([]int, buckets)
	for i := range rs {
		count[key(&rs[i])]++
	}
	start := make([]int, buckets+1)
	for b := range buckets {
		start[b+1] = start[b] + count[b]
	}
	next := count // reused: next free slot of each bucket
	copy(next, start[:buckets])
	for b := range buckets {
		for end := start[b+1]; next[b] < end; {
			k := key(&rs[next[b]])
			if k == b {
				next[b]++
				continue
			}
			// Move the entry to its bucket; what was there comes back
			// here to be placed in turn.
			rs[next[b]], rs[next[k]] = rs[next[k]], rs[next[b]]
			next[k]++
		}
	}
	for b := range buckets {
		if bucket := rs[start[b]:start[b+1]]; len(bucket) > 1 {
			d.sortRecs(bucket)
		}
	}
}

func cmpInt[T int32 | uint32 | int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
