package dups

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Spilling: entries are written to fanout files by 6 bits of their
// fingerprint (level 0: the leading 6 bits). A file too large for the
// budget is split again on the next 6 bits; files are processed in bucket
// order, so groups come out in fingerprint order just as in memory. A
// file still too large after maxLevels splits holds (nearly) one huge
// group, such as millions of identical heartbeats: it is sorted in runs
// of the budget's size and merged, twice, as a stream (processLarge).
const (
	fanout     = 64
	fanoutBits = 6
	maxLevels  = 4
	spillBuf   = 8 << 10
)

type spill struct {
	runs  int // sorted runs of files too large to split (processLarge)
	dir   string
	ws    [fanout]*bufio.Writer
	fs    [fanout]*os.File
	files int
	bytes int64
}

func bucket(fp *[16]byte, level int) int {
	v := binary.BigEndian.Uint64(fp[:8])
	return int(v>>(64-fanoutBits*(level+1))) & (fanout - 1)
}

func encodeRec(b []byte, r *rec) {
	copy(b[:16], r.fp[:])
	binary.LittleEndian.PutUint64(b[16:], uint64(r.off))
	binary.LittleEndian.PutUint64(b[24:], uint64(r.ts))
	binary.LittleEndian.PutUint64(b[32:], uint64(r.pid))
	binary.LittleEndian.PutUint32(b[40:], r.part)
	binary.LittleEndian.PutUint32(b[44:], uint32(r.seq))
	binary.LittleEndian.PutUint16(b[48:], uint16(r.epoch))
	b[50] = r.flags
	b[51] = 0
	binary.LittleEndian.PutUint32(b[52:], r.inBatch)
}

func decodeRec(b []byte, r *rec) {
	copy(r.fp[:], b[:16])
	r.off = int64(binary.LittleEndian.Uint64(b[16:]))
	r.ts = int64(binary.LittleEndian.Uint64(b[24:]))
	r.pid = int64(binary.LittleEndian.Uint64(b[32:]))
	r.part = binary.LittleEndian.Uint32(b[40:])
	r.seq = int32(binary.LittleEndian.Uint32(b[44:]))
	r.epoch = int16(binary.LittleEndian.Uint16(b[48:]))
	r.flags = b[50]
	r.inBatch = binary.LittleEndian.Uint32(b[52:])
}

func (s *spill) path(prefix string, i int) string {
	return filepath.Join(s.dir, fmt.Sprintf("%s%02d", prefix, i))
}

// open creates the fanout files name prefix00..prefix63.
func (s *spill) open(prefix string) error {
	for i := range fanout {
		f, err := os.OpenFile(s.path(prefix, i), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			s.closeAll()
			return err
		}
		s.files++
		s.fs[i] = f
		if s.ws[i] == nil {
			s.ws[i] = bufio.NewWriterSize(f, spillBuf)
		} else {
			s.ws[i].Reset(f)
		}
	}
	return nil
}

func (s *spill) write(r *rec, level int) error {
	var b [recordBytes]byte
	encodeRec(b[:], r)
	s.bytes += recordBytes
	_, err := s.ws[bucket(&r.fp, level)].Write(b[:])
	return err
}

func (s *spill) closeAll() error {
	var errs []error
	for i := range fanout {
		if s.fs[i] == nil {
			continue
		}
		errs = append(errs, s.ws[i].Flush(), s.fs[i].Close())
		s.fs[i] = nil
	}
	return errors.Join(errs...)
}

func (s *spill) remove() error {
	s.closeAll()
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}

// spillBuf writes the in-memory entries to the level-0 files, creating
// the spill directory the first time.
func (d *Detector) spillBuf() error {
	if d.spill == nil {
		dir, err := os.MkdirTemp(d.opts.TmpDir, "ksleuth-dups-")
		if err != nil {
			return fmt.Errorf("dups: spill: %w", err)
		}
		d.spill = &spill{dir: dir}
		if err := d.spill.open("L0-"); err != nil {
			return fmt.Errorf("dups: spill: %w", err)
		}
	}
	for i := range d.buf {
		if err := d.spill.write(&d.buf[i], 0); err != nil {
			return fmt.Errorf("dups: spill: %w", err)
		}
	}
	d.buf = d.buf[:0]
	return nil
}

// drain groups the spilled entries, file by file in bucket order.
func (s *spill) drain(ctx context.Context, d *Detector, g *grouper) error {
	if err := s.closeAll(); err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	for i := range fanout {
		if err := s.processFile(ctx, d, g, s.path("L0-", i), 0); err != nil {
			return err
		}
	}
	return nil
}

func (s *spill) processFile(ctx context.Context, d *Detector, g *grouper, path string, level int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	n := fi.Size() / recordBytes
	if n > int64(d.maxBuf) && level+1 >= maxLevels {
		return s.processLarge(ctx, d, g, path, n)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, spillBuf)
	var b [recordBytes]byte
	if n <= int64(d.maxBuf) {
		buf := d.buf[:0]
		for range n {
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return fmt.Errorf("dups: spill: %s: %w", path, err)
			}
			var e rec
			decodeRec(b[:], &e)
			buf = append(buf, e)
		}
		f.Close()
		os.Remove(path)
		if err := g.process(buf); err != nil {
			return err
		}
		d.buf = buf[:0]
		return nil
	}
	prefix := fmt.Sprintf("%s.L%d-", filepath.Base(path), level+1)
	if err := s.open(prefix); err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	for range n {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			s.closeAll()
			return fmt.Errorf("dups: spill: %s: %w", path, err)
		}
		var e rec
		decodeRec(b[:], &e)
		if err := s.write(&e, level+1); err != nil {
			s.closeAll()
			return fmt.Errorf("dups: spill: %w", err)
		}
	}
	if err := s.closeAll(); err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	f.Close()
	os.Remove(path)
	for i := range fanout {
		if err := s.processFile(ctx, d, g, s.path(prefix, i), level+1); err != nil {
			return err
		}
	}
	return nil
}

// processLarge groups a file of n entries larger than the budget that
// splitting cannot divide: one fingerprint, or a few, with more entries
// than fit. Its entries are sorted in runs of the budget's size, then the
// runs are merged twice: once to learn each group's members (their number
// and writers, which the first row explains), once to make the rows.
// Memory: the budget for the runs, then a buffer per run.
func (s *spill) processLarge(ctx context.Context, d *Detector, g *grouper, path string, n int64) error {
	runs, err := s.sortRuns(ctx, d, path, n)
	s.runs += len(runs)
	created := slices.Clone(runs) // every run file, removed on return
	defer func() {
		for _, r := range created {
			os.Remove(r)
		}
	}()
	// At most mergeFanIn runs are merged at once (open files, buffers):
	// more are merged into longer runs first.
	for level := 0; err == nil && len(runs) > mergeFanIn; level++ {
		var longer []string
		for i := 0; i < len(runs) && err == nil; i += mergeFanIn {
			part := runs[i:min(i+mergeFanIn, len(runs))]
			out := fmt.Sprintf("%s.merge%d-%d", path, level, len(longer))
			longer, created = append(longer, out), append(created, out)
			err = s.mergeInto(ctx, d, part, out)
			for _, r := range part {
				os.Remove(r)
			}
		}
		runs = longer
	}
	if err != nil {
		return err
	}
	var (
		stats []groupStats
		key   rec
		f     memberFilter
	)
	first := true
	err = s.mergeRuns(ctx, d, runs, func(r *rec) error {
		if first || r.fp != key.fp || d.parts[r.part].scope != d.parts[key.part].scope {
			first = false
			stats = append(stats, groupStats{})
			key, f = *r, memberFilter{d: d}
		}
		if f.keep(r) {
			stats[len(stats)-1].add(d, r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var w *groupRows
	i := -1
	first = true
	err = s.mergeRuns(ctx, d, runs, func(r *rec) error {
		if first || r.fp != key.fp || d.parts[r.part].scope != d.parts[key.part].scope {
			first = false
			if err := g.flush(); err != nil {
				return err
			}
			i++
			key, f, w = *r, memberFilter{d: d}, nil
			if stats[i].reported(d.opts.SamePID) {
				w = g.start(&stats[i])
			}
		}
		if w == nil || !f.keep(r) {
			return nil
		}
		return g.add(w.row(r))
	})
	if err != nil {
		return err
	}
	return g.flush()
}

// sortRuns reads the n entries of path in runs of the budget's size,
// sorts each in d.cmp order into a file of its own, and removes path.
func (s *spill) sortRuns(ctx context.Context, d *Detector, path string, n int64) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dups: spill: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, spillBuf)
	var runs []string
	var b [recordBytes]byte
	for left := n; left > 0; {
		if err := ctx.Err(); err != nil {
			return runs, err
		}
		buf := d.buf[:0]
		for ; left > 0 && len(buf) < d.maxBuf; left-- {
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return runs, fmt.Errorf("dups: spill: %s: %w", path, err)
			}
			var e rec
			decodeRec(b[:], &e)
			buf = append(buf, e)
		}
		d.buf = buf[:0]
		d.sortRecs(buf)
		run := fmt.Sprintf("%s.run%d", path, len(runs))
		runs = append(runs, run)
		if err := s.writeRun(run, buf); err != nil {
			return runs, err
		}
	}
	f.Close()
	os.Remove(path)
	return runs, nil
}

// writeRun writes sorted entries to a run file at path.
func (s *spill) writeRun(path string, rs []rec) error {
	return s.writeFile(path, func(put func(*rec) error) error {
		for i := range rs {
			if err := put(&rs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// mergeFanIn is how many sorted runs are merged at once.
const mergeFanIn = 128

// mergeInto merges sorted runs into one at path.
func (s *spill) mergeInto(ctx context.Context, d *Detector, runs []string, path string) error {
	return s.writeFile(path, func(put func(*rec) error) error { return s.mergeRuns(ctx, d, runs, put) })
}

// writeFile creates a spill file at path and writes to it the entries fill
// puts.
func (s *spill) writeFile(path string, fill func(put func(*rec) error) error) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	s.files++
	w := bufio.NewWriterSize(f, spillBuf)
	var b [recordBytes]byte
	err = fill(func(r *rec) error {
		encodeRec(b[:], r)
		s.bytes += recordBytes
		_, err := w.Write(b[:])
		return err
	})
	if err = errors.Join(err, w.Flush(), f.Close()); err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	return nil
}

// mergeRuns calls fn with every entry of the sorted runs, in d.cmp order.
func (s *spill) mergeRuns(ctx context.Context, d *Detector, runs []string, fn func(*rec) error) error {
	return mergeSorted(ctx, "dups", runs, nil, codec[rec]{recordBytes, encodeRec, decodeRec}, d.cmp, fn)
}
