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
)

// Spilling: entries are written to fanout files by 6 bits of their
// fingerprint (level 0: the leading 6 bits). A file too large for the
// budget is split again on the next 6 bits; files are processed in bucket
// order, so groups come out in fingerprint order just as in memory. A
// file still too large after maxLevels splits holds (nearly) one huge
// group and is grouped in memory anyway.
const (
	fanout     = 64
	fanoutBits = 6
	maxLevels  = 4
	spillBuf   = 8 << 10
)

type spill struct {
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
	clear(b[51:recordBytes])
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
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("dups: spill: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, spillBuf)
	var b [recordBytes]byte
	if n <= int64(d.maxBuf) || level+1 >= maxLevels {
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
