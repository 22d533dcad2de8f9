// Package replicas compares the copies of one partition that several
// brokers' log dirs hold, the way the brokers themselves reconcile them:
// by leader epoch. The copy with the highest last leader epoch (on a tie,
// the highest log end offset) is the reference, the one a leader election
// would keep; every other copy is in-sync with it, lagging (a prefix of
// it), diverged (it holds offsets outside the reference's epoch history,
// which leader-epoch truncation removes: records lost when that broker
// follows again) or ahead (it extends the reference's last epoch).
//
// Batches are compared by base offset, last offset, CRC and leader epoch,
// which the scan has already read from each batch header: byte-identical
// copies compare equal without a record being decoded for the purpose.
// A copy that has another to be compared with costs 64 bytes per batch
// until the run ends; a sole copy a few dozen bytes per leader epoch
// (fold.go).
package replicas

import (
	"cmp"
	"encoding/binary"
	"path"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/snapshot"
)

// batch is what the comparison keeps of one batch.
type batch struct {
	base, last int64
	pos        int64
	// firstTs and maxTs are the batch's timestamps, -1 when none: where a
	// diverged range lies on the cluster's time axis.
	firstTs, maxTs int64
	crc            uint32
	epoch          int32
	records        int32
	seg            int32 // index into replica.segs
	// damaged: the batch fails its CRC in this copy, or its records do
	// not decode though the CRC holds (a batch rewritten with a fresh CRC
	// over damaged bytes); its header may still agree with another copy's.
	damaged bool
}

// recFP is what the comparison keeps of one data record of a copy: its
// offset and the first 8 bytes of its fingerprint (key, value, headers),
// enough to tell whether two copies' surviving records agree.
type recFP struct {
	off int64
	fp  uint64
}

// recSpan is where the fingerprints of one batch of a copy lie in its
// slab: the batch by its segment and byte position. seg, an index into
// replica.segs, is set when the spans are sorted: the entries of a batch
// may come before its row.
type recSpan struct {
	segName  string
	seg      int32
	pos      int64
	block    int32
	from, to int32
}

// maxRecordFPs bounds the record fingerprints kept over all copies (16
// bytes each): past it, batches the log cleaner rewrote are compared by
// their offsets and epochs alone, and the sentence says so.
var maxRecordFPs = 1 << 22

// span is the number of offsets the batch covers.
func (b *batch) span() int64 { return b.last - b.base + 1 }

type key struct {
	input int32
	dir   string
}

type tp struct {
	topic string
	part  int32
}

// replica is one partition copy as the scan delivered it.
type replica struct {
	key     key
	topic   string
	part    int32
	segs    []string
	batches []batch
	// sole: the scan knows no other dir of the run holds the partition;
	// its batches are folded into fold, not kept in batches.
	sole bool
	fold soleFold
	// ckpt is the leader-epoch-checkpoint, when the dir has one that parses.
	ckpt    []snapshot.EpochEntry
	hasCkpt bool
	// topicID is partition.metadata's topic id, "" when unknown.
	topicID string
	// recs are the record fingerprints of the copy's batches, when the
	// scan delivered them (Entries), in spans one per batch: in the order
	// they came, sorted when first looked up (sorted).
	blocks [][]recFP
	spans  []recSpan
	sorted bool
	// leftover names a .cleaned or .swap file of the dir: the cleaner was
	// at work in it.
	leftover string
}

// logDir is what the comparison needs of a log dir's root.
type logDir struct {
	broker          int32  // -1: unknown
	cluster         string // cluster.id, "" when unknown
	hw, rp, logStrt map[tp]int64
	// cleaned is cleaner-offset-checkpoint: the offset up to which the
	// log cleaner has compacted each partition.
	cleaned map[tp]int64
}

// Collector gathers, per partition copy, the batch headers and state files
// the comparison needs. Like the checker it is fed from one goroutine.
type Collector struct {
	sources []string
	copies  map[key]*replica
	order   []*replica
	dirs    map[key]*logDir
	last    *replica
	// byDir is the last copy begun of each partition dir: the next
	// broker's copy is likely to hold as many batches, and its batch
	// list starts that large.
	byDir map[string]*replica
	// compacted names the topics whose configuration compacts them.
	compacted map[string]bool
	nrecs     int  // record fingerprints kept
	overFPs   bool // maxRecordFPs was reached
	// OneCluster: copies whose log dirs name no cluster.id and whose
	// dirs have no topic id are compared with each other (see Compare).
	OneCluster bool
	// Unread reports whether the copy in dir of input is unread past its
	// end: its input, a cut archive, ended inside it (check.Verdict's
	// Unread). Such a copy is not said to lag.
	Unread func(input int32, dir string) bool
}

// New returns a collector for inputs named by sources (scan.Sources).
func New(sources []string) *Collector {
	return &Collector{sources: sources, copies: map[key]*replica{}, dirs: map[key]*logDir{}, byDir: map[string]*replica{}}
}

// copyOf returns the copy in dir of input, nil for a dir that is not a
// live partition dir (-delete, -future and -stray dirs are not replicas).
func (c *Collector) copyOf(input int32, dir, topic string, part int32) *replica {
	k := key{input, dir}
	if c.last != nil && c.last.key == k {
		return c.last
	}
	r := c.copies[k]
	if r == nil {
		if pd, ok := source.ParsePartitionDir(path.Base(dir)); ok && pd.State != "" {
			return nil
		}
		if topic == "" || part < 0 {
			return nil
		}
		r = &replica{key: k, topic: topic, part: part}
		if prev := c.byDir[dir]; prev != nil && len(prev.batches) > 0 {
			r.batches = make([]batch, 0, len(prev.batches))
		}
		c.byDir[dir] = r
		c.copies[k] = r
		c.order = append(c.order, r)
	}
	c.last = r
	return r
}

// Batch takes one batch of a live segment (check.Checker.OnBatch).
func (c *Collector) Batch(b *analysis.BatchRow) {
	var r *replica
	if l := c.last; l != nil && l.key.input == b.Input && len(l.segs) > 0 && l.segs[len(l.segs)-1] == b.Segment {
		r = l // the segment of the batch before
	} else {
		r = c.copyOf(b.Input, analysis.PartitionDir(b.Segment), b.Topic, b.Partition)
	}
	if r == nil {
		return
	}
	seg := len(r.segs) - 1
	if seg < 0 || r.segs[seg] != b.Segment {
		r.segs = append(r.segs, b.Segment)
		seg++
	}
	if len(r.batches) == 0 && r.fold.batches == 0 {
		// A copy's dirs are one partition dir: its batches agree.
		r.sole = b.SoleCopy
	}
	if r.sole {
		r.fold.add(b.BaseOffset, b.LastOffset, b.PartitionLeaderEpoch)
		return
	}
	x := batch{base: b.BaseOffset, last: b.LastOffset, pos: b.Position, crc: uint32(b.CRC),
		epoch: b.PartitionLeaderEpoch, records: b.RecordCount, seg: int32(seg), firstTs: -1, maxTs: -1, damaged: !b.CRCValid || b.DecodedRecords < b.RecordCount}
	if b.FirstTimestamp != nil {
		x.firstTs = *b.FirstTimestamp
	}
	if b.MaxTimestamp != nil {
		x.maxTs = *b.MaxTimestamp
	}
	if len(r.batches) == cap(r.batches) {
		// Doubled, not the quarter append adds to a long slice: a 1 GiB
		// copy's 130,000 batches were copied some ten times over. Each
		// growth is a fresh allocation the kernel faults in page by page.
		// It starts at 4: most of a broker's partitions hold a few
		// batches, and 50,000 copies at 64 would hold 200 MB.
		r.batches = slices.Grow(r.batches, max(len(r.batches), 4))
	}
	r.batches = append(r.batches, x)
}

// Entries takes the records of one batch (scan.Output.Entries): their
// fingerprints tell whether two copies' batches that the log cleaner
// rewrote differently still agree on the records both kept.
func (c *Collector) Entries(b *scan.EntryBatch) {
	if b.SoleCopy {
		return // no other copy to compare them with
	}
	if c.nrecs >= maxRecordFPs {
		c.overFPs = c.overFPs || len(b.Entries) > 0
		return
	}
	r := c.copyOf(b.Input, analysis.PartitionDir(b.Segment), b.Topic, b.Partition)
	if r == nil || len(b.Entries) == 0 {
		return
	}
	fps := r.reserve(len(b.Entries))
	for i := range b.Entries {
		e := &b.Entries[i]
		if !e.Control {
			fps = append(fps, recFP{off: e.Offset, fp: binary.BigEndian.Uint64(e.Fingerprint[:8])})
		}
	}
	c.keep(r, b.Segment, b.BatchPosition, fps)
}

// Records takes record rows (scan.Output.Records), for the same purpose as
// Entries: the rows of one batch come one after the other.
func (c *Collector) Records(rows []analysis.PayloadRecordRow) {
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].Input == rows[i].Input && rows[j].BatchPosition == rows[i].BatchPosition && rows[j].Segment == rows[i].Segment {
			j++
		}
		x := &rows[i].RecordRow
		if x.SoleCopy {
			i = j
			continue // no other copy to compare them with
		}
		if c.nrecs >= maxRecordFPs {
			c.overFPs = true
			return
		}
		if r := c.copyOf(x.Input, analysis.PartitionDir(x.Segment), x.Topic, x.Partition); r != nil {
			fps := r.reserve(j - i)
			for k := i; k < j; k++ {
				if y := &rows[k].RecordRow; !y.IsControl && y.HasFP {
					fps = append(fps, recFP{off: y.Offset, fp: binary.BigEndian.Uint64(y.FP[:8])})
				}
			}
			c.keep(r, x.Segment, x.BatchPosition, fps)
		}
		i = j
	}
}

// recBlock is the most fingerprints a block of a copy's slab holds:
// blocks are not copied as they fill, as one growing slice would be.
// A copy's first block holds the first batch's records (at least
// recFirstBlock), and each next one twice its predecessor up to recBlock:
// a copy of a few records (most of a broker's thousands of partitions)
// costs a few hundred bytes, not the 1 MiB of a full block.
const (
	recBlock      = 1 << 16
	recFirstBlock = 1 << 4
)

// reserve returns an empty slice with room for n fingerprints, in the
// copy's last block or a new one.
func (r *replica) reserve(n int) []recFP {
	if k := len(r.blocks); k == 0 || cap(r.blocks[k-1])-len(r.blocks[k-1]) < n {
		size := recFirstBlock
		if k > 0 {
			size = min(recBlock, 2*cap(r.blocks[k-1]))
		}
		r.blocks = append(r.blocks, make([]recFP, 0, max(size, n)))
	}
	b := r.blocks[len(r.blocks)-1]
	return b[len(b):len(b):cap(b)]
}

// keep records fps, filled from r.reserve, as the batch at pos of seg.
func (c *Collector) keep(r *replica, seg string, pos int64, fps []recFP) {
	k := len(r.blocks) - 1
	from := len(r.blocks[k])
	r.blocks[k] = r.blocks[k][:from+len(fps)]
	r.spans = append(r.spans, recSpan{segName: seg, pos: pos, block: int32(k), from: int32(from), to: int32(from + len(fps))})
	r.sorted = false
	c.nrecs += len(fps)
}

// recsOf is the fingerprints of batch x of r, nil when none were kept.
func (r *replica) recsOf(x *batch) []recFP {
	if !r.sorted {
		idx := make(map[string]int32, len(r.segs))
		for i, s := range r.segs {
			idx[s] = int32(i)
		}
		for i := range r.spans {
			r.spans[i].seg = -1
			if j, ok := idx[r.spans[i].segName]; ok {
				r.spans[i].seg = j
			}
		}
		slices.SortFunc(r.spans, func(a, b recSpan) int { return cmp.Or(cmp.Compare(a.seg, b.seg), cmp.Compare(a.pos, b.pos)) })
		r.sorted = true
	}
	i, ok := slices.BinarySearchFunc(r.spans, recSpan{seg: x.seg, pos: x.pos}, func(a, b recSpan) int {
		return cmp.Or(cmp.Compare(a.seg, b.seg), cmp.Compare(a.pos, b.pos))
	})
	if !ok {
		return nil
	}
	sp := &r.spans[i]
	return r.blocks[sp.block][sp.from:sp.to]
}

// AddCompactedTopics adds the topics whose configuration (the KRaft
// metadata's cleanup.policy) compacts them.
func (c *Collector) AddCompactedTopics(ts map[string]bool) {
	if c.compacted == nil {
		c.compacted = map[string]bool{}
	}
	for t, ok := range ts {
		if ok {
			c.compacted[t] = true
		}
	}
}

// File takes a scan's file outcome: the leader-epoch-checkpoint of a
// partition dir, and the offset checkpoints and meta.properties of a log
// dir's root.
func (c *Collector) File(ev *scan.FileEvent) {
	e := ev.Entry
	n := e.Name
	in := int32(e.Input)
	if (n.Suffix == snapshot.SuffixCleaned || n.Suffix == snapshot.SuffixSwap) && e.Partition != nil {
		if r := c.copyOf(in, analysis.PartitionDir(e.Path), e.Partition.Topic, e.Partition.Partition); r != nil && r.leftover == "" {
			r.leftover = path.Base(e.Path)
		}
		return
	}
	if ev.Data == nil || n.Leftover || n.Suffix != "" {
		return
	}
	switch {
	case n.Kind == snapshot.KindLeaderEpochCheckpoint && e.Partition != nil:
		ck, err := snapshot.ParseLeaderEpochCheckpoint(e.Path, ev.Data)
		if err != nil || ck == nil {
			return // a finding of the checker's
		}
		if r := c.copyOf(in, analysis.PartitionDir(e.Path), e.Partition.Topic, e.Partition.Partition); r != nil {
			r.ckpt, r.hasCkpt = ck.Entries, true
		}
	case n.Kind == snapshot.KindPartitionMetadata && e.Partition != nil:
		m, err := snapshot.ParsePartitionMetadata(e.Path, ev.Data)
		if err != nil || m == nil || !m.HasTopicID {
			return
		}
		if r := c.copyOf(in, analysis.PartitionDir(e.Path), e.Partition.Topic, e.Partition.Partition); r != nil {
			r.topicID = m.TopicID.String()
		}
	case e.Partition != nil:
	case n.Kind == snapshot.KindMetaProperties:
		if m, _ := snapshot.ParseMetaProperties(e.Path, ev.Data); m != nil {
			l := c.logDirOf(in, e.LogDir)
			l.broker = m.ID()
			if m.HasClusterID {
				l.cluster = m.ClusterID
			}
		}
	case n.Kind == snapshot.KindReplicationCheckpoint, n.Kind == snapshot.KindRecoveryPointCheckpoint,
		n.Kind == snapshot.KindLogStartCheckpoint, n.Kind == snapshot.KindCleanerCheckpoint:
		ck, err := snapshot.ParseOffsetCheckpoint(e.Path, ev.Data)
		if err != nil || ck == nil {
			return
		}
		l := c.logDirOf(in, e.LogDir)
		m := map[snapshot.Kind]map[tp]int64{snapshot.KindReplicationCheckpoint: l.hw,
			snapshot.KindRecoveryPointCheckpoint: l.rp, snapshot.KindLogStartCheckpoint: l.logStrt, snapshot.KindCleanerCheckpoint: l.cleaned}[n.Kind]
		for _, x := range ck.Entries {
			m[tp{x.Topic, x.Partition}] = x.Offset
		}
	}
}

func (c *Collector) logDirOf(input int32, dir string) *logDir {
	k := key{input, dir}
	l := c.dirs[k]
	if l == nil {
		l = &logDir{broker: -1, hw: map[tp]int64{}, rp: map[tp]int64{}, logStrt: map[tp]int64{}, cleaned: map[tp]int64{}}
		c.dirs[k] = l
	}
	return l
}

// ClusterOf returns the cluster of the partition dir dir of input (the
// dir of its segments' paths): the cluster.id of its own log dir's
// meta.properties, else the input's when its log dirs name one and no
// other, else "". One archive may hold the log dirs of two clusters (a
// cluster and its mirror); their partitions then keep their own.
func (c *Collector) ClusterOf(input int32, dir string) string {
	if l := c.dirs[key{input, logDirName(dir)}]; l != nil && l.cluster != "" {
		return l.cluster
	}
	cl := ""
	for k, l := range c.dirs {
		switch {
		case k.input != input || l.cluster == "" || l.cluster == cl:
		case cl == "":
			cl = l.cluster
		default:
			return ""
		}
	}
	return cl
}

// logDirName is the log dir a partition dir belongs to, as the source
// listing names it (Entry.LogDir): a partition dir given as the input has
// the log dir "..".
func logDirName(dir string) string {
	if dir == "." || dir == "" {
		return ".."
	}
	return path.Dir(dir)
}

// logDirOfCopy is the log dir of a copy's partition dir.
func (c *Collector) logDirOfCopy(r *replica) *logDir {
	return c.logDirOf(r.key.input, logDirName(r.key.dir))
}

func (c *Collector) source(in int32) string {
	if int(in) < len(c.sources) {
		return c.sources[in]
	}
	return ""
}
