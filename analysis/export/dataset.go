package export

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dataset writes a dataset dir of Parquet files, each holding the rows of
// one topic:
//
//	DIR/NAME/part-<topic>-00000.parquet
//
// The files sit side by side, with no key=value dirs: pandas, pyarrow,
// polars, Spark and DuckDB all read the dir with their defaults, and none
// has a partition key to merge with the topic and partition columns the
// files hold (the key of a hive dir clashes with a column of the same
// name, and a topic named 007 would read back as the number 7). A file
// holds one topic, so its topic statistics let engines skip the files of
// other topics.
//
// Every file is written under a temporary name and renamed when it is
// complete, inside a hidden staging directory (.NAME.tmp-XXXX) that Close
// renames to NAME in one step: the dataset appears whole or not at all.
// A file is closed when it reaches MaxRows rows or MaxBytes bytes, or when
// more than MaxOpen files are open (the least recently written is
// closed); a row group is written out when it holds GroupBytes bytes
// before compression. So the number of files follows the data's size and
// the number of topics, not the number of partitions, and the memory of
// buffered row groups is at most MaxOpen × GroupBytes whatever either is;
// rows of a topic that come back after its file closed go to a new file.
type Dataset[T any] struct {
	final, stage string
	version      string
	meta         *Metadata
	lim          DatasetLimits
	open         []*datasetPart[T] // most recently written last
	next         map[string]int    // file number per topic stem
	parts        int
	files        []ManifestFile // the closed parts, for the manifest
	done         bool
	last         struct{ topic, stem string }
}

type datasetPart[T any] struct {
	stem string
	name string
	sink *ParquetSink[T]
	rows int64
}

// DatasetLimits bound a dataset's files and the memory of its writers; a
// zero field takes its default.
type DatasetLimits struct {
	MaxRows    int64 // rows of a file
	MaxBytes   int64 // bytes of a file (estimated before its last row group is compressed)
	MaxOpen    int   // files open at once
	GroupBytes int64 // bytes of a row group before compression
}

// Dataset defaults: the records of a full file are about 4 GB of topic
// data; four open files buffer at most 64 MiB of row groups.
const (
	DefaultPartRows   = 4 << 20
	DefaultPartBytes  = 128 << 20
	DefaultOpenParts  = 4
	DefaultGroupBytes = 16 << 20
)

func (l DatasetLimits) withDefaults() DatasetLimits {
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultPartRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultPartBytes
	}
	if l.MaxOpen <= 0 {
		l.MaxOpen = DefaultOpenParts
	}
	if l.GroupBytes <= 0 {
		l.GroupBytes = DefaultGroupBytes
	}
	return l
}

// maxStem bounds the topic's part of a file name: a Kafka topic name has
// up to 249 bytes, and escaped up to three times that, past the 255 bytes
// of a file name.
const maxStem = 160

// TopicStem is the topic as it appears in a file name: bytes outside
// [A-Za-z0-9._-] become %XX (Kafka topic names need none; names from
// damaged or hostile inputs may), and a name longer than 160 bytes is cut
// and ends with 16 hex digits of its SHA-256, so that two long names stay
// apart. The topic column holds the name itself.
func TopicStem(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	s := b.String()
	if len(s) > maxStem {
		sum := sha256.Sum256([]byte(v))
		s = s[:maxStem-17] + "~" + hex.EncodeToString(sum[:8])
	}
	return s
}

// NewDataset starts a dataset dir (which must not exist yet when Close
// renames the staging dir to it).
func NewDataset[T any](dir, version string, meta *Metadata, lim DatasetLimits) (*Dataset[T], error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	stage := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(stage, 0o755); err != nil {
		return nil, err
	}
	return &Dataset[T]{final: dir, stage: stage, version: version, meta: meta, lim: lim.withDefaults(), next: map[string]int{}}, nil
}

// Write appends rows of topic to its file.
func (d *Dataset[T]) Write(topic string, rows []T) error {
	if d.last.stem == "" || d.last.topic != topic {
		d.last.topic, d.last.stem = topic, TopicStem(topic)
	}
	for len(rows) > 0 {
		p, err := d.part(d.last.stem)
		if err != nil {
			return err
		}
		n := min(int64(len(rows)), d.lim.MaxRows-p.rows)
		if err := p.sink.Write(rows[:n]); err != nil {
			return err
		}
		p.rows += n
		rows = rows[n:]
		if err := d.bound(p); err != nil {
			return err
		}
	}
	return nil
}

// bound closes p, the last written, when it is full, and writes out its
// row group when that holds GroupBytes.
func (d *Dataset[T]) bound(p *datasetPart[T]) error {
	if p.sink.w == nil {
		return nil // no row yet
	}
	size, flushed := p.sink.w.Size(), p.sink.f.n+int64(p.sink.bw.Buffered())
	if p.rows >= d.lim.MaxRows || size >= d.lim.MaxBytes {
		return d.closePart(len(d.open) - 1)
	}
	if size-flushed >= d.lim.GroupBytes {
		return p.sink.w.Flush()
	}
	return nil
}

// part returns the open file of stem, moved to the end of d.open.
func (d *Dataset[T]) part(stem string) (*datasetPart[T], error) {
	if k := len(d.open); k > 0 && d.open[k-1].stem == stem {
		return d.open[k-1], nil
	}
	for i, p := range d.open {
		if p.stem == stem {
			copy(d.open[i:], d.open[i+1:])
			d.open[len(d.open)-1] = p
			return p, nil
		}
	}
	if len(d.open) >= d.lim.MaxOpen {
		if err := d.closePart(0); err != nil {
			return nil, err
		}
	}
	n := d.next[stem]
	d.next[stem] = n + 1
	name := fmt.Sprintf("part-%s-%05d.parquet", stem, n)
	s, err := newParquet[T](filepath.Join(d.stage, name), d.version, d.meta, RecordsRowGroupRows)
	if err != nil {
		return nil, err
	}
	p := &datasetPart[T]{stem: stem, name: name, sink: s}
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
	d.files = append(d.files, ManifestFile{Path: p.name, Rows: p.rows, Bytes: sum.bytes, SHA256: sum.sha256})
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
