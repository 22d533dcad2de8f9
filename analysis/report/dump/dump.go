// Package dump prints Kafka partition files one by one, as kafka-dump-log
// prints them: log segments and KRaft snapshots batch by batch (and record
// by record, with their payloads), indexes and producer snapshots entry by
// entry, and the small state files field by field; or all of it as JSON
// lines. Findings about damaged bytes go to the error stream with their
// position (into the stream with JSON).
package dump

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Options say what a Dumper prints.
type Options struct {
	// Records prints a line per record; Payload adds keys, values and
	// headers (and implies Records).
	Records, Payload bool
	// Encoding is how payload bytes print.
	Encoding payloadenc.Encoding
	// JSON writes JSON lines: one object per batch, record, entry and
	// finding.
	JSON bool
	// DecodeTopics decodes the records of the internal topics and of
	// KRaft snapshots by their schemas; without it they print raw.
	DecodeTopics bool
	// DecodeValues decodes values in the Confluent wire format (with
	// Payload) by the schemas of the _schemas partitions beside the files.
	DecodeValues bool
	// Offsets and Window select the batches that hold such offsets and
	// timestamps, and with Records only such records.
	Offsets records.Range
	Window  records.Window
	// MaxBytes, as kafka-dump-log's --max-bytes, reads only the batches
	// that lie whole in a log file's first MaxBytes bytes (0: all).
	MaxBytes int64
}

// DefaultOptions select everything and decode what can be decoded.
func DefaultOptions() Options {
	return Options{Encoding: payloadenc.Auto, DecodeTopics: true, DecodeValues: true, Offsets: records.All, Window: records.Always}
}

// Dumper prints files one after another to one output.
type Dumper struct {
	o        Options
	out      *bufio.Writer
	errw     io.Writer
	findings int
	// topic is the internal topic of the file being dumped, when its
	// records are decoded (DecodeTopics).
	topic topics.Topic
	// topicName is the topic of the file being dumped, from its partition
	// dir; registry decodes its values (Payload and DecodeValues).
	topicName string
	registry  *payload.Registry
}

// New returns a Dumper that prints to out, and findings to errw (to out
// with JSON). Call Flush when done.
func New(o Options, out, errw io.Writer) *Dumper {
	if o.Payload {
		o.Records = true
	}
	return &Dumper{o: o, out: bufio.NewWriterSize(out, 256<<10), errw: errw}
}

// Flush writes what is buffered; call it before writing to the error
// stream, so that a reader of both sees them in order.
func (d *Dumper) Flush() error { return d.out.Flush() }

// Findings is how many findings that count (not notes) were reported.
func (d *Dumper) Findings() int { return d.findings }

// File prints one file, its kind known from its name. An error is a file
// that could not be read at all; damage inside it is a finding.
func (d *Dumper) File(name string) error {
	// What is not a file is said so before its name is judged.
	switch st, err := os.Stat(name); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file", name)
	case err == nil && st.IsDir():
		return fmt.Errorf("%s: is a directory (dump reads one file; use scan or verify for a dir)", name)
	}
	if k := snapshot.KindOf(filepath.Base(name)); k != snapshot.KindUnknown && k != snapshot.KindLog &&
		k != snapshot.KindKRaftSnapshot && k != snapshot.KindBootstrapCheckpoint {
		return d.dumpState(name, k)
	}
	kind := fileKind(filepath.Base(name))
	switch kind {
	case "log", "kraft-snapshot":
		return d.dumpLog(name, kind)
	}
	return fmt.Errorf("%s: unknown kind of file (not a Kafka partition file by its name)", name)
}

// fileKind detects a file's kind from its name, ignoring the suffixes the
// broker adds to files being deleted, cleaned or swapped in.
func fileKind(base string) string {
	for _, suf := range []string{".deleted", ".cleaned", ".swap"} {
		base = strings.TrimSuffix(base, suf)
	}
	switch {
	case strings.HasSuffix(base, ".log"):
		return "log"
	case strings.HasSuffix(base, ".checkpoint") && base != "bootstrap.checkpoint" && !strings.HasSuffix(base, "-checkpoint"):
		return "kraft-snapshot"
	case base == "bootstrap.checkpoint":
		return "kraft-snapshot"
	}
	return "unknown"
}

// internalTopic is the internal topic whose schema decodes the records of
// file name: any KRaft snapshot is metadata; a segment is judged by its
// partition directory.
func internalTopic(name, kind string) topics.Topic {
	if kind == "kraft-snapshot" {
		return topics.ClusterMetadata
	}
	return topics.TopicOf(filepath.Base(filepath.Dir(absPath(name))))
}

func absPath(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

func offsetFromName(base string) (int64, bool) {
	i := strings.IndexByte(base, '.')
	if i != 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(base[:i], 10, 64)
	return n, err == nil
}

// keepBatch reports whether a batch can hold selected records: its
// offsets meet the range, and its timestamps (first to largest) the
// window.
func (o *Options) keepBatch(b *segment.Batch) bool {
	if b.LastOffset() < o.Offsets.From || b.BaseOffset > o.Offsets.To {
		return false
	}
	if o.Window.IsAlways() {
		return true
	}
	first := b.FirstTimestamp
	if b.HasDeleteHorizon() || b.Magic < 2 {
		first = b.MaxTimestamp // the delete horizon stands in the base timestamp
	}
	return b.MaxTimestamp >= 0 && b.MaxTimestamp >= o.Window.Since && (first < o.Window.Until || b.Magic < 2)
}
