package segtest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// GenOptions tunes GenerateLogDir. The zero value is usable.
type GenOptions struct {
	// SegmentBytes is log.segment.bytes: a new segment is rolled before a
	// batch that would take the active one past it (Kafka's
	// LogSegment.shouldRoll rule). Zero means DefaultSegmentBytes.
	SegmentBytes int64
	// MultiBlock adds two ~80 KiB batches (snappy, lz4) to codecs-0 whose
	// records span several xerial chunks and lz4 blocks. Off by default:
	// they cost little on disk but ~200 KB of manifest.
	MultiBlock bool
	// IndexIntervalBytes is index.interval.bytes, the bytes appended
	// between two offset-index entries. Zero means
	// DefaultIndexIntervalBytes.
	IndexIntervalBytes int64
	// Unclean writes the log dir a broker killed while running leaves
	// behind instead of a clean shutdown's: the active segments' .index
	// and .timeindex keep their preallocated size, zero-filled past the
	// entries (IndexPreallocBytes), with no closing time-index entry; there
	// is no snapshot at the log end and no .kafka_cleanshutdown; the
	// recovery point is the active segment's base offset, flushed at the
	// last roll.
	Unclean bool
	// IndexPreallocBytes is segment.index.bytes, the size of an active
	// segment's preallocated index files with Unclean. Zero means 64 KiB
	// (the broker's default is 10 MiB, too big for tests).
	IndexPreallocBytes int64
}

// DefaultSegmentBytes is small on purpose, so that the few dozen batches
// of each partition still spread over several segments.
const DefaultSegmentBytes = 4 << 10

// DefaultIndexIntervalBytes is a quarter of Kafka's 4096 for the same
// reason: with 4 KiB segments the broker default would leave every offset
// index empty.
const DefaultIndexIntervalBytes = 1 << 10

// Manifest is the ground truth for a generated log dir: every file, batch
// and record, as a correct reader should report them.
type Manifest struct {
	Seed         int64  `json:"seed"`
	SegmentBytes int64  `json:"segmentBytes"`
	MultiBlock   bool   `json:"multiBlock"`
	ClusterID    string `json:"clusterId"`
	// IndexIntervalBytes is the index.interval.bytes the indexes follow.
	IndexIntervalBytes int64 `json:"indexIntervalBytes"`
	// Unclean is GenOptions.Unclean.
	Unclean    bool                `json:"unclean,omitempty"`
	Partitions []PartitionManifest `json:"partitions"`
	// Files lists every file of the log dir but manifest.json, by
	// slash-separated relative name, sorted.
	Files []FileManifest `json:"files"`
}

// FileManifest is one file of the generated log dir.
type FileManifest struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// PartitionManifest describes one <topic>-<partition> directory.
type PartitionManifest struct {
	Topic          string            `json:"topic"`
	Partition      int32             `json:"partition"`
	Dir            string            `json:"dir"`      // relative to the log dir
	Scenario       string            `json:"scenario"` // what the partition is for, in words
	TopicID        string            `json:"topicId"`  // as in partition.metadata
	LogStartOffset int64             `json:"logStartOffset"`
	LogEndOffset   int64             `json:"logEndOffset"` // next offset to be written
	LeaderEpochs   []EpochEntry      `json:"leaderEpochs"` // as in leader-epoch-checkpoint
	Segments       []SegmentManifest `json:"segments"`
	// Snapshots are the producer-state NNN.snapshot files, by offset.
	Snapshots []SnapshotManifest `json:"snapshots"`
	// CleanerOffset is the cleaner-offset-checkpoint entry (the first
	// offset the log cleaner has not cleaned), -1 if the log was never
	// cleaned.
	CleanerOffset int64 `json:"cleanerOffset"`
}

// EpochEntry is one leader-epoch-checkpoint line.
type EpochEntry struct {
	Epoch       int32 `json:"epoch"`
	StartOffset int64 `json:"startOffset"`
}

// SegmentManifest describes one NNN.log file. Batch positions are byte
// offsets in the file.
type SegmentManifest struct {
	File       string `json:"file"` // relative to the log dir
	BaseOffset int64  `json:"baseOffset"`
	Size       int64  `json:"size"`
	// Cleaned marks a segment written by the log cleaner.
	Cleaned bool        `json:"cleaned,omitempty"`
	Batches []EntryInfo `json:"batches"`
	// IndexEntries and TimeIndexEntries are the NNN.index and
	// NNN.timeindex entries; AbortedTxns the NNN.txnindex entries (a
	// segment without any has no .txnindex file).
	IndexEntries     []IndexEntry     `json:"indexEntries"`
	TimeIndexEntries []TimeIndexEntry `json:"timeIndexEntries"`
	AbortedTxns      []AbortedTxn     `json:"abortedTxns,omitempty"`
	// appendEnds holds, per append into the segment, the number of
	// batches after it: the index follows appends, not entries.
	appendEnds []int
}

// SegmentFileName is Kafka's 20-digit zero-padded "<offset>.log" name.
func SegmentFileName(baseOffset int64) string { return fmt.Sprintf("%020d.log", baseOffset) }

// partition accumulates the segments of one partition in memory.
type partition struct {
	m        PartitionManifest
	data     [][]byte // file contents, parallel to m.Segments
	segBytes int64
	next     int64 // offset the next appended batch gets
	// roll forces the next append into a new segment, as a roll by
	// segment.ms does; the compacted scenario ends its cleaned segment so.
	roll bool
}

func newPartition(topic string, p int32, scenario string, segBytes int64, topicID string) *partition {
	return &partition{m: PartitionManifest{
		Topic: topic, Partition: p, Scenario: scenario, TopicID: topicID,
		Dir:          fmt.Sprintf("%s-%d", topic, p),
		LeaderEpochs: []EpochEntry{}, CleanerOffset: -1,
	}, segBytes: segBytes}
}

// append writes b at the partition's next offset.
func (p *partition) append(b Batch) error {
	b.BaseOffset = p.next
	return p.appendAt(b)
}

// appendAt writes b at its own BaseOffset, which may skip offsets (as
// compaction leaves them) but must not go back.
func (p *partition) appendAt(b Batch) error {
	if b.BaseOffset < p.next {
		return fmt.Errorf("segtest: %s: batch at offset %d below log end %d", p.m.Dir, b.BaseOffset, p.next)
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("segtest: %s: offset %d: %w", p.m.Dir, b.BaseOffset, err)
	}
	enc, infos, err := b.EncodeDescribe()
	if err != nil {
		return err
	}
	n := len(p.data)
	if n == 0 || (len(p.data[n-1]) > 0 && (p.roll || int64(len(p.data[n-1])+len(enc)) > p.segBytes)) {
		p.roll = false
		// The first segment is named 0 even if compaction removed its
		// first offsets; later ones by the offset that rolled them.
		base := b.BaseOffset
		if n == 0 {
			base = 0
		}
		p.m.Segments = append(p.m.Segments, SegmentManifest{
			File: p.m.Dir + "/" + SegmentFileName(base), BaseOffset: base, Batches: []EntryInfo{},
		})
		p.data = append(p.data, nil)
		n++
	}
	seg := &p.m.Segments[n-1]
	for _, e := range infos {
		e.Position += int64(len(p.data[n-1]))
		seg.Batches = append(seg.Batches, e)
	}
	p.data[n-1] = append(p.data[n-1], enc...)
	seg.Size = int64(len(p.data[n-1]))
	seg.appendEnds = append(seg.appendEnds, len(seg.Batches))
	// Only v2 batches carry a leader epoch; the cache is assigned from them
	// (UnifiedLog.append: leaderEpochCache.assign for magic >= 2).
	if b.Magic >= 2 && b.PartitionLeaderEpoch >= 0 {
		ep := p.m.LeaderEpochs
		if len(ep) == 0 || b.PartitionLeaderEpoch > ep[len(ep)-1].Epoch {
			p.m.LeaderEpochs = append(ep, EpochEntry{b.PartitionLeaderEpoch, b.BaseOffset})
		}
	}
	p.next = infos[len(infos)-1].LastOffset + 1
	p.m.LogEndOffset = p.next
	return nil
}

// gen holds the seeded state shared by the scenarios.
type gen struct {
	opts     GenOptions
	rng      *rand.Rand
	now      int64 // wall clock of the simulated cluster, ms
	segBytes int64
	parts    []*partition
}

func (g *gen) newPartition(topic string, p int32, scenario string) *partition {
	var id [16]byte
	for i := range id {
		id[i] = byte(g.rng.UintN(256))
	}
	pt := newPartition(topic, p, scenario, g.segBytes, base64.RawURLEncoding.EncodeToString(id[:]))
	g.parts = append(g.parts, pt)
	return pt
}

// tick advances the clock by 1..999 ms and returns it.
func (g *gen) tick() int64 {
	g.now += 1 + g.rng.Int64N(999)
	return g.now
}

const valueAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "

func (g *gen) text(minLen, maxLen int) []byte {
	n := minLen + g.rng.IntN(maxLen-minLen+1)
	b := make([]byte, n)
	for i := range b {
		b[i] = valueAlphabet[g.rng.IntN(len(valueAlphabet))]
	}
	return b
}

// records makes n records with keys from keySpace and random values; the
// timestamp deltas rise by 0..9 ms.
func (g *gen) records(n int, keyPrefix string, keySpace int) []Record {
	rs := make([]Record, n)
	var d int64
	for i := range rs {
		rs[i] = Record{
			TimestampDelta: d,
			Key:            fmt.Appendf(nil, "%s-%03d", keyPrefix, g.rng.IntN(keySpace)),
			Value:          g.text(8, 48),
		}
		d += g.rng.Int64N(10)
	}
	return rs
}

// GenerateLogDir writes a small Kafka log dir into dir, which must be
// missing or empty, and returns its ground truth. Beside the segments it
// writes what a broker writes while appending and at a clean shutdown:
// offset, time and transaction indexes, producer snapshots, the root
// checkpoints, meta.properties and .kafka_cleanshutdown, and each
// partition's leader-epoch-checkpoint and partition.metadata. The same seed
// and options always give the same bytes.
func GenerateLogDir(dir string, seed int64, opts GenOptions) (*Manifest, error) {
	if opts.SegmentBytes <= 0 {
		opts.SegmentBytes = DefaultSegmentBytes
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("segtest: %s is not empty", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("segtest: %w", err)
	}
	m, files, err := buildLogDir(seed, opts)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("segtest: %w", err)
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return nil, fmt.Errorf("segtest: %w", err)
		}
	}
	return m, nil
}

// buildLogDir runs the scenarios in memory and returns the manifest and
// the files (slash-separated relative name to content).
func buildLogDir(seed int64, opts GenOptions) (*Manifest, map[string][]byte, error) {
	g := &gen{
		rng:      rand.New(rand.NewPCG(uint64(seed), 0x6b736c65757468)), // "ksleuth"
		segBytes: opts.SegmentBytes,
		opts:     opts,
	}
	g.now = 1700000000000 + g.rng.Int64N(86_400_000)
	var cid [16]byte
	for i := range cid {
		cid[i] = byte(g.rng.UintN(256))
	}
	m := &Manifest{Seed: seed, SegmentBytes: opts.SegmentBytes, MultiBlock: opts.MultiBlock, ClusterID: base64.RawURLEncoding.EncodeToString(cid[:])}

	for _, scenario := range []func(*gen) error{
		genLegacy0, genLegacy1, genCodecs, genTransactions, genCompacted, genIdempotent, genUpgrade,
	} {
		if err := scenario(g); err != nil {
			return nil, nil, err
		}
	}

	if opts.IndexIntervalBytes <= 0 {
		opts.IndexIntervalBytes = DefaultIndexIntervalBytes
	}
	m.IndexIntervalBytes, m.Unclean = opts.IndexIntervalBytes, opts.Unclean
	rules := stateRules{interval: opts.IndexIntervalBytes}
	if opts.Unclean {
		rules.prealloc = opts.IndexPreallocBytes
		if rules.prealloc <= 0 {
			rules.prealloc = 64 << 10
		}
	}
	files := map[string][]byte{}
	for _, p := range g.parts {
		computeState(&p.m, rules)
		for i, s := range p.m.Segments {
			files[s.File] = p.data[i]
		}
		for name, data := range stateFiles(&p.m, rules.prealloc) {
			files[name] = data
		}
		var ep strings.Builder
		fmt.Fprintf(&ep, "0\n%d\n", len(p.m.LeaderEpochs))
		for _, e := range p.m.LeaderEpochs {
			fmt.Fprintf(&ep, "%d %d\n", e.Epoch, e.StartOffset)
		}
		files[p.m.Dir+"/leader-epoch-checkpoint"] = []byte(ep.String())
		// No trailing newline: PartitionMetadataFile writes none.
		files[p.m.Dir+"/partition.metadata"] = []byte("version: 0\ntopic_id: " + p.m.TopicID)
		m.Partitions = append(m.Partitions, p.m)
	}
	rootFiles(m, files, opts.Unclean)
	for name, data := range files {
		m.Files = append(m.Files, FileManifest{Name: name, Size: int64(len(data))})
	}
	slices.SortFunc(m.Files, func(a, b FileManifest) int { return strings.Compare(a.Name, b.Name) })
	return m, files, nil
}

// rootFiles adds the files a broker keeps at the root of a log dir.
func rootFiles(m *Manifest, files map[string][]byte, unclean bool) {
	checkpoint := func(include func(p *PartitionManifest) bool, value func(p *PartitionManifest) int64) []byte {
		var lines []string
		for i := range m.Partitions {
			if p := &m.Partitions[i]; include(p) {
				lines = append(lines, fmt.Sprintf("%s %d %d\n", p.Topic, p.Partition, value(p)))
			}
		}
		return fmt.Appendf(nil, "0\n%d\n%s", len(lines), strings.Join(lines, ""))
	}
	all := func(*PartitionManifest) bool { return true }
	// A clean shutdown flushes every log to its end first; a running
	// broker has flushed up to the last roll.
	files["recovery-point-offset-checkpoint"] = checkpoint(all, func(p *PartitionManifest) int64 {
		if unclean {
			return p.Segments[len(p.Segments)-1].BaseOffset
		}
		return p.LogEndOffset
	})
	// The high watermark: with a single replica every write is committed.
	files["replication-offset-checkpoint"] = checkpoint(all, func(p *PartitionManifest) int64 { return p.LogEndOffset })
	// LogManager writes a log start offset only when it is past the first
	// segment's base offset.
	files["log-start-offset-checkpoint"] = checkpoint(func(p *PartitionManifest) bool {
		return len(p.Segments) > 0 && p.LogStartOffset > p.Segments[0].BaseOffset
	}, func(p *PartitionManifest) int64 { return p.LogStartOffset })
	files["cleaner-offset-checkpoint"] = checkpoint(func(p *PartitionManifest) bool { return p.CleanerOffset >= 0 },
		func(p *PartitionManifest) int64 { return p.CleanerOffset })
	// Java Properties.store: comment line, date line, then key=value. The
	// date is fixed so the output is reproducible.
	files["meta.properties"] = []byte("#\n#Tue Nov 14 22:13:20 UTC 2023\nversion=0\nbroker.id=0\ncluster.id=" + m.ClusterID + "\n")
	if !unclean {
		files[".kafka_cleanshutdown"] = []byte{}
	}
}

// EncodeJSON is the manifest.json form: one field per line without
// indentation, diffable and about half the size of indented JSON. Keys and
// values are base64 ([]byte), null stays null.
func (m *Manifest) EncodeJSON() ([]byte, error) {
	js, err := json.MarshalIndent(m, "", "")
	if err != nil {
		return nil, fmt.Errorf("segtest: %w", err)
	}
	return append(js, '\n'), nil
}

// LoadManifest reads a manifest.json written by EncodeJSON.
func LoadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("segtest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("segtest: %s: %w", path, err)
	}
	return &m, nil
}

// BrokenEveryOther is a segment of n one-record batches at offsets 0..n-1
// whose even batches have their last byte flipped: a crc-mismatch and a
// bad-record finding each, n findings in all. It fills a file past a
// findings cap.
func BrokenEveryOther(n int) []byte {
	var seg []byte
	for i := range n {
		b := Batch{Magic: 2, BaseOffset: int64(i), FirstTimestamp: 1_700_000_000_000,
			Records: []Record{{Value: []byte(fmt.Sprint("value ", i))}}}.Encode()
		if i%2 == 0 {
			b[len(b)-1] ^= 0xff
		}
		seg = append(seg, b...)
	}
	return seg
}
