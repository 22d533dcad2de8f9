package export

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dataset writes a Hive-partitioned Parquet dataset:
//
//	DIR/NAME/topic=<t>/partition=<p>/part-00000.parquet
//
// so that engines (DuckDB, Spark, Trino) prune by the partition columns.
// The partition values stay in the files as ordinary columns too.
//
// Every part is written under a temporary name and renamed when it is
// complete, inside a hidden staging directory (.NAME.tmp-XXXX) that Close
// renames to NAME in one step: the dataset appears whole or not at all.
// A part is closed when it reaches MaxRows rows, or when more than
// MaxOpen parts are open (the least recently written is closed), so both
// the file sizes and the memory of buffered row groups are bounded;
// rows of a partition that come back later go to a new part.
type Dataset[T any] struct {
	final, stage string
	version      string
	meta         *Metadata
	maxRows      int64
	maxOpen      int
	open         []*datasetPart[T] // most recently written last
	next         map[string]int    // part number per partition dir
	parts        int
	files        []ManifestFile // the closed parts, for the manifest
	done         bool
}

type datasetPart[T any] struct {
	dir  string
	name string
	sink *ParquetSink[T]
	rows int64
}

// Dataset limits.
const (
	// DefaultPartRows bounds a part to about 50-100 MB of a records table.
	DefaultPartRows = 4 << 20
	// DefaultOpenParts bounds the row groups buffered at once.
	DefaultOpenParts = 4
)

// PartitionValue escapes a value for a key=value directory name the way
// Hive does: bytes outside [A-Za-z0-9._-] become %XX (Kafka topic names
// need none; names from damaged or hostile inputs may).
func PartitionValue(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	switch s := b.String(); s {
	case "":
		return "__HIVE_DEFAULT_PARTITION__"
	case ".", "..":
		return strings.ReplaceAll(s, ".", "%2E")
	default:
		return s
	}
}

// NewDataset starts a dataset dir (which must not exist yet when Close
// renames the staging dir to it). maxRows <= 0 means DefaultPartRows,
// maxOpen <= 0 DefaultOpenParts.
func NewDataset[T any](dir, version string, meta *Metadata, maxRows int64, maxOpen int) (*Dataset[T], error) {
	if maxRows <= 0 {
		maxRows = DefaultPartRows
	}
	if maxOpen <= 0 {
		maxOpen = DefaultOpenParts
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	stage := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(stage, 0o755); err != nil {
		return nil, err
	}
	return &Dataset[T]{final: dir, stage: stage, version: version, meta: meta, maxRows: maxRows, maxOpen: maxOpen, next: map[string]int{}}, nil
}

// Write appends rows to the partition dir named by the key=value pairs
// (already escaped with PartitionValue), e.g. "topic=orders/partition=3".
func (d *Dataset[T]) Write(partDir string, rows []T) error {
	for len(rows) > 0 {
		p, err := d.part(partDir)
		if err != nil {
			return err
		}
		n := min(int64(len(rows)), d.maxRows-p.rows)
		if err := p.sink.Write(rows[:n]); err != nil {
			return err
		}
		p.rows += n
		rows = rows[n:]
		if p.rows >= d.maxRows {
			if err := d.closePart(len(d.open) - 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// part returns the open part of partDir, moved to the end of d.open.
func (d *Dataset[T]) part(partDir string) (*datasetPart[T], error) {
	for i, p := range d.open {
		if p.dir == partDir {
			copy(d.open[i:], d.open[i+1:])
			d.open[len(d.open)-1] = p
			return p, nil
		}
	}
	if len(d.open) >= d.maxOpen {
		if err := d.closePart(0); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(d.stage, filepath.FromSlash(partDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	n := d.next[partDir]
	d.next[partDir] = n + 1
	name := fmt.Sprintf("part-%05d.parquet", n)
	s, err := newParquet[T](filepath.Join(dir, name), d.version, d.meta, RecordsRowGroupRows)
	if err != nil {
		return nil, err
	}
	p := &datasetPart[T]{dir: partDir, name: name, sink: s}
	d.open = append(d.open, p)
	return p, nil
}

func (d *Dataset[T]) closePart(i int) error {
	p := d.open[i]
	d.open = append(d.open[:i], d.open[i+1:]...)
	d.parts++
	if err := p.sink.Close(); err != nil {
		return err
	}
	sum := p.sink.fileSum()
	d.files = append(d.files, ManifestFile{Path: p.dir + "/" + p.name, Rows: p.rows, Bytes: sum.bytes, SHA256: sum.sha256})
	return nil
}

// Parts is the number of part files written so far (closed parts).
func (d *Dataset[T]) Parts() int { return d.parts }

// Close completes the open parts and renames the staging dir to the
// dataset dir. On error everything is removed.
func (d *Dataset[T]) Close() error {
	if d.done {
		return nil
	}
	var err error
	for len(d.open) > 0 && err == nil {
		err = d.closePart(len(d.open) - 1)
	}
	if err == nil {
		err = os.Rename(d.stage, d.final)
	}
	if err != nil {
		d.Abort()
		return fmt.Errorf("export: %s: %w", d.final, err)
	}
	d.done = true
	return nil
}

// Abort removes the staging dir with every part in it. It is a no-op
// after Close.
func (d *Dataset[T]) Abort() {
	if d.done {
		return
	}
	d.done = true
	for _, p := range d.open {
		p.sink.Abort()
	}
	d.open = nil
	os.RemoveAll(d.stage)
}
