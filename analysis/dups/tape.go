package dups

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// tape holds bytes written in sequence and reads them back once, in
// memory up to limit bytes and in a file beyond: the grouping writes the
// members of every group to it, and the rows are made from it once the
// evidence of every later copy is known (a grade depends on copies of
// other groups).
type tape struct {
	tmpDir, name string
	limit        int
	mem          bytes.Buffer
	dir          string
	f            *os.File
	w            *bufio.Writer
	r            *bufio.Reader
	bytes        int64
	files        int
}

func (t *tape) write(b []byte) error {
	if t.w == nil && t.mem.Len()+len(b) <= t.limit {
		t.mem.Write(b)
		return nil
	}
	if t.w == nil {
		dir, err := os.MkdirTemp(t.tmpDir, "ksleuth-"+t.name+"-")
		if err != nil {
			return fmt.Errorf("dups: spill: %w", err)
		}
		t.dir = dir
		f, err := os.OpenFile(filepath.Join(dir, "tape"), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
		if err != nil {
			return fmt.Errorf("dups: spill: %w", err)
		}
		t.f, t.w = f, bufio.NewWriterSize(f, spillBuf)
		t.files++
		t.bytes += int64(t.mem.Len())
		if _, err := t.w.Write(t.mem.Bytes()); err != nil {
			return fmt.Errorf("dups: spill: %w", err)
		}
		t.mem = bytes.Buffer{}
	}
	t.bytes += int64(len(b))
	if _, err := t.w.Write(b); err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	return nil
}

// rewind ends the writing; reads start from the beginning.
func (t *tape) rewind() error {
	if t.w == nil {
		t.r = bufio.NewReader(&t.mem)
		return nil
	}
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	t.r = bufio.NewReaderSize(t.f, spillBuf)
	return nil
}

// read fills b; io.EOF at the end.
func (t *tape) read(b []byte) error {
	_, err := io.ReadFull(t.r, b)
	if err == io.ErrUnexpectedEOF {
		return errors.New("dups: spill: tape cut short")
	}
	return err
}

func (t *tape) close() error {
	t.mem = bytes.Buffer{}
	var err error
	if t.f != nil {
		err = t.f.Close()
		t.f = nil
	}
	if t.dir != "" {
		err = errors.Join(err, os.RemoveAll(t.dir))
		t.dir = ""
	}
	return err
}

// store holds fixed-size values appended in order and read back by index,
// in memory up to limit bytes and in a file beyond.
type store struct {
	tape
	size int
	n    int64
}

func (s *store) add(b []byte) (int64, error) {
	if err := s.write(b); err != nil {
		return 0, err
	}
	s.n++
	return s.n - 1, nil
}

// done ends the adding.
func (s *store) done() error {
	if s.w != nil {
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("dups: spill: %w", err)
		}
	}
	return nil
}

func (s *store) get(i int64, b []byte) error {
	if i < 0 || i >= s.n {
		return fmt.Errorf("dups: store: value %d of %d", i, s.n)
	}
	off := i * int64(s.size)
	if s.f == nil {
		copy(b, s.mem.Bytes()[off:off+int64(s.size)])
		return nil
	}
	if _, err := s.f.ReadAt(b[:s.size], off); err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	return nil
}
