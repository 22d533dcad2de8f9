package export

import (
	"fmt"
	"os"
	"path/filepath"
)

// The tables of a scan's output dir.
const (
	Files        = "files.parquet"
	Batches      = "batches.parquet"
	Records      = "records" // a dataset dir of files by topic
	Anomalies    = "anomalies.parquet"
	Gaps         = "gaps.parquet"
	Snapshots    = "snapshots.parquet"
	Producers    = "producers.parquet"
	Duplicates   = "duplicates.parquet"
	Transactions = "transactions.parquet"
	PIDBlocks    = "pid_blocks.parquet"
	Replicas     = "replicas.parquet"
	Events       = "cluster_events.parquet"
	// PartitionTxns holds the transactions per partition (package producer).
	PartitionTxns = "partition_txns.parquet"
	// Commits and Groups hold the offset commits and the classic groups'
	// metadata of __consumer_offsets (package consumers).
	Commits = "commits.parquet"
	Groups  = "groups.parquet"
	// RemoteSegments holds the segments of tiered topics that
	// __remote_log_metadata names.
	RemoteSegments = "remote_segments.parquet"
	// RecordsV1 is where records were written before they became a
	// dataset; listed so --force clears it.
	RecordsV1 = "records.parquet"
)

// Tables lists every table a scan may write: an output dir holding any
// of them is replaced only with --force, and one holding anything else
// (but the manifest) not at all.
var Tables = []string{Files, Batches, Records, RecordsV1, Anomalies, Gaps, Snapshots, Producers, Duplicates, Transactions, PIDBlocks, Replicas, Events, PartitionTxns, Commits, Groups, RemoteSegments}

// Footer metadata keys that dups --from-tables reads back.
const (
	MetaSources     = "ksleuth.sources"     // JSON array: the source of each input, by index
	MetaFingerprint = "ksleuth.fingerprint" // JSON: how records.fingerprint was computed
)

// NewSet starts the table set of one run into the output dir out: the
// tables are written into out's staging dir, which Commit puts in place
// of the previous set. The run id goes into every footer.
func NewSet(out *Out, version string, meta *Metadata) *Set {
	meta.Set(MetaRunID, out.RunID)
	return &Set{out: out, dir: out.stageDir(), version: version, meta: meta}
}

// Err is the first error opening the set's tables.
func (ts *Set) Err() error { return ts.err }

// Names lists the tables opened, in order.
func (ts *Set) Names() []string { return ts.names }

// Rows is how many rows were written to a table.
func (ts *Set) Rows(name string) int64 { return ts.rows[name] }

// Set owns the sinks of one run: all are committed together, or all
// removed.
type Set struct {
	out     *Out
	dir     string // the staging dir
	version string
	meta    *Metadata
	err     error
	names   []string
	closers []func() error
	aborts  []func()
	files   []func() []ManifestFile // each table's files, once closed
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
	ts.register(name, s.Close, s.Abort, func() []ManifestFile {
		var sum fileSum
		if fs, ok := any(s).(interface{ fileSum() fileSum }); ok {
			sum = fs.fileSum()
		}
		return []ManifestFile{{Path: name, Rows: ts.rows[name], Bytes: sum.bytes, SHA256: sum.sha256}}
	})
	return t
}

// register adds an opened table to the set: committed by Commit, removed
// by Abort.
func (ts *Set) register(name string, close func() error, abort func(), files func() []ManifestFile) {
	if ts.rows == nil {
		ts.rows = map[string]int64{}
	}
	ts.rows[name] = 0
	ts.names = append(ts.names, name)
	ts.closers = append(ts.closers, close)
	ts.aborts = append(ts.aborts, abort)
	ts.files = append(ts.files, files)
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

// DatasetTable is a table written as a dataset dir of files by topic
// (Dataset).
type DatasetTable[T any] struct {
	ts    *Set
	name  string
	ds    *Dataset[T]
	topic func(*T) string
}

// OpenDataset opens a records-like table written as a dataset dir, the
// rows of each topic (named by topic) in files of their own.
func OpenDataset[T any](ts *Set, name string, topic func(*T) string) *DatasetTable[T] {
	d := &DatasetTable[T]{ts: ts, name: name, topic: topic}
	if ts.err != nil {
		return d
	}
	ds, err := NewDataset[T](filepath.Join(ts.dir, name), ts.version, ts.meta, DatasetLimits{})
	if err != nil {
		ts.err = err
		return d
	}
	d.ds = ds
	ts.register(name, ds.Close, ds.Abort, func() []ManifestFile {
		files := make([]ManifestFile, len(ds.files))
		for i, f := range ds.files {
			f.Path = name + "/" + f.Path
			files[i] = f
		}
		return files
	})
	return d
}

// Write hands each run of rows of one topic to its file, in slices of at
// most 1024.
func (d *DatasetTable[T]) Write(rows []T) error {
	for len(rows) > 0 {
		t := d.topic(&rows[0])
		n := 1
		for n < len(rows) && n < 1024 && d.topic(&rows[n]) == t {
			n++
		}
		if err := d.ds.Write(t, rows[:n]); err != nil {
			return err
		}
		d.ts.rows[d.name] += int64(n)
		rows = rows[n:]
	}
	return nil
}

// Has reports whether the run writes the table name.
func (ts *Set) Has(name string) bool {
	_, ok := ts.rows[name]
	return ok
}

// Commit completes every table in the staging dir, writes the manifest
// last, and puts the set in place of the output dir's previous set in one
// step (see Out). On failure the staging dir is removed and the previous
// set stays.
func (ts *Set) Commit() error {
	if ts.err != nil {
		return ts.err
	}
	m := &SetManifest{Type: "manifest", RunID: ts.out.RunID, Version: ts.version}
	for i, name := range ts.names {
		if err := ts.closers[i](); err != nil {
			return err
		}
		m.Tables = append(m.Tables, ManifestTable{Name: name, Rows: ts.rows[name], Files: ts.files[i]()})
	}
	if err := writeManifest(ts.dir, m); err != nil {
		return err
	}
	if err := ts.out.replaceWith(ts.dir); err != nil {
		return fmt.Errorf("export: %s: %w", ts.out.Dir, err)
	}
	ts.done = true
	return nil
}

// Abort removes the staging dir with every unfinished table; a no-op
// after Commit.
func (ts *Set) Abort() {
	if ts.done {
		return
	}
	ts.done = true
	for _, a := range ts.aborts {
		a()
	}
	os.RemoveAll(ts.dir)
}
