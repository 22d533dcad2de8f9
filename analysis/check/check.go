// Package check is ksleuth's integrity engine: fed the batches and file
// outcomes of a scan (package scan) in the order the scan produces them, it
// checks every partition the way a broker would read it — offsets within
// and across segments, indexes against the log, the .txnindex against the
// ABORT markers, producer snapshots against the producer state rebuilt from
// the batches, checkpoints against the data — and keeps the loss ledger:
// for every partition copy, which offsets are present and, for each range
// that is not, why. Every command runs it, so `verify`, `scan` and the
// report give the same findings for the same input.
//
// Files of a directory input arrive in lexical path order, which within a
// partition dir is offset order; an index file comes just before its
// segment and the other index and snapshot files of the same offset just
// after it, and the checker keeps the few things that needs. An archive
// holds its files in any order: its batches (a few dozen bytes each) and
// side files are held until the archive ends (a batch row, about 200 bytes,
// per batch) and then replayed in the order of a directory.
package check

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Options tune the checks. The zero value gives the defaults.
type Options struct {
	// ProducerExpirationMs is the broker's producer.id.expiration.ms,
	// used to explain producers missing from a snapshot. Default 1 day.
	ProducerExpirationMs int64
	// MaxFindingsPerFile caps the checker's findings of one kind about one
	// file (a wholly wrong index would give one per entry); the rest are
	// counted in one more finding. Default 20; < 0 is no cap.
	MaxFindingsPerFile int
	// CompactedTopics names topics whose configuration says
	// cleanup.policy=compact (from the KRaft metadata), compaction
	// evidence for their gaps.
	CompactedTopics map[string]bool
	// NewProducerState returns an empty producer state as a broker
	// rebuilds it (package producer's): the checker feeds one per
	// partition copy in its replay and compares it with the producer
	// snapshots. Required.
	NewProducerState func() analysis.ProducerState
	// TopicRetention is each topic's retention settings from the KRaft
	// metadata, the evidence that weighs a missing log start (retention.go).
	TopicRetention map[string]Retention
	// RemoteHeld is, per topic and partition, the offset ranges of the
	// remote segments __remote_log_metadata says are held (remote.go).
	RemoteHeld map[string]map[int32][]analysis.OffsetRange
}

func (o Options) withDefaults() Options {
	if o.ProducerExpirationMs <= 0 {
		o.ProducerExpirationMs = 86_400_000
	}
	if o.MaxFindingsPerFile == 0 {
		o.MaxFindingsPerFile = 20
	}
	return o
}

// Checker receives one run's events. It is not safe for concurrent use:
// the scan's collector calls it from one goroutine.
type Checker struct {
	o       Options
	inputs  []*source.Input
	sources []string

	parts   map[partKey]*partition
	order   []*partition
	logDirs map[logDirKey]*logDir
	ldOrder []*logDir
	cur     *partition // the partition of the last event

	findings []analysis.AnomalyRow
	omitted  finding.Tally
	files    int64
	// Kafka counts the files whose kind ksleuth knows; other counts the
	// rest, which are listed in Skipped.
	kafka   int64
	skipped []Skipped

	// bare are the partition dirs seen to hold a file that is not a
	// Kafka file, or none (bare.go).
	bare map[partKey]bareDir
	// unselected are the live partition dirs a topic filter left out, by
	// log dir (unselected.go).
	unselected map[logDirKey]map[partName]bool

	store *remoteStore // the remote store roots read, if any (remotestore.go)

	held *archiveHold // the archive input being held, if any
	// cut holds the archive inputs that ended before their end (cut
	// short or damaged): entries after the fault were never read.
	cut map[int32]bool
	// lastEntry is the path of each archive input's latest entry (cut.go).
	lastEntry map[int32]string
	lastSeg   string
	// segBatches is how many batches the last segment read at a path
	// (relative to its input) held: another broker's copy of it is
	// likely to hold as many, and its batch list starts that large.
	segBatches map[string]int
	segKind    snapshot.Name
	// keyDirSeg and keyDir: the partition key dir of the segment whose
	// batches replay last took (segmentKeyDir, once per segment rather
	// than per batch).
	keyDirSeg, keyDir string

	// OnBatch, when set, gets every batch of the live segments in the
	// order the checks replay them: offset order within a partition, also
	// for archives (the producer sessions are rebuilt from it).
	OnBatch func(*analysis.BatchRow)

	// indexEnds is the last entry of every offset index read, by input
	// and segment path (clean.go).
	indexEnds map[fileKey]indexEnd
}

// Skipped is a file of the inputs that is not a Kafka file, or was not read.
type Skipped struct {
	Input  int32
	Path   string
	Reason string
}

type partKey struct {
	input int32
	dir   string
}

type logDirKey struct {
	input int32
	dir   string
}

// New returns a checker for a run over inputs, whose sources name them
// (scan.Sources).
func New(inputs []*source.Input, sources []string, o Options) *Checker {
	if o.NewProducerState == nil {
		panic("check: Options.NewProducerState is required")
	}
	return &Checker{o: o.withDefaults(), inputs: inputs, sources: sources, parts: map[partKey]*partition{},
		logDirs: map[logDirKey]*logDir{}, omitted: finding.Tally{}}
}

func (c *Checker) isFile(input int32) bool {
	return int(input) < len(c.inputs) && c.inputs[input].Kind == source.File
}

func (c *Checker) isArchive(input int32) bool {
	return int(input) < len(c.inputs) && c.inputs[input].Kind == source.Archive
}

// ArchiveEnded says that archive input could not be read past some point
// (an archive-damaged finding): its entries after it were never read, so
// the offsets that the partition dir it ended inside, and the partition
// dirs it never reached, may hold are unread, not absent (cut.go). last
// is the path of the last entry header the archive read ("" when not
// known; a dir's ends in "/"): it names the dir the archive ended
// inside better than the last file passed on. It is called before Finish.
func (c *Checker) ArchiveEnded(input int32, last string) {
	if c.cut == nil {
		c.cut = map[int32]bool{}
	}
	c.cut[input] = true
	if last != "" && c.isArchive(input) {
		if c.lastEntry == nil {
			c.lastEntry = map[int32]string{}
		}
		c.lastEntry[input] = last
	}
}

// AddCompactedTopics adds topics whose configuration compacts them, known
// only once the metadata log has been read: the ledger is classified at
// Finish.
func (c *Checker) AddCompactedTopics(ts map[string]bool) {
	if len(ts) == 0 {
		return
	}
	if c.o.CompactedTopics == nil {
		c.o.CompactedTopics = map[string]bool{}
	}
	for t := range ts {
		c.o.CompactedTopics[t] = true
	}
}

// Batches takes a scan's batch rows (scan.Output.Batches).
func (c *Checker) Batches(rows []analysis.BatchRow) error {
	for i := range rows {
		r := &rows[i]
		if r.Segment != c.lastSeg {
			c.lastSeg = r.Segment
			c.segKind = snapshot.ParseName(path.Base(r.Segment))
		}
		if !liveSegment(c.segKind) {
			continue // in transit or a KRaft snapshot: framing findings only
		}
		if c.isArchive(r.Input) {
			c.hold(r.Input).batch(r.Segment, *r)
			continue
		}
		c.replay(r)
	}
	return nil
}

// replay checks one batch of a live segment, in offset order, and hands
// it on to OnBatch.
func (c *Checker) replay(r *analysis.BatchRow) {
	b := infoOf(r)
	if r.Segment != c.keyDirSeg || c.keyDirSeg == "" {
		c.keyDirSeg, c.keyDir = r.Segment, segmentKeyDir(r.Segment)
	}
	c.partitionOf(r.Input, c.keyDir, r.Topic, r.Partition).batch(r.Segment, &b)
	if c.OnBatch != nil {
		c.OnBatch(r)
	}
}

// File takes a scan's file outcome (scan.Output.File).
func (c *Checker) File(ev *scan.FileEvent) error {
	c.files++
	e := ev.Entry
	c.noteEntry(int32(e.Input), e.Path)
	for k, n := range ev.Omitted {
		c.omitted[k] += n
	}
	sk, skipped := e.Skip()
	switch {
	case skipped && sk.Kind != source.SkipIOError:
		// Not read (a special file, a link, an archive inside the
		// archive), whatever its name says: nothing to check.
		c.skipped = append(c.skipped, Skipped{int32(e.Input), e.Path, sk.Reason})
		c.findings = append(c.findings, ev.Anomalies...)
		c.noteBare(e, analysis.PartitionDir(e.Path), bareOther)
		return nil
	case e.Name.Kind == snapshot.KindUnknown:
		reason := "not a Kafka file by its name"
		if ev.Row != nil && ev.Row.Kind == scan.KindBrokerLog {
			reason = "a broker's own log: read for the cluster timeline, not checked"
		}
		if !skipped { // an unreadable dir is an io-error, listed as such
			c.skipped = append(c.skipped, Skipped{int32(e.Input), e.Path, reason})
			c.noteBare(e, analysis.PartitionDir(e.Path), bareOther)
		}
		c.findings = append(c.findings, ev.Anomalies...)
		return nil
	}
	// A Kafka file, read or not: an unreadable segment still takes its
	// place in the ledger.
	c.kafka++
	if c.isArchive(int32(e.Input)) {
		c.hold(int32(e.Input)).file(ev)
		return nil
	}
	c.route(ev)
	return nil
}

// route hands a file to its partition or log dir.
func (c *Checker) route(ev *scan.FileEvent) {
	e := ev.Entry
	if e.Partition != nil && partitionFile(e.Name.Kind) {
		c.partitionOf(int32(e.Input), segmentKeyDir(e.Path), e.Partition.Topic, e.Partition.Partition).file(ev)
		return
	}
	if e.Partition == nil && liveSegment(e.Name) {
		// A segment outside any partition dir (a file given on its own
		// elsewhere) is still checked for its offsets.
		c.partitionOf(int32(e.Input), analysis.PartitionDir(e.Path), "", -1).file(ev)
		return
	}
	c.logDirOf(int32(e.Input), e.LogDir).file(ev)
}

// partitionFile tells the kinds a partition dir holds.
func partitionFile(k snapshot.Kind) bool {
	switch k {
	case snapshot.KindLog, snapshot.KindIndex, snapshot.KindTimeIndex, snapshot.KindTxnIndex, snapshot.KindSnapshot,
		snapshot.KindLeaderEpochCheckpoint, snapshot.KindPartitionMetadata, snapshot.KindQuorumState, snapshot.KindKRaftSnapshot:
		return true
	}
	return false
}

// liveSegment reports whether a file name is a segment of the live log.
func liveSegment(n snapshot.Name) bool {
	return n.Kind == snapshot.KindLog && n.Suffix == "" && !n.Leftover
}

func (c *Checker) partitionOf(input int32, dir, topic string, part int32) *partition {
	k := partKey{input, dir}
	if c.cur != nil && c.cur.key == k {
		return c.cur
	}
	if c.cur != nil && !c.isArchive(input) {
		c.cur.release() // a directory's partitions come one after another
	}
	p := c.parts[k]
	if p == nil {
		p = newPartition(c, k, topic, part)
		c.parts[k] = p
		c.order = append(c.order, p)
	}
	c.cur = p
	return p
}

func (c *Checker) logDirOf(input int32, dir string) *logDir {
	k := logDirKey{input, dir}
	l := c.logDirs[k]
	if l == nil {
		l = &logDir{c: c, key: k, checkpoints: map[snapshot.Kind]*checkpointFile{}}
		c.logDirs[k] = l
		c.ldOrder = append(c.ldOrder, l)
	}
	return l
}

// logDirOfPartition is the log dir a partition dir belongs to.
func (c *Checker) logDirOfPartition(p *partition) *logDir {
	dir := path.Dir(p.key.dir)
	if p.key.dir == "." { // a partition dir given as the input (analysis.PartitionDir)
		dir = ".."
	}
	return c.logDirOf(p.key.input, dir)
}

// Result is what the checks found.
type Result struct {
	// Findings of every file, the reader's included, sorted by input,
	// file and byte position.
	Findings []analysis.AnomalyRow
	// Omitted counts findings past the scan's per-file listing cap.
	Omitted finding.Tally
	// Gaps is the loss ledger.
	Gaps []analysis.GapRow
	// Partitions has one verdict per partition copy with live segments.
	Partitions []Verdict
	unread     map[partKey]bool // the copies whose verdict is UNREAD (UnreadCopy)
	// Files counts the files seen; Kafka those of a kind ksleuth knows.
	Files, Kafka int64
	Skipped      []Skipped
}

// Finish ends the run: held archives are replayed, the cross-file checks
// run, the ledger is classified, and the findings are returned sorted.
func (c *Checker) Finish() *Result {
	c.flushHeld()
	if c.cur != nil {
		c.cur.release()
	}
	c.addBare()
	for _, p := range c.order {
		p.finishSegments()
	}
	for _, l := range c.ldOrder {
		l.finish()
	}
	res := &Result{Omitted: c.omitted, Files: c.files, Kafka: c.kafka, Skipped: c.skipped,
		Partitions: make([]Verdict, 0, len(c.order))}
	for i, p := range c.order {
		if p.remoteDir() {
			// A remote segment is part of every broker's log, not a
			// copy of its own: its offsets are judged in the
			// ledgers of the local copies (remote.go), its files here.
			// A remote segment is never written again: a torn batch in
			// it is a rolled segment's.
			for _, t := range p.truncated {
				finding.GradeTruncated(&p.findings[t.idx], finding.RolledSegment)
			}
			p.flushCaps()
			c.findings = append(c.findings, p.findings...)
			continue // kept: the local copies' ledgers after it read it
		}
		p.regrade()
		before := len(p.findings)
		gaps := p.ledger()
		if p.dirState != "" {
			gaps = p.inTransit(gaps, before)
		}
		res.Gaps = append(res.Gaps, gaps...)
		if v, ok := p.verdict(gaps); ok {
			res.Partitions = append(res.Partitions, v)
		}
		p.flushCaps()
		c.findings = append(c.findings, p.findings...)
		// A partition's state is all in its rows now: on a log dir of
		// 50,000 partitions it is a few KB each, which the verdicts
		// would otherwise be built beside.
		c.order[i] = nil
		delete(c.parts, p.key)
	}
	c.order, c.parts, c.cur = nil, nil, nil
	for _, l := range c.ldOrder {
		c.findings = append(c.findings, l.findings...)
		// By name: the checkpoints list partitions in the broker's hash order.
		slices.SortFunc(l.unreached, func(a, b partName) int { return cmp.Or(strings.Compare(a.topic, b.topic), cmp.Compare(a.part, b.part)) })
		for _, u := range l.unreached {
			v := l.unreachedVerdict(u)
			res.Gaps = append(res.Gaps, v.gaps...)
			res.Partitions = append(res.Partitions, v)
		}
	}
	for i := range c.findings {
		c.findings[i].Source = c.source(c.findings[i].Input)
	}
	for i := range res.Gaps {
		res.Gaps[i].Source = c.source(res.Gaps[i].Input)
	}
	linkCauses(c.findings, res.Gaps)
	linkRemoteHoles(c.findings)
	SortFindings(c.findings)
	res.Findings = c.findings
	return res
}

func (c *Checker) source(in int32) string {
	if int(in) < len(c.sources) {
		return c.sources[in]
	}
	return ""
}

// SortFindings orders findings by input, file and byte position (whole-file
// findings first), keeping the order they were found in otherwise.
func SortFindings(fs []analysis.AnomalyRow) {
	slices.SortStableFunc(fs, func(a, b analysis.AnomalyRow) int {
		return cmp.Or(cmp.Compare(a.Input, b.Input), strings.Compare(a.File, b.File), cmp.Compare(deref(a.Position), deref(b.Position)))
	})
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// where is the finding location of a file of partition p.
func (p *partition) where(file string) finding.Where {
	return finding.Where{Input: p.key.input, Topic: p.topic, Partition: p.part, File: file}
}
