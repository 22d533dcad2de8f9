package export

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The tables of a scan's output dir.
const (
	Files        = "files.parquet"
	Batches      = "batches.parquet"
	Records      = "records" // a Hive-partitioned dataset dir
	Anomalies    = "anomalies.parquet"
	Gaps         = "gaps.parquet"
	Snapshots    = "snapshots.parquet"
	Producers    = "producers.parquet"
	Duplicates   = "duplicates.parquet"
	Transactions = "transactions.parquet"
	PIDBlocks    = "pid_blocks.parquet"
	Replicas     = "replicas.parquet"
	Events       = "cluster_events.parquet"
	// PartitionTxns holds the transactions per partition (package txns).
	PartitionTxns = "partition_txns.parquet"
	// RecordsV1 is where records were written before they became a
	// dataset; listed so --force clears it.
	RecordsV1 = "records.parquet"
)

// Tables lists every table a scan may write: a scan refuses to overwrite
// them without --force, and --force clears those the new run does not
// write.
var Tables = []string{Files, Batches, Records, RecordsV1, Anomalies, Gaps, Snapshots, Producers, Duplicates, Transactions, PIDBlocks, Replicas, Events, PartitionTxns}

// Footer metadata keys that dups --from-tables reads back.
const (
	MetaSources     = "ksleuth.sources"     // JSON array: the source of each input, by index
	MetaFingerprint = "ksleuth.fingerprint" // JSON: how records.fingerprint was computed
)

// NewSet starts the table set of one run in dir.
func NewSet(dir, version string, meta *Metadata) *Set {
	return &Set{dir: dir, version: version, meta: meta}
}

// Err is the first error opening the set's tables.
func (ts *Set) Err() error { return ts.err }

// Names lists the tables opened, in order.
func (ts *Set) Names() []string { return ts.names }

// Rows is how many rows were written to a table.
func (ts *Set) Rows(name string) int64 { return ts.rows[name] }

// ClearStale removes the tables of an earlier run in the set's dir that
// this run does not write (scan --force), and any earlier records
// dataset, which a rename cannot replace.
func (ts *Set) ClearStale() error {
	for _, name := range Tables {
		switch {
		case name == Records:
			if err := RemoveDataset(filepath.Join(ts.dir, name)); err != nil {
				return err
			}
		case !ts.Has(name):
			if err := os.Remove(filepath.Join(ts.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// Set owns the sinks of one run: all are committed together, or all
// removed.
type Set struct {
	dir     string
	version string
	meta    *Metadata
	err     error
	names   []string
	closers []func() error
	aborts  []func()
	rows    map[string]int64
	done    bool
}

// Table is one table of a Set.
type Table[T any] struct {
	ts   *Set
	name string
	sink Sink[T]
}

// OpenTable opens a table written by parquet-go's generic writer.
func OpenTable[T any](ts *Set, name string) *Table[T] {
	return OpenTableWith(ts, name, NewParquet[T])
}

// OpenTableWith opens a table written by the sink open returns.
func OpenTableWith[T any, S Sink[T]](ts *Set, name string, open func(path, version string, meta *Metadata) (S, error)) *Table[T] {
	t := &Table[T]{ts: ts, name: name}
	if ts.err != nil {
		return t
	}
	s, err := open(filepath.Join(ts.dir, name), ts.version, ts.meta)
	if err != nil {
		ts.err = err
		return t
	}
	t.sink = s
	ts.register(name, s.Close, s.Abort)
	return t
}

// register adds an opened table to the set: committed by Commit, removed
// by Abort.
func (ts *Set) register(name string, close func() error, abort func()) {
	if ts.rows == nil {
		ts.rows = map[string]int64{}
	}
	ts.rows[name] = 0
	ts.names = append(ts.names, name)
	ts.closers = append(ts.closers, close)
	ts.aborts = append(ts.aborts, abort)
}

// Write hands rows to the sink in slices of at most 1024.
func (t *Table[T]) Write(rows []T) error {
	for len(rows) > 0 {
		n := min(len(rows), 1024)
		if err := t.sink.Write(rows[:n]); err != nil {
			return err
		}
		t.ts.rows[t.name] += int64(n)
		rows = rows[n:]
	}
	return nil
}

// DatasetTable is a table written as a Hive-partitioned dataset dir, with
// topic and partition as the partition columns.
type DatasetTable[T any] struct {
	ts   *Set
	name string
	ds   *Dataset[T]
	key  func(*T) (string, int32)
	last struct {
		topic string
		part  int32
		dir   string
	}
}

// OpenDataset opens a records-like table written as a Hive-partitioned
// dataset dir, with topic and partition (key) as the partition columns.
func OpenDataset[T any](ts *Set, name string, key func(*T) (string, int32)) *DatasetTable[T] {
	d := &DatasetTable[T]{ts: ts, name: name, key: key}
	if ts.err != nil {
		return d
	}
	ds, err := NewDataset[T](filepath.Join(ts.dir, name), ts.version, ts.meta, 0, 0)
	if err != nil {
		ts.err = err
		return d
	}
	d.ds = ds
	ts.register(name, ds.Close, ds.Abort)
	return d
}

// Write hands each run of rows of one topic-partition to its part, in
// slices of at most 1024.
func (d *DatasetTable[T]) Write(rows []T) error {
	for len(rows) > 0 {
		t, p := d.key(&rows[0])
		n := 1
		for n < len(rows) && n < 1024 {
			t2, p2 := d.key(&rows[n])
			if t2 != t || p2 != p {
				break
			}
			n++
		}
		if d.last.dir == "" || d.last.topic != t || d.last.part != p {
			d.last.topic, d.last.part = t, p
			d.last.dir = "topic=" + PartitionValue(t) + "/partition=" + strconv.Itoa(int(p))
		}
		if err := d.ds.Write(d.last.dir, rows[:n]); err != nil {
			return err
		}
		d.ts.rows[d.name] += int64(n)
		rows = rows[n:]
	}
	return nil
}

// RemoveDataset removes a records dataset dir left by an earlier scan
// (--force), refusing anything that does not look like one.
func RemoveDataset(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return os.Remove(dir)
	}
	err = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".parquet") {
			return fmt.Errorf("--force: %s is not a ksleuth table; not removing %s", p, dir)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// Has reports whether the run writes the table name.
func (ts *Set) Has(name string) bool {
	_, ok := ts.rows[name]
	return ok
}

// Commit closes every sink, files.parquet last, so that its presence
// means the run completed. On failure the tables already renamed are
// removed again.
func (ts *Set) Commit() error {
	order := make([]int, 0, len(ts.names))
	for i, n := range ts.names {
		if n != Files {
			order = append(order, i)
		}
	}
	for i, n := range ts.names {
		if n == Files {
			order = append(order, i)
		}
	}
	for k, i := range order {
		if err := ts.closers[i](); err != nil {
			for _, j := range order[:k] {
				os.Remove(filepath.Join(ts.dir, ts.names[j]))
			}
			return err
		}
	}
	ts.done = true
	return nil
}

// Abort removes every unfinished table; a no-op after Commit.
func (ts *Set) Abort() {
	if ts.done {
		return
	}
	for _, a := range ts.aborts {
		a()
	}
}
