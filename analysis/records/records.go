// Package records finds the records of Kafka log dirs that match a
// selection (topic, partition, key, value, header, offsets, time) and
// hands them over one at a time, in offset order per partition dir, with
// memory bounded by the largest batch.
//
// It reads only what can match: partition dirs are chosen by their names,
// segments by their base offsets and, for a time selection, by the largest
// timestamp their .timeindex holds; inside a segment an intact .index
// gives the byte position to start reading at. An index that is damaged,
// missing or that disagrees with the log is not used: the segment is then
// read from its start, so the records found are the same either way.
package records

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Options select the records. The zero value (with Offsets All, Window
// Always and Partition -1, as New sets them) selects every data record.
type Options struct {
	// Topic keeps the partition dirs whose topic matches.
	Topic *regexp.Regexp
	// Partition keeps one partition number; -1 keeps all.
	Partition int32
	// Key keeps records whose key is exactly these bytes (when HasKey);
	// a null key never matches.
	Key    []byte
	HasKey bool
	// KeyRegex and ValueRegex match anywhere in the key or value bytes (the
	// value's decoded text when DecodeValue decoded it); a null key or
	// value never matches.
	KeyRegex, ValueRegex *regexp.Regexp
	// Header keeps records with a header of that name (when non-empty),
	// and with HasHeaderValue one whose value is exactly HeaderValue.
	Header         string
	HeaderValue    []byte
	HasHeaderValue bool
	// Offsets and Window select by offset (inclusive) and by timestamp
	// (Since inclusive, Until exclusive).
	Offsets Range
	Window  Window
	// Limit stops after that many records (0: no limit).
	Limit int64
	// Control also yields the records of control batches (transaction
	// markers), which no consumer is handed; they are skipped otherwise.
	Control bool
	// NoIndex reads every segment that can match from its start, without
	// the .index and .timeindex files (a check of the pruning, and the
	// choice when the indexes are not trusted at all).
	NoIndex bool
	// DecodeValue, when set, renders a value as people read it (a schema
	// registry payload as JSON, say): text and the name of its encoding,
	// or ok false to keep the raw bytes.
	DecodeValue func(topic string, value []byte) (text []byte, encoding string, ok bool)
	// DescribeValue, when set, says what a value DecodeValue left raw is
	// ("schema id 42, not in the inputs"), or "" when there is nothing to
	// say: the printers put it beside the raw bytes.
	DescribeValue func(topic string, value []byte) string
}

// New returns Options that select everything.
func New() Options {
	return Options{Partition: -1, Offsets: All, Window: Always}
}

// Record is one record found. The byte slices are views valid only
// during the call that hands the record over.
type Record struct {
	Input int32
	// Source names the input (as scan's source column does); File is the
	// segment's path relative to the input root, Position its batch's
	// byte position there.
	Source   string
	File     string
	Position int64
	Topic    string
	// Partition is -1 for a segment outside any partition dir.
	Partition     int32
	Offset        int64
	Timestamp     int64 // -1: none (magic 0)
	TimestampType segment.TimestampType
	ProducerID    int64
	ProducerEpoch int16
	Sequence      int32
	Key, Value    []byte
	Headers       []segment.Header
	IsControl     bool
	ControlType   int16
	// Copy names the copy of the partition the record was read from
	// ("broker 2", or the input) when the inputs hold several copies of
	// it, and is "" when they hold one.
	Copy string
	// CRCValid is false for a record of a batch whose checksum does not
	// hold: its bytes are not verified.
	CRCValid bool
	// Decoded and DecodedEncoding are DecodeValue's rendering of Value.
	Decoded         []byte
	DecodedEncoding string
	// ValueNote is DescribeValue's word on a value left raw.
	ValueNote string
}

// Stats says how much was read to find the records.
type Stats struct {
	// Segments counts the live segments (.log files) of the partition dirs
	// whose names match; Read the ones opened; Seeked the ones an index
	// let the read start inside of; Fallbacks the ones whose index was
	// not usable for a seek, read from their start instead.
	Segments, Read, Seeked, Fallbacks int
	// BytesRead counts the bytes of segment and index files read.
	BytesRead int64
	// Records counts the records handed over.
	Records int64
	// KafkaFiles counts the files of the inputs named as Kafka names its
	// files (segments, indexes, snapshots, checkpoints), whatever the
	// selection: none says the inputs hold no Kafka data at all.
	KafkaFiles int
	// Absent lists, for a selection by --offsets alone (no time window),
	// the parts of the range that partition dirs read do not hold; nil
	// when the read stopped at the limit.
	Absent []Absent
}

// Sink receives the records and findings of a run.
type Sink struct {
	Record  func(*Record) error
	Finding func(analysis.AnomalyRow)
}

var errLimit = errors.New("records: limit reached")

// run is one Run: the options, the sink and the counts.
type run struct {
	o     Options
	sink  Sink
	stats Stats
	rec   Record
	// stopped is set when the partition being read can hold no more
	// records (past the end of the offset range).
	stopped bool
	// claim is the .timeindex entry the segment being read relies on,
	// until a batch confirms it.
	claim *timeClaim
	// place is where the segment being read stands in its partition dir,
	// known when known is set (in an archive only once the archive has
	// shown the dir's later segments, or ended): torn holds the
	// truncated-batch findings waiting for it.
	place finding.Place
	known bool
	// stop is what the log dir of the partition dir being read says of
	// its stop: a tear of the active segment of a log dir stopped
	// cleanly is graded a loss, as verify grades it.
	stop finding.CleanStop
	torn []heldTorn
	// top is the highest base offset an archive has shown per dir.
	top map[string]int64
	// tail is the hole to the end of the segment being read, reported
	// when the read gets there.
	tail *segment.CorruptionError
	// size is the size of the segment being read.
	size int64
	// covers are the offsets each partition dir holds of the range (see
	// Absent); cur is the one of the segment being read.
	covers     map[coverKey]*cover
	coverOrder []*cover
	cur        *cover
	// copies names the copy of a partition a record comes from.
	copies *copies
}

// heldTorn is a truncated-batch finding of an archive's segment whose
// place is not known yet.
type heldTorn struct {
	dir  string
	base int64
	f    analysis.AnomalyRow
}

// corruption reports a reader finding. A torn batch is graded by its
// segment's place as verify grades it: finding.GradeTruncated.
func (r *run) corruption(w finding.Where, ce *segment.CorruptionError) {
	f := finding.FromCorruption(w, ce)
	if r.cur != nil && (f.Kind == finding.KindTruncated || finding.Counts(f.Severity)) {
		r.cur.Damaged = true
	}
	if f.Kind == finding.KindTruncated && !r.known {
		dir, base := analysis.PartitionDir(r.rec.File), snapshotBase(r.rec.File)
		if top, ok := r.top[dir]; !ok || top <= base {
			r.torn = append(r.torn, heldTorn{dir, base, f})
			return
		}
		// A later segment of the dir came earlier in the archive.
		finding.GradeTruncated(&f, finding.RolledSegment)
		r.sink.Finding(f)
		return
	}
	switch {
	case f.Kind == finding.KindTruncated && r.place == finding.ActiveSegment:
		first := snapshotBase(r.rec.File)
		if f.Offset != nil {
			first = *f.Offset
		}
		finding.GradeActiveTear(&f, r.stop, first)
	case f.Kind == finding.KindTruncated:
		finding.GradeTruncated(&f, r.place)
	}
	r.sink.Finding(f)
}

// later tells the held torn batches of dir that a live segment of base
// offset base is there: those of segments before it are in rolled
// segments.
func (r *run) later(dir string, base int64) {
	if r.top == nil {
		r.top = map[string]int64{}
	}
	if top, ok := r.top[dir]; !ok || base > top {
		r.top[dir] = base
	}
	kept := r.torn[:0]
	for _, t := range r.torn {
		if t.dir == dir && t.base < base {
			finding.GradeTruncated(&t.f, finding.RolledSegment)
			r.sink.Finding(t.f)
			continue
		}
		kept = append(kept, t)
	}
	r.torn = kept
}

// flushTorn reports the torn batches still held at the end of an archive:
// no later segment came, theirs are the active segments.
func (r *run) flushTorn() {
	for _, t := range r.torn {
		finding.GradeTruncated(&t.f, finding.ActiveSegment)
		r.sink.Finding(t.f)
	}
	r.torn = nil
}

// Run reads the inputs (named by sources, as scan.Sources names them) and
// hands every selected record to sink, input by input and, within an
// input, partition dir by partition dir in path order. An archive is read
// in its own order: partition dirs whose segments it interleaves come out
// interleaved. Damage is reported to sink.Finding and reading goes on.
func Run(ctx context.Context, inputs []*source.Input, sources []string, o Options, sink Sink) (Stats, error) {
	r := &run{o: o, sink: sink}
	if r.sink.Finding == nil {
		r.sink.Finding = func(analysis.AnomalyRow) {}
	}
	// The listing is not narrowed by topic: wanted applies it, so that the
	// Kafka files of every partition dir are counted.
	var sopts source.Options
	lists := make([][]*source.Entry, len(inputs))
	for i, in := range inputs {
		if in.Kind != source.Archive {
			var err error
			if lists[i], err = in.Files(sopts); err != nil {
				return r.stats, err
			}
		}
	}
	r.copies = countCopies(inputs, lists)
	for i, in := range inputs {
		var err error
		if in.Kind == source.Archive {
			err = r.archive(ctx, in, sources[i], sopts)
		} else {
			err = r.listed(ctx, in, sources[i], lists[i])
		}
		if errors.Is(err, errLimit) {
			return r.stats, nil
		}
		if err != nil {
			return r.stats, err
		}
	}
	if r.judging() {
		r.stats.Absent = r.absent()
	}
	return r.stats, nil
}

// wanted reports whether a listed entry is a live segment of a partition
// the selection keeps.
func (r *run) wanted(e *source.Entry) bool {
	if e.Name.Kind != snapshot.KindUnknown {
		r.stats.KafkaFiles++
	}
	if e.Name.Kind != snapshot.KindLog || e.Name.Suffix != "" || e.Name.Leftover {
		return false
	}
	if e.Partition == nil {
		return r.o.Topic == nil && r.o.Partition < 0
	}
	if r.o.Topic != nil && !r.o.Topic.MatchString(e.Partition.Topic) {
		return false
	}
	return r.o.Partition < 0 || e.Partition.Partition == r.o.Partition
}

// where locates findings about entry e.
func where(in int, e *source.Entry, file string) finding.Where {
	w := finding.Where{Input: int32(in), Partition: -1, File: file}
	if e.Partition != nil {
		w.Topic, w.Partition = e.Partition.Topic, e.Partition.Partition
	}
	return w
}

// start prepares r.rec for the records of entry e.
func (r *run) start(in *source.Input, src string, e *source.Entry) {
	r.rec = Record{Input: int32(in.Index), Source: src, File: e.Path, Partition: -1, Copy: r.copies.name(in, src, e)}
	if e.Partition != nil {
		r.rec.Topic, r.rec.Partition = e.Partition.Topic, e.Partition.Partition
	}
	r.stopped = false
	r.size = e.Size
}

// archive reads an archive front to back; only the segments whose base
// offset is past the range are passed over unread.
func (r *run) archive(ctx context.Context, in *source.Input, src string, sopts source.Options) error {
	// A torn batch is graded once the archive shows whether its segment
	// is the last of its dir; the archive's order need not be the offsets'.
	r.known, r.top = false, nil
	defer r.flushTorn()
	err := in.Stream(ctx, sopts, func(e *source.Entry, rd io.Reader) error {
		if e.Skipped != "" || !r.wanted(e) {
			return nil
		}
		r.stats.Segments++
		r.later(analysis.PartitionDir(e.Path), e.Name.Offset)
		c := r.coverFor(in.Index, e)
		if e.Name.Offset > r.o.Offsets.To {
			c.passed(e.Name.Offset)
			return nil
		}
		if c != nil {
			c.visited = true
		}
		r.cur = c
		r.stats.Read++
		r.start(in, src, e)
		cr := &countReader{r: rd, size: e.Size, n: &r.stats.BytesRead}
		opts := segment.Options{Path: e.Path, Size: e.Size}
		var rdr io.Reader = cr
		r.tail = nil
		if sr, ok := rd.(source.SparseReader); ok {
			// A sparse entry's holes are passed, not read as zeros; it is
			// read up to the end of its data, as a file is.
			ranges := sr.DataRanges()
			end := source.DataEnd(ranges, e.Size)
			if end < e.Size {
				r.tail = segment.TailHole(e.Path, end, e.Size)
			}
			cr.size, opts.Size = end, end
			opts.Holes = holesFrom(ranges, end, 0)
			rdr = &sparseCountReader{countReader: cr, sr: sr}
		}
		err := r.segment(segment.NewReader(rdr, opts), where(in.Index, e, e.Path), r.o.Offsets.From, nil)
		if err != nil && !errors.Is(err, errLimit) && ctx.Err() == nil {
			// The entry's bytes could not be read (a cut or damaged
			// stream): the stream goes on past it and reports where the
			// archive is damaged, as scan does.
			return nil
		}
		return err
	})
	var ae *source.ArchiveError
	if errors.As(err, &ae) {
		w := finding.Where{Input: int32(in.Index), Partition: -1, File: in.Path}
		r.sink.Finding(finding.NewSev(w, ae.Kind(), ae.Severity(), ae.Offset, -1, "%s", ae.Detail()))
		return nil
	}
	return err
}

// checkSeek verifies, at the first batch read after a seek, that the
// index entry sought to names that batch.
type checkSeek struct {
	pos, offset int64
}

// errSeek says the batch at an index entry's position is not the one the
// entry names: the segment is read again from its start.
var errSeek = errors.New("records: index entry does not name the batch at its position")

// segment reads the batches of one segment from sr, which reports file
// positions however far into the file it starts, and hands over the
// selected records. from is the
// first offset that can match. With check set the first item must be the
// batch it names, or segment returns errSeek before anything is handed
// over.
func (r *run) segment(sr *segment.Reader, w finding.Where, from int64, check *checkSeek) error {
	defer sr.Close()
	o := &r.o
	// whole: the read starts at byte 0; batches and damaged count what
	// it finds, for a file that holds no batch at all.
	whole, batches, damaged, tornStart := check == nil, 0, false, false
	for sr.Next() {
		if fd := sr.Finding(); fd != nil {
			damaged = damaged || finding.ReaderDamage(fd)
			tornStart = tornStart || finding.TornFromStart(finding.ReaderKind(fd), fd.Offset)
			if check != nil {
				return errSeek
			}
			if c := r.claim; c != nil {
				// Read again from the start, where the finding is reported once.
				return &claimError{c.offset, fmt.Sprintf("entry (timestamp %d, offset %d) is not confirmed before damaged bytes at byte %d", c.ts, c.offset, fd.Offset)}
			}
			r.corruption(w, fd)
			continue
		}
		b := sr.Batch()
		pos := b.Position
		batches++
		if b.CRCValid {
			r.cur.hold(b.BaseOffset, b.LastOffset())
		}
		if check != nil {
			if pos != check.pos || !b.CRCValid || b.BaseOffset > check.offset || b.LastOffset() < check.offset {
				return errSeek
			}
			check = nil
		}
		if c := r.claim; c != nil && !b.CRCValid {
			return &claimError{c.offset, fmt.Sprintf("entry (timestamp %d, offset %d) is not confirmed before the damaged batch at byte %d", c.ts, c.offset, pos)}
		}
		if b.CRCValid && r.claim != nil {
			ok, err := r.claim.check(b)
			if err != nil {
				return err
			}
			if ok {
				whole := r.claim.whole
				r.claim = nil
				if whole {
					return nil
				}
			}
		}
		if b.CRCValid {
			// Offsets grow through a segment: a batch past the range ends
			// the partition, as every later segment starts later still.
			if b.BaseOffset > o.Offsets.To {
				r.stopped = true
				return nil
			}
			if b.LastOffset() < from {
				continue
			}
			if b.Magic >= 2 && b.MaxTimestamp < o.Window.Since && !o.Window.IsAlways() {
				continue
			}
		}
		if b.IsControl() && !o.Control {
			continue
		}
		it := sr.Records()
		for it.Next() {
			if err := r.record(b, pos, it.Record()); err != nil {
				return err
			}
		}
		if err := it.Err(); err != nil {
			var ce *segment.CorruptionError
			if !errors.As(err, &ce) {
				return err
			}
			r.corruption(w, ce)
		}
	}
	if err := sr.Err(); err != nil {
		return err
	}
	if r.claim != nil && !r.stopped {
		c := r.claim
		return &claimError{c.offset, fmt.Sprintf("entry (timestamp %d, offset %d) names an offset past the segment's last intact batch", c.ts, c.offset)}
	}
	if t := r.tail; t != nil {
		r.tail = nil
		r.corruption(w, t)
	}
	if whole && batches == 0 && damaged && !tornStart && r.size > 0 {
		r.sink.Finding(finding.NotKafkaData(w, r.size))
	}
	return nil
}

// record hands over rec when the selection keeps it.
func (r *run) record(b *segment.Batch, pos int64, rec *segment.Record) error {
	o := &r.o
	if rec.IsControl && !o.Control || !o.Offsets.Contains(rec.Offset) || !o.Window.Contains(rec.Timestamp) {
		return nil
	}
	if o.HasKey && (rec.Key == nil || !bytes.Equal(rec.Key, o.Key)) {
		return nil
	}
	if o.KeyRegex != nil && (rec.Key == nil || !o.KeyRegex.Match(rec.Key)) {
		return nil
	}
	if o.Header != "" && !hasHeader(rec.Headers, o) {
		return nil
	}
	out := &r.rec
	out.Decoded, out.DecodedEncoding, out.ValueNote = nil, "", ""
	if o.DecodeValue != nil && rec.Value != nil && !rec.IsControl {
		if text, enc, ok := o.DecodeValue(out.Topic, rec.Value); ok {
			out.Decoded, out.DecodedEncoding = text, enc
		} else if o.DescribeValue != nil {
			out.ValueNote = o.DescribeValue(out.Topic, rec.Value)
		}
	}
	if o.ValueRegex != nil {
		v := rec.Value
		if out.Decoded != nil {
			v = out.Decoded
		}
		if v == nil || !o.ValueRegex.Match(v) {
			return nil
		}
	}
	out.Position, out.Offset, out.Timestamp, out.TimestampType = pos, rec.Offset, rec.Timestamp, rec.TimestampType
	out.ProducerID, out.ProducerEpoch, out.Sequence = b.ProducerID, b.ProducerEpoch, rec.Sequence
	out.Key, out.Value, out.Headers = rec.Key, rec.Value, rec.Headers
	out.IsControl, out.ControlType, out.CRCValid = rec.IsControl, rec.ControlType, b.CRCValid && rec.CRCValid
	if err := r.sink.Record(out); err != nil {
		return err
	}
	r.cur.hold(rec.Offset, rec.Offset)
	r.stats.Records++
	if o.Limit > 0 && r.stats.Records >= o.Limit {
		return errLimit
	}
	return nil
}

func hasHeader(hs []segment.Header, o *Options) bool {
	for _, h := range hs {
		if string(h.Key) != o.Header {
			continue
		}
		if !o.HasHeaderValue || h.Value != nil && bytes.Equal(h.Value, o.HeaderValue) {
			return true
		}
	}
	return false
}

// countReader counts the bytes read through it; it passes on the size of
// an archive entry so the segment reader knows where the entry ends.
type countReader struct {
	r    io.Reader
	size int64
	n    *int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

func (c *countReader) Size() int64 { return c.size }

// sparseCountReader is a countReader over a sparse archive entry: a seek
// forward skips to the position, holes costing nothing.
type sparseCountReader struct {
	*countReader
	sr  source.SparseReader
	pos int64
}

func (c *sparseCountReader) Read(p []byte) (int, error) {
	if c.pos >= c.size {
		return 0, io.EOF
	}
	if int64(len(p)) > c.size-c.pos {
		p = p[:c.size-c.pos]
	}
	n, err := c.countReader.Read(p)
	c.pos += int64(n)
	return n, err
}

func (c *sparseCountReader) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekCurrent || off < 0 {
		return 0, errors.New("records: an archive entry is only skipped forward")
	}
	if err := c.sr.SkipTo(c.pos + off); err != nil {
		return 0, err
	}
	c.pos += off
	return c.pos, nil
}

// snapshotBase is the base offset in a segment's file name.
func snapshotBase(file string) int64 {
	return snapshot.ParseName(path.Base(file)).Offset
}

// maxIndexBytes bounds the index files read whole: the broker's default
// segment.index.bytes is 10 MiB; a larger file is not used.
const maxIndexBytes = 64 << 20
