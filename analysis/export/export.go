// Package export writes rows of package analysis to files: Parquet (the
// tables of `ksleuth scan --out`) and JSON lines. It keeps parquet-go out of
// every parser's imports.
//
// Every file is written under a temporary name in its directory and renamed
// to its final name only by a successful Close, so an interrupted or failed
// run never leaves a file that looks complete; Abort removes the temporary
// file.
//
// Files are not synced to disk (no fsync): the tables are derived from
// inputs that are never modified, and a table set (Set) is published by
// renaming its whole dir, so a process killed at any moment leaves the old
// set or the new one. Only a crash of the system itself within the
// kernel's writeback delay can leave a published set whose files are cut
// short, which its manifest detects (CheckSet) and a new scan replaces.
// Syncing a scan's 16 files and their dirs would be the largest part of
// the CPU it spends whatever its input's size (docs/performance.md).
package export

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Sink receives the rows of one table.
type Sink[T any] interface {
	// Write appends rows. The sink does not keep the slice.
	Write(rows []T) error
	// Close completes the file and gives it its final name.
	Close() error
	// Abort removes the unfinished file. It is a no-op after Close.
	Abort()
}

// MaxRowsPerRowGroup caps a row group so readers can work on part of a
// table at a time (parquet-go's default is unlimited).
const MaxRowsPerRowGroup = 1 << 20

// RecordsRowGroupRows caps the row groups of the records dataset lower:
// engines skip whole row groups by their statistics and bloom filters, so
// a time-range or fingerprint query reads a fraction of a part, and a
// scan buffers less of each open part (docs/tables.md "Pruning").
const RecordsRowGroupRows = 32 << 10

// Metadata is the key-value metadata stored in each Parquet file footer.
// Values that are only known at the end of a run (the end time) can be
// added with Set before Close.
type Metadata struct {
	kv [][2]string
}

// Set adds or replaces a key.
func (m *Metadata) Set(k, v string) {
	for i := range m.kv {
		if m.kv[i][0] == k {
			m.kv[i][1] = v
			return
		}
	}
	m.kv = append(m.kv, [2]string{k, v})
}

// Pairs returns the key-value pairs in the order they were first set.
func (m *Metadata) Pairs() [][2]string { return m.kv }

// tmpFile is a table's file under its temporary name. It hashes what is
// written, so the manifest's checksums cost no second read of the tables.
type tmpFile struct {
	f *os.File
	h hash.Hash
	n int64
}

func (t *tmpFile) Write(p []byte) (int, error) {
	n, err := t.f.Write(p)
	t.h.Write(p[:n])
	t.n += int64(n)
	return n, err
}

func (t *tmpFile) Name() string { return t.f.Name() }
func (t *tmpFile) Close() error { return t.f.Close() }

// fileSum is the size and SHA-256 (hex) of a completed file.
type fileSum struct {
	bytes  int64
	sha256 string
}

func (t *tmpFile) sum() fileSum { return fileSum{t.n, hex.EncodeToString(t.h.Sum(nil))} }

// tempFile creates a hidden temporary file beside final.
func tempFile(final string) (*tmpFile, error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".tmp-"+hex.EncodeToString(b[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &tmpFile{f: f, h: sha256.New()}, nil
}

// ParquetSink writes a Parquet file of rows of type T. Its parquet-go
// writer is set up by the first row: a table that gets none is written
// from its schema alone (emptyFile), the same bytes at a fraction of the
// cost.
type ParquetSink[T any] struct {
	final string
	f     *tmpFile
	bw    *bufio.Writer
	w     *parquet.GenericWriter[T] // nil until the first row
	opts  []parquet.WriterOption
	meta  *Metadata
	// version goes into the pandas key's creator.
	version string
	done    bool
}

// zstdCodec is shared by every table: the codec keeps a pool of encoders,
// and one encoder per table and scan (each allocating its match tables)
// was a fixed cost that showed on small scans. The fastest level: once the
// per-record work of a scan shrank, the default level's encoding of the
// batches table was about a sixth of an uncompressed scan's CPU; the
// fastest takes half of that for tables about 7 % larger.
var zstdCodec = &zstd.Codec{Level: zstd.SpeedFastest}

// The bloom filter on fingerprint columns: 10 bits per value give about
// 1 % false positives, for about 1.3 bytes per record.
const (
	fingerprintColumn = "fingerprint"
	bloomBitsPerValue = 10
)

// payloadColumns are the paths of record keys, values, header values and
// decoded values.
var payloadColumns = [][]string{{"key"}, {"value"}, {"headers", "list", "element", "key"}, {"headers", "list", "element", "value"}, {"value_decoded"}}

// NewParquet starts writing path (under a temporary name) with zstd
// compression, capped row groups, CreatedBy "ksleuth <version>", and the
// key-value metadata in meta as it is when Close is called.
func NewParquet[T any](path, version string, meta *Metadata) (*ParquetSink[T], error) {
	return newParquet[T](path, version, meta, MaxRowsPerRowGroup)
}

func newParquet[T any](path, version string, meta *Metadata, groupRows int64) (*ParquetSink[T], error) {
	f, err := tempFile(path)
	if err != nil {
		return nil, err
	}
	opts := []parquet.WriterOption{
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(groupRows),
		parquet.CreatedBy("ksleuth", version, ""),
	}
	// Payload columns get no min/max, in the footer or in page headers: a
	// bound is a whole value, and an 8 MB record as a page header's
	// statistics is more than readers such as Arrow's accept; nobody prunes
	// by payload bytes.
	for _, p := range payloadColumns {
		opts = append(opts, parquet.SkipPageBounds(p...), parquet.SkipPageStatistics(p...))
	}
	return &ParquetSink[T]{final: path, f: f, opts: opts, meta: meta, version: version}, nil
}

// hasColumn reports whether schema has a top-level column name. It looks
// at the fields: Schema.Lookup builds a map of every column path first,
// a cost each of a scan's tables would pay.
func hasColumn(schema *parquet.Schema, name string) bool {
	for _, f := range schema.Fields() {
		if f.Name() == name {
			return true
		}
	}
	return false
}

// Write appends rows.
func (s *ParquetSink[T]) Write(rows []T) error {
	if len(rows) == 0 {
		return nil
	}
	if s.w == nil {
		opts := s.opts
		// A fingerprint is random: its min/max prune nothing, and a lookup
		// of one record's copies ("where else was this written?") would
		// read every row group. A split-block bloom filter lets DuckDB and
		// Spark skip the row groups that cannot hold it.
		if hasColumn(parquet.SchemaOf(new(T)), fingerprintColumn) {
			opts = append(opts[:len(opts):len(opts)], parquet.BloomFilters(parquet.SplitBlockFilter(bloomBitsPerValue, fingerprintColumn)))
		}
		s.bw = bufio.NewWriterSize(s.f, 64<<10)
		s.w = parquet.NewGenericWriter[T](s.bw, opts...)
	}
	_, err := s.w.Write(rows)
	return err
}

// Close writes the footer (with the metadata) and renames the file to its
// final name. On error the temporary file is removed.
func (s *ParquetSink[T]) Close() error {
	if s.done {
		return nil
	}
	if s.w == nil {
		b, err := emptyFile(parquet.SchemaOf(new(T)), s.version, s.meta)
		if err == nil {
			_, err = s.f.Write(b)
		}
		return finish(&s.done, s.f, nil, s.final, err)
	}
	s.w.SetKeyValueMetadata(MetaPandas, pandasMetadata(s.w.Schema(), s.version))
	if s.meta != nil {
		for _, kv := range s.meta.Pairs() {
			s.w.SetKeyValueMetadata(kv[0], kv[1])
		}
	}
	err := s.w.Close()
	return finish(&s.done, s.f, s.bw, s.final, err)
}

// Abort removes the temporary file.
func (s *ParquetSink[T]) Abort() { abort(&s.done, s.f) }

func (s *ParquetSink[T]) fileSum() fileSum { return s.f.sum() }

// finish flushes bw (if any), closes f, and renames it to final; it does
// not sync (see the package's doc).
func finish(done *bool, f *tmpFile, bw *bufio.Writer, final string, err error) error {
	if err == nil && bw != nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	*done = true
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("export: %s: %w", final, err)
	}
	return nil
}

func abort(done *bool, f *tmpFile) {
	if *done {
		return
	}
	*done = true
	f.Close()
	os.Remove(f.Name())
}

// JSONLSink writes one JSON object per row.
type JSONLSink[T any] struct {
	final string
	f     *tmpFile
	bw    *bufio.Writer
	enc   *json.Encoder
	done  bool
}

// NewJSONL starts writing path (under a temporary name).
func NewJSONL[T any](path string) (*JSONLSink[T], error) {
	f, err := tempFile(path)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	return &JSONLSink[T]{final: path, f: f, bw: bw, enc: json.NewEncoder(bw)}, nil
}

// Write appends rows.
func (s *JSONLSink[T]) Write(rows []T) error {
	for i := range rows {
		if err := s.enc.Encode(&rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// Close flushes and renames the file to its final name.
func (s *JSONLSink[T]) Close() error {
	if s.done {
		return nil
	}
	return finish(&s.done, s.f, s.bw, s.final, nil)
}

// Abort removes the temporary file.
func (s *JSONLSink[T]) Abort() { abort(&s.done, s.f) }

// Batched buffers rows and hands them to a sink in slices of about n rows
// (parquet-go writes most efficiently in slices of ~1024).
type Batched[T any] struct {
	Sink Sink[T]
	N    int
	buf  []T
}

// Add appends one row, flushing when the buffer is full.
func (b *Batched[T]) Add(row T) error {
	if b.N <= 0 {
		b.N = 1024
	}
	b.buf = append(b.buf, row)
	if len(b.buf) >= b.N {
		return b.Flush()
	}
	return nil
}

// Flush writes the buffered rows.
func (b *Batched[T]) Flush() error {
	if len(b.buf) == 0 {
		return nil
	}
	err := b.Sink.Write(b.buf)
	clear(b.buf)
	b.buf = b.buf[:0]
	return err
}
