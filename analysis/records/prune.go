package records

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// partition is the files of one partition dir that records reads: its
// live segments in offset order, and their indexes by base offset.
type partition struct {
	logs             []*source.Entry
	index, timeindex map[int64]*source.Entry
}

// listed reads a dir or file input, partition dir by partition dir.
func (r *run) listed(ctx context.Context, in *source.Input, src string, entries []*source.Entry) error {
	var order []string
	parts := map[string]*partition{}
	for _, e := range entries {
		dir := analysis.PartitionDir(e.Path)
		p := parts[dir]
		if p == nil {
			p = &partition{index: map[int64]*source.Entry{}, timeindex: map[int64]*source.Entry{}}
			parts[dir] = p
			order = append(order, dir)
		}
		live := e.Name.Suffix == "" && !e.Name.Leftover && e.Skipped == "" && e.Err == nil
		switch {
		case r.wanted(e):
			p.logs = append(p.logs, e)
		case live && e.Name.Kind == snapshot.KindIndex:
			p.index[e.Name.Offset] = e
		case live && e.Name.Kind == snapshot.KindTimeIndex:
			p.timeindex[e.Name.Offset] = e
		}
	}
	r.known = true
	stops := newCleanStops(entries)
	for _, dir := range order {
		p := parts[dir]
		r.stopped = false
		r.stop = finding.CleanStop{}
		if len(p.logs) > 0 && in.Kind != source.File {
			r.stop = stops.of(p.logs[0])
		}
		// The active segment is the one of the highest base offset, as
		// verify takes it.
		last := int64(math.MinInt64)
		for _, e := range p.logs {
			last = max(last, e.Name.Offset)
		}
		for i, e := range p.logs {
			if err := ctx.Err(); err != nil {
				return err
			}
			r.stats.Segments++
			c := r.coverFor(in.Index, e)
			next := int64(math.MaxInt64)
			if i+1 < len(p.logs) {
				next = p.logs[i+1].Name.Offset
			}
			if r.stopped || !r.mayHold(e.Name.Offset, next) {
				if e.Name.Offset > r.o.Offsets.To {
					c.passed(e.Name.Offset)
				}
				continue
			}
			if c != nil {
				c.visited = true
			}
			r.cur = c
			r.place = finding.RolledSegment
			switch {
			case in.Kind == source.File:
				// Given on its own: the segments beside it in its dir
				// say, as verify and dump judge it.
				r.place = finding.PlaceBeside(source.LaterSegment(in.Abs))
			case e.Name.Offset == last:
				r.place = finding.ActiveSegment
			}
			if err := r.listedSegment(in, src, e, next, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// mayHold reports whether a segment of base offset base, followed by one
// at next, can hold offsets of the range: a segment holds offsets from
// its base up to the next segment's base.
func (r *run) mayHold(base, next int64) bool {
	rg := r.o.Offsets
	return base <= rg.To && (next == math.MaxInt64 || next > rg.From)
}

// listedSegment reads one segment of a dir input, starting at the byte an
// intact index gives for the first offset that can match.
func (r *run) listedSegment(in *source.Input, src string, e *source.Entry, next int64, p *partition) error {
	w := where(in.Index, e, e.Path)
	if e.Err != nil {
		r.sink.Finding(finding.New(w, finding.KindIOError, -1, -1, "%v", e.Err))
		return nil
	}
	base := e.Name.Offset
	from := r.o.Offsets.From
	seek := (*checkSeek)(nil)
	var claim *timeClaim
	if !r.o.NoIndex && (from > base || !r.o.Window.IsAlways()) {
		from, claim = r.timeStart(p.timeindex[base], base, next, from)
		if from > base {
			// A start taken from the .timeindex is checked against the
			// batch holding its entry's offset, so the read starts there.
			at := from
			if claim != nil {
				at = claim.offset
			}
			seek = r.seekEntry(p.index[base], base, next, e.Size, at)
		}
	}
	f, err := e.Open()
	if err != nil {
		r.sink.Finding(finding.New(w, finding.KindIOError, -1, -1, "%v", err))
		return nil
	}
	defer f.Close()
	r.stats.Read++
	r.start(in, src, e)
	r.claim = claim
	defer func() { r.claim = nil }()
	var failed *claimError
	if seek != nil {
		r.stats.Seeked++
		err := r.segment(r.fileReader(f, e, seek.pos), w, from, seek)
		switch {
		case errors.As(err, &failed):
			r.stats.Seeked--
		case errors.Is(err, errSeek):
			// Nothing was handed over: the first batch decides.
			r.stats.Seeked--
			r.stats.Fallbacks++
			r.sink.Finding(finding.New(where(in.Index, e, p.index[base].Path), finding.KindIndexMismatch, -1, seek.offset,
				"entry for offset %d names byte %d of %s, where no intact batch holding that offset starts; the segment is read from its start",
				seek.offset, seek.pos, e.Path))
		default:
			return err
		}
	}
	if failed == nil && r.claim != nil {
		err := r.segment(r.fileReader(f, e, 0), w, from, nil)
		if !errors.As(err, &failed) {
			return err
		}
	}
	if failed != nil {
		// Nothing was handed over: the batch holding the entry's offset
		// comes before any record past it.
		r.stats.Fallbacks++
		r.sink.Finding(finding.New(where(in.Index, e, p.timeindex[base].Path), finding.KindIndexMismatch, -1, failed.offset,
			"%s; the segment is read from its start without it", failed.msg))
		from, r.claim = r.o.Offsets.From, nil
	}
	return r.segment(r.fileReader(f, e, 0), w, from, nil)
}

// fileReader is a segment reader over f from byte pos, counting what it
// reads. It reads up to the end of the file's data: a hole to the end of
// the file is left to r.tail, reported once the reader gets there.
func (r *run) fileReader(f *os.File, e *source.Entry, pos int64) *segment.Reader {
	ranges := source.FileDataRanges(f, e.Size)
	end := max(source.DataEnd(ranges, e.Size), pos)
	r.tail = nil
	if end < e.Size {
		r.tail = segment.TailHole(e.Path, end, e.Size)
	}
	cf := &countFile{f: f, base: pos, size: end - pos, n: &r.stats.BytesRead}
	if !r.o.Offsets.IsAll() || !r.o.Window.IsAlways() {
		// A read that may stop early reads in small steps, so that it
		// stops near the bytes it needed rather than a window later.
		cf.step = 64 << 10
	}
	return segment.NewReader(cf, segment.Options{Path: e.Path, Size: end - pos, Start: pos,
		Holes: holesFrom(ranges, end, pos)})
}

// holesFrom lists the holes at or after byte pos and before byte end of
// a file with the given data ranges (nil: none known): the segment reader
// passes them without reading their zeros.
func holesFrom(ranges []source.DataRange, end, pos int64) []segment.Hole {
	var out []segment.Hole
	for _, h := range source.Holes(ranges, end) {
		if h.End > pos {
			out = append(out, segment.Hole{Start: max(h.Start, pos), End: h.End})
		}
	}
	return out
}

// readIndex reads an index file whole, or returns nil when it is missing,
// unreadable or too large to be one the broker wrote.
func (r *run) readIndex(e *source.Entry) []byte {
	if e == nil || e.Size <= 0 || e.Size > maxIndexBytes {
		return nil
	}
	f, err := e.Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, e.Size))
	r.stats.BytesRead += int64(len(data))
	if err != nil {
		return nil
	}
	return data
}

// indexUsable reports whether an index parsed without errors and its
// entries lie inside the segment's offsets.
func indexUsable(findings []*segment.IndexFinding, first, last, base, next int64) bool {
	for _, f := range findings {
		if f.Severity() != segment.SeverityNote {
			return false
		}
	}
	return first >= base && last < next && first <= last
}

// timeStart applies a --since to a segment with its .timeindex: every
// offset up to an entry whose timestamp is before since is before it too
// (the entry holds the largest timestamp up to its offset). A segment,
// other than the last, whose largest timestamp is before since starts at
// next, past its end: the broker answers ListOffsets by time the same way.
//
// A start moved by an entry comes with the entry as a claim that the read
// checks against the batch holding its offset (see timeClaim), before any
// record is handed over: a .timeindex that lies would otherwise hide
// records.
func (r *run) timeStart(e *source.Entry, base, next, from int64) (int64, *timeClaim) {
	since := r.o.Window.Since
	if since == math.MinInt64 {
		return from, nil
	}
	data := r.readIndex(e)
	if data == nil {
		return from, nil
	}
	ti, fs := segment.ParseTimeIndex(e.Path, data, base)
	if ti == nil || len(ti.Entries) == 0 {
		return from, nil
	}
	es := ti.Entries
	if !indexUsable(fs, es[0].Offset, es[len(es)-1].Offset, base, next) {
		return from, nil
	}
	for i := range es {
		// The broker never indexes a timestamp below 0 (none is -1).
		if es[i].Timestamp < 0 || i > 0 && (es[i].Timestamp < es[i-1].Timestamp || es[i].Offset < es[i-1].Offset) {
			return from, nil
		}
	}
	if l := es[len(es)-1]; next != math.MaxInt64 && l.Timestamp < since {
		// The batch holding the last entry's offset is read to check it;
		// the rest of the segment is not.
		return next, &timeClaim{offset: l.Offset, ts: l.Timestamp, whole: true}
	}
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Timestamp < since {
			if es[i].Offset+1 > from {
				return es[i].Offset + 1, &timeClaim{offset: es[i].Offset, ts: es[i].Timestamp}
			}
			break
		}
	}
	return from, nil
}

// timeClaim is a .timeindex entry a read relies on: no record up to
// offset has a timestamp above ts. The read holds it to the batches up to
// the one holding offset, before it hands over any record.
type timeClaim struct {
	offset, ts int64
	// whole: the claim covers the whole segment, whose read ends once the
	// claim is confirmed.
	whole bool
}

// claimError says how the log contradicts a timeClaim.
type claimError struct {
	offset int64
	msg    string
}

func (e *claimError) Error() string { return e.msg }

// check holds a claim to batch b (CRC-valid): it returns true once the
// batch holding the claim's offset agreed, and a claimError when a batch
// contradicts it.
func (c *timeClaim) check(b *segment.Batch) (bool, error) {
	if b.Magic >= 2 && b.MaxTimestamp > c.ts && b.BaseOffset <= c.offset {
		msg := fmt.Sprintf("entry (timestamp %d, offset %d) claims no earlier timestamp above it, but the batch at offsets %d..%d holds timestamp %d",
			c.ts, c.offset, b.BaseOffset, b.LastOffset(), b.MaxTimestamp)
		return false, &claimError{c.offset, msg}
	}
	if b.BaseOffset > c.offset {
		return false, &claimError{c.offset, fmt.Sprintf("entry (timestamp %d, offset %d) names an offset no batch holds (the next starts at %d)",
			c.ts, c.offset, b.BaseOffset)}
	}
	return b.LastOffset() >= c.offset, nil
}

// seekEntry finds in a segment's .index the last entry at or before
// offset from: the batch at its position ends at the entry's offset, so
// every record from on lies at or after it. nil when the index is not
// usable or has no such entry.
func (r *run) seekEntry(e *source.Entry, base, next, logSize, from int64) *checkSeek {
	data := r.readIndex(e)
	if data == nil {
		return nil
	}
	oi, fs := segment.ParseOffsetIndex(e.Path, data, base)
	if oi == nil || len(oi.Entries) == 0 {
		return nil
	}
	es := oi.Entries
	if !indexUsable(fs, es[0].Offset, es[len(es)-1].Offset, base, next) {
		return nil
	}
	var best *checkSeek
	for i, x := range es {
		if i > 0 && (x.Offset <= es[i-1].Offset || x.Position <= es[i-1].Position) {
			return nil
		}
		if int64(x.Position) >= logSize {
			return nil
		}
		if x.Offset <= from {
			best = &checkSeek{pos: int64(x.Position), offset: x.Offset}
		}
	}
	if best == nil || best.pos == 0 {
		return nil
	}
	return best
}

// countFile is a segment file read from byte base on, as the segment
// reader sees a file (reads, random access, a size), counting the bytes
// read.
type countFile struct {
	f    *os.File
	base int64
	size int64
	off  int64
	n    *int64
	step int // largest read, 0 for any
}

func (c *countFile) Read(p []byte) (int, error) {
	if c.step > 0 && len(p) > c.step {
		p = p[:c.step]
	}
	n, err := c.ReadAt(p, c.off)
	c.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (c *countFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= c.size {
		return 0, io.EOF
	}
	short := false
	if rest := c.size - off; int64(len(p)) > rest {
		p, short = p[:rest], true
	}
	n, err := c.f.ReadAt(p, c.base+off)
	*c.n += int64(n)
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

func (c *countFile) Size() int64 { return c.size }

// Seek moves the read position: the segment reader passes a hole so.
func (c *countFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += c.off
	case io.SeekEnd:
		off += c.size
	}
	if off < 0 {
		return 0, errors.New("records: seek before the start of the file")
	}
	c.off = off
	return off, nil
}
