package dups

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// codec writes a value of T as size bytes and reads it back.
type codec[T any] struct {
	size int
	enc  func(b []byte, v *T)
	dec  func(b []byte, v *T)
}

// extSorter sorts values of T in bounded memory: up to max values are
// held and sorted in memory; beyond that each full buffer is sorted and
// written to a run file in a directory of its own under tmpDir, and the
// runs are merged (mergeFanIn at a time, in levels when there are more)
// as they are read back. cmp must be a total order for the output not to
// depend on max.
type extSorter[T any] struct {
	tmpDir, prefix string
	cmp            func(a, b *T) int
	codec          codec[T]
	max            int

	buf   []T
	dir   string
	runs  []string
	sizes []int64 // of each run file as written
	files int
	bytes int64
}

func newExtSorter[T any](tmpDir, prefix string, held int, c codec[T], cmp func(a, b *T) int) *extSorter[T] {
	return &extSorter[T]{tmpDir: tmpDir, prefix: prefix, cmp: cmp, codec: c, max: max(held, 2)}
}

// add takes a copy of v.
func (s *extSorter[T]) add(v *T) error {
	s.buf = append(s.buf, *v)
	if len(s.buf) >= s.max {
		return s.flush()
	}
	return nil
}

// flush sorts the buffer and writes it as a run.
func (s *extSorter[T]) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp(s.tmpDir, "ksleuth-"+s.prefix+"-")
		if err != nil {
			return fmt.Errorf("%s: spill: %w", s.prefix, err)
		}
		s.dir = dir
	}
	s.sort()
	path := filepath.Join(s.dir, fmt.Sprintf("run-%d", s.files))
	size, err := s.writeFile(path, func(put func(*T) error) error {
		for i := range s.buf {
			if err := put(&s.buf[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.runs, s.sizes = append(s.runs, path), append(s.sizes, size)
	s.buf = s.buf[:0]
	return nil
}

// writeFile writes the values fill puts to a new file at path and
// returns its size.
func (s *extSorter[T]) writeFile(path string, fill func(put func(*T) error) error) (int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, fmt.Errorf("%s: spill: %w", s.prefix, err)
	}
	s.files++
	w := bufio.NewWriterSize(f, spillBuf)
	b := make([]byte, s.codec.size)
	var size int64
	err = fill(func(v *T) error {
		s.codec.enc(b, v)
		size += int64(len(b))
		_, err := w.Write(b)
		return err
	})
	s.bytes += size
	if err = errors.Join(err, w.Flush(), f.Close()); err != nil {
		return 0, fmt.Errorf("%s: spill: %w", s.prefix, err)
	}
	return size, nil
}

func (s *extSorter[T]) sort() {
	sort.Slice(s.buf, func(i, j int) bool { return s.cmp(&s.buf[i], &s.buf[j]) < 0 })
}

// each calls fn with every value added, in cmp order. The sorter is
// spent afterwards.
func (s *extSorter[T]) each(ctx context.Context, fn func(*T) error) error {
	if len(s.runs) == 0 {
		s.sort()
		for i := range s.buf {
			if i%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := fn(&s.buf[i]); err != nil {
				return err
			}
		}
		s.buf = nil
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	s.buf = nil // the memory goes to the merge's readers
	for len(s.runs) > mergeFanIn {
		var next []string
		var sizes []int64
		for i := 0; i < len(s.runs); i += mergeFanIn {
			j := min(i+mergeFanIn, len(s.runs))
			path := filepath.Join(s.dir, fmt.Sprintf("run-%d", s.files))
			size, err := s.writeFile(path, func(put func(*T) error) error { return s.merge(ctx, s.runs[i:j], s.sizes[i:j], put) })
			if err != nil {
				return err
			}
			for _, p := range s.runs[i:j] {
				os.Remove(p)
			}
			next, sizes = append(next, path), append(sizes, size)
		}
		s.runs, s.sizes = next, sizes
	}
	return s.merge(ctx, s.runs, s.sizes, fn)
}

// cursor is the next value of a sorted run file.
type cursor[T any] struct {
	f      *os.File
	r      *bufio.Reader
	b      []byte
	prefix string
	cur    T
}

func (c *cursor[T]) next(dec func([]byte, *T)) (bool, error) {
	if _, err := io.ReadFull(c.r, c.b); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, fmt.Errorf("%s: spill: %s: %w", c.prefix, c.f.Name(), err)
	}
	dec(c.b, &c.cur)
	return true, nil
}

// merge calls fn with every value of the sorted runs, in cmp order.
func (s *extSorter[T]) merge(ctx context.Context, runs []string, sizes []int64, fn func(*T) error) error {
	return mergeSorted(ctx, s.prefix, runs, sizes, s.codec, s.cmp, fn)
}

// mergeSorted calls fn with every value of the sorted run files, in cmp
// order: a binary heap of the runs' next values. sizes, when not nil, are
// the files' sizes as written: a file found shorter (or longer) is an
// error, not fewer values. prefix begins error messages.
func mergeSorted[T any](ctx context.Context, prefix string, runs []string, sizes []int64, c codec[T], cmp func(a, b *T) int, fn func(*T) error) error {
	var h []*cursor[T]
	defer func() {
		for _, cur := range h {
			cur.f.Close()
		}
	}()
	for i, p := range runs {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("%s: spill: %w", prefix, err)
		}
		if sizes != nil {
			if fi, err := f.Stat(); err != nil || fi.Size() != sizes[i] {
				f.Close()
				return fmt.Errorf("%s: spill: %s is no longer the %d bytes written", prefix, p, sizes[i])
			}
		}
		cur := &cursor[T]{f: f, r: bufio.NewReaderSize(f, spillBuf), b: make([]byte, c.size), prefix: prefix}
		ok, err := cur.next(c.dec)
		if err != nil || !ok {
			f.Close()
			if err != nil {
				return err
			}
			continue
		}
		h = append(h, cur)
	}
	less := func(i, j int) bool { return cmp(&h[i].cur, &h[j].cur) < 0 }
	down := func(i int) {
		for {
			m := i
			if l := 2*i + 1; l < len(h) && less(l, m) {
				m = l
			}
			if r := 2*i + 2; r < len(h) && less(r, m) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for n := 0; len(h) > 0; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(&h[0].cur); err != nil {
			return err
		}
		ok, err := h[0].next(c.dec)
		if err != nil {
			return err
		}
		if !ok {
			h[0].f.Close()
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return nil
}

// close removes the run files.
func (s *extSorter[T]) close() error {
	s.buf = nil
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir, s.runs = "", nil
	return err
}
