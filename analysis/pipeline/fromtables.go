package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/consumers"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// ShardError is a shard that cannot be merged as given: the command line
// is wrong, not the run.
type ShardError struct{ Err error }

func (e *ShardError) Error() string { return e.Err.Error() }
func (e *ShardError) Unwrap() error { return e.Err }

// TablesError is an error reading the tables of earlier scans that is
// not the user's (a table that does not decode).
type TablesError struct{ Err error }

func (e *TablesError) Error() string { return e.Err.Error() }
func (e *TablesError) Unwrap() error { return e.Err }

// The options of a scan that the errors about its tables name by their
// meaning; the command line says them as its flags.
const (
	OptionRecords       = "the records table"
	OptionMatch         = "fingerprinted parts"
	OptionIgnoreHeaders = "ignored headers"
)

// FingerprintMeta records how records.fingerprint was computed. Probe is
// the fingerprint of an empty record (null key and value, no headers):
// tables whose probes differ were fingerprinted by different hash
// functions (ksleuth versions) and cannot be compared.
type FingerprintMeta struct {
	Match         string   `json:"match"`
	IgnoreHeaders []string `json:"ignore_headers"`
	Probe         string   `json:"probe"`
}

// NewFingerprintMeta normalises --match and --ignore-header (already
// validated): parts in key,value,headers order, header names sorted and
// dropped when headers are not matched.
func NewFingerprintMeta(match string, ignore []string) FingerprintMeta {
	p, _ := dups.ParseMatch(match)
	var names []string
	for _, n := range []struct {
		bit  dups.Parts
		name string
	}{{dups.MatchKey, "key"}, {dups.MatchValue, "value"}, {dups.MatchHeaders, "headers"}} {
		if p&n.bit != 0 {
			names = append(names, n.name)
		}
	}
	ig := []string{}
	if p&dups.MatchHeaders != 0 {
		ig = append(ig, ignore...)
		slices.Sort(ig)
		ig = slices.Compact(ig)
	}
	return FingerprintMeta{Match: strings.Join(names, ","), IgnoreHeaders: ig, Probe: analysis.NewFingerprinter().Sum(nil, nil, 0, nil)}
}

// tableRecord is the part of a records row duplicate detection reads;
// the other columns (and the payload) are never decoded.
type tableRecord struct {
	Input         int32  `parquet:"input"`
	Topic         string `parquet:"topic"`
	Partition     int32  `parquet:"partition"`
	Dir           string `parquet:"dir"`
	Segment       string `parquet:"segment"`
	BatchPosition int64  `parquet:"batch_position"`
	Offset        int64  `parquet:"offset"`
	Timestamp     *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)"`
	ProducerID    int64  `parquet:"producer_id"`
	ProducerEpoch int32  `parquet:"producer_epoch"`
	Sequence      int32  `parquet:"sequence"`
	Fingerprint   string `parquet:"fingerprint"`
	TxnState      string `parquet:"txn_state"`
	IsControl     bool   `parquet:"is_control"`
	Damaged       bool   `parquet:"damaged"`
}

// shard is the output dir of one earlier scan.
type Shard struct {
	dir     string
	sources []string
	fp      FingerprintMeta
	parts   []string // records part files, sorted
	offset  int32    // index of its first input among all shards' inputs
}

// openShard checks that dir holds the complete tables of a scan run with
// --records, and reads their metadata.
func OpenShard(dir string) (*Shard, error) {
	files := filepath.Join(dir, export.Files)
	if _, err := os.Stat(files); err != nil {
		return nil, &ShardError{fmt.Errorf("%s has no %s: not the output of a completed ksleuth scan", dir, export.Files)}
	}
	recDir := filepath.Join(dir, export.Records)
	if fi, err := os.Stat(recDir); err != nil || !fi.IsDir() {
		if _, err := os.Stat(filepath.Join(dir, export.RecordsV1)); err == nil {
			return nil, &ShardError{fmt.Errorf("%s holds %s from an older ksleuth; rescan with this version and "+OptionRecords, dir, export.RecordsV1)}
		}
		return nil, &ShardError{fmt.Errorf("%s has no records table; run ksleuth scan with "+OptionRecords, dir)}
	}
	s := &Shard{dir: dir}
	err := filepath.WalkDir(recDir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".parquet") && !strings.HasPrefix(e.Name(), ".") {
			s.parts = append(s.parts, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(s.parts)
	kv, err := export.ReadMetadata(files)
	if err != nil {
		return nil, err
	}
	src, ok1 := kv[export.MetaSources]
	fp, ok2 := kv[export.MetaFingerprint]
	if !ok1 || !ok2 {
		return nil, &ShardError{fmt.Errorf("%s was written by an older ksleuth (no %s metadata); rescan with this version", dir, export.MetaFingerprint)}
	}
	if err := json.Unmarshal([]byte(src), &s.sources); err != nil {
		return nil, &TablesError{fmt.Errorf("%s: %s metadata: %w", files, export.MetaSources, err)}
	}
	if err := json.Unmarshal([]byte(fp), &s.fp); err != nil {
		return nil, &TablesError{fmt.Errorf("%s: %s metadata: %w", files, export.MetaFingerprint, err)}
	}
	return s, nil
}

func describeFP(m FingerprintMeta) string {
	ig := "none"
	if len(m.IgnoreHeaders) > 0 {
		ig = strings.Join(m.IgnoreHeaders, ",")
	}
	return fmt.Sprintf("%s %s, %s %s", OptionMatch, m.Match, OptionIgnoreHeaders, ig)
}

// addShard adds the data records of one shard's records table: by
// columns (fromcolumns.go), or row by row for a part file of another
// layout.
func addShard(ctx context.Context, det *dups.Detector, s *Shard, topic *regexp.Regexp) error {
	f := newShardFeed(det, s, topic)
	for _, p := range s.parts {
		done, err := f.part(ctx, p)
		if err != nil {
			return err
		}
		if !done {
			if err := addPartRows(ctx, f, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// addPartRows adds the records of one part file row by row.
func addPartRows(ctx context.Context, f *shardFeed, p string) error {
	s, det, topic := f.s, f.det, f.topic
	return export.EachRow(ctx, p, func(r *tableRecord) error {
		if r.IsControl || topic != nil && !topic.MatchString(r.Topic) {
			return nil
		}
		if r.Input < 0 || int(r.Input) >= len(s.sources) {
			return &TablesError{fmt.Errorf("%s: input %d, but the scan had %d input(s)", p, r.Input, len(s.sources))}
		}
		k := partKey{r.Input, r.Dir}
		id, ok := f.ids[k]
		if !ok {
			id = det.Partition(s.offset+r.Input, s.sources[r.Input], r.Topic, r.Partition, r.Dir)
			f.ids[k] = id
		}
		fp, err := dups.ParseFingerprint(r.Fingerprint)
		if err != nil {
			return &TablesError{fmt.Errorf("%s: %w", p, err)}
		}
		rec := dups.Record{Part: id, Offset: r.Offset, Timestamp: -1, ProducerID: r.ProducerID, Epoch: int16(r.ProducerEpoch),
			Sequence: r.Sequence, Txn: analysis.ParseTxnState(r.TxnState), Damaged: r.Damaged, Fingerprint: fp, HasBatch: true}
		rec.BatchStart = f.batch.of(r.Input, r.Segment, r.BatchPosition, r.Offset)
		if r.Timestamp != nil {
			rec.Timestamp = *r.Timestamp
		}
		return det.Add(&rec)
	})
}

// tablesHeap is the soft limit of the Go heap in dups --from-tables: the
// pages of the tables being read (about 10 MiB), the spill files' buffers,
// the groups being reported, and the collector's headroom. Measured at
// 10^7 records, the heap peaks at about 80 MiB unlimited and runs within
// 64 MiB when held to it, for 2 % more CPU (docs/performance.md, "The
// duplicate join at scale").
const tablesHeap = 64 << 20

// tablesProcess is what the process holds outside the Go heap and the
// detector's entries: the binary's pages, goroutine stacks and the
// runtime's own structures. Without it a 10^8-record join at 1 GiB peaked
// at 1,030 MiB, its entries and heap filling the budget exactly.
const tablesProcess = 32 << 20

// TablesBudget splits the memory budget of dups --from-tables, a process
// that does nothing but the join, so that the process as a whole stays
// within it: entries for the detector, and heap, the soft limit for the Go
// heap (runtime/debug.SetMemoryLimit; 0 leaves it unlimited); what is left
// is the process's own. Budgets below twice the reserve go to the entries
// whole: a smaller heap limit would keep the collector running.
func TablesBudget(mem int64) (entries, heap int64) {
	if mem <= 0 {
		mem = dups.DefaultMemBudget
	}
	if mem < 2*(tablesHeap+tablesProcess) {
		return mem, 0
	}
	return mem - tablesHeap - tablesProcess, tablesHeap
}

// NewTablesDetector is the detector of dups --from-tables, with the budget
// split by TablesBudget and the Go heap held to its share until done,
// which also closes the detector.
func NewTablesDetector(opts dups.Options) (det *dups.Detector, done func(), err error) {
	var heap int64
	opts.MemBudget, heap = TablesBudget(opts.MemBudget)
	if det, err = dups.New(opts); err != nil {
		return nil, nil, err
	}
	restore := holdHeapTo(heap)
	return det, func() { det.Close(); restore() }, nil
}

// OpenShards opens the output dirs of earlier scans to merge their records
// tables: they must come from one hash function and one choice of
// fingerprinted parts, and no input may be in two of them. want, when the
// command line names the parts, must be what the scans used. It returns
// the shards, numbered one after another, and their inputs in all.
func OpenShards(dirs []string, want *FingerprintMeta) ([]*Shard, int32, error) {
	var shards []*Shard
	seen := map[string]string{}
	var inputs int32
	for _, dir := range dirs {
		s, err := OpenShard(dir)
		if err != nil {
			return nil, 0, err
		}
		if len(shards) > 0 && s.fp.Probe != shards[0].fp.Probe {
			return nil, 0, &ShardError{fmt.Errorf("%s and %s were fingerprinted by different ksleuth versions (different hash functions); "+
				"scan all shards with one version", shards[0].dir, dir)}
		}
		if len(shards) > 0 && describeFP(s.fp) != describeFP(shards[0].fp) {
			return nil, 0, &ShardError{fmt.Errorf("%s was scanned with %s but %s with %s; scan all shards with the same "+OptionMatch+" and "+OptionIgnoreHeaders,
				shards[0].dir, describeFP(shards[0].fp), dir, describeFP(s.fp))}
		}
		for _, src := range s.sources {
			if prev, ok := seen[src]; ok {
				return nil, 0, &ShardError{fmt.Errorf("input %q appears in both %s and %s; the same input scanned twice, "+
					"or two inputs with one name (give each shard's inputs distinct paths)", src, prev, dir)}
			}
			seen[src] = dir
		}
		s.offset = inputs
		inputs += int32(len(s.sources))
		shards = append(shards, s)
	}
	if want != nil && len(shards) > 0 {
		w := *want
		w.Probe = shards[0].fp.Probe
		if describeFP(w) != describeFP(shards[0].fp) {
			return nil, 0, &ShardError{fmt.Errorf("%s differs from the scans' %s: the fingerprints in the records tables were computed at scan time; "+
				"drop the options, or rescan with them",
				describeFP(w), describeFP(shards[0].fp))}
		}
	}
	return shards, inputs, nil
}

// FeedShards adds the data records of every shard to det, and the groups'
// records (SetConsumers), and counts the findings of severity error or
// warning and the unreadable files their tables list.
func FeedShards(ctx context.Context, det *dups.Detector, shards []*Shard, topic *regexp.Regexp) (findings, unreadable int64, err error) {
	// The tables' footers say how many entries the detector will hold:
	// its buffer is sized once instead of doubled and copied.
	var rows int64
	for _, s := range shards {
		for _, p := range s.parts {
			n, err := export.RowCount(p)
			if err != nil {
				return 0, 0, err
			}
			rows += n
		}
	}
	det.Reserve(int(min(rows, 1<<30)))
	for _, s := range shards {
		if err := addShard(ctx, det, s, topic); err != nil {
			return 0, 0, err
		}
		err := export.EachRow(ctx, filepath.Join(s.dir, export.Files), func(r *struct {
			Status string `parquet:"status"`
		}) error {
			if r.Status == "unreadable" {
				unreadable++
			}
			return nil
		})
		if err != nil {
			return 0, 0, err
		}
		err = export.EachRow(ctx, filepath.Join(s.dir, export.Anomalies), func(r *struct {
			Severity finding.Severity `parquet:"severity"`
			// A row that says how many findings were not listed counts
			// as that many, all of its severity; null (0) for the others.
			Omitted int64 `parquet:"omitted,optional"`
		}) error {
			if finding.Counts(r.Severity) {
				findings += max(r.Omitted, 1)
			}
			return nil
		})
		if err != nil {
			return 0, 0, err
		}
	}
	return findings, unreadable, setShardConsumers(ctx, det, shards)
}

// ShardCommits reads the commits.parquet of every shard that has one
// (scans before it have none) into one commit index, for the consumed_by
// of the merged duplicates.
func ShardCommits(ctx context.Context, shards []*Shard) (Consumed, error) {
	var rows []analysis.CommitRow
	for _, s := range shards {
		path := filepath.Join(s.dir, export.Commits)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		err := export.EachRow(ctx, path, func(r *analysis.CommitRow) error {
			c := *r
			c.Input += s.offset
			rows = append(rows, c)
			return nil
		})
		if err != nil {
			return Consumed{}, err
		}
	}
	return Consumed{consumers.NewIndex(rows, nil)}, nil
}
