package segment

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// stepStreamed handles a v2 batch over StreamThreshold: its header is
// yielded and its records are read from the input as they are decoded.
func (r *Reader) stepStreamed(pos, total int64) bool {
	w := &r.w
	if w.fill(BatchHeaderSize) < BatchHeaderSize {
		if w.err != nil {
			return r.ioFail(w.err)
		}
		return r.damaged(pos, detail(ErrTruncated, "batch header cut short"))
	}
	if r.size >= 0 && pos+total > r.size {
		return r.damaged(pos, detail(ErrTruncated, "batch of %d bytes, only %d left in the file", total, r.size-pos))
	}
	copy(r.hdr[:], w.peek(BatchHeaderSize))
	b := &r.batch
	*b = Batch{Position: pos, path: r.opts.Path, data: r.hdr[:], streamed: true, stream: &r.stream}
	b.parseV2Header(r.hdr[:])
	deferred := true
	b.CRCValid = true
	if r.ra != nil {
		crc, err := r.raCRC(pos+crcStartV2, total-crcStartV2)
		if err != nil {
			return r.ioFail(err)
		}
		deferred = false
		b.ComputedCRC = crc
		b.CRCValid = crc == b.CRC
		if !b.CRCValid && (!r.raConfinedAt(pos+total) || r.raValidInside(pos, total)) {
			return r.damaged(pos, detail(ErrCRC, "stored %#08x computed %#08x, and no batch where its length ends",
				b.CRC, b.ComputedCRC))
		}
	}
	w.discard(BatchHeaderSize)
	r.stream.start(b, total-BatchHeaderSize, deferred)
	if !b.CRCValid {
		return r.yieldBatch(b.corrupt(ErrCRC, "stored %#08x computed %#08x", b.CRC, b.ComputedCRC))
	}
	return r.yieldBatch(nil)
}

// probeSlack is the longest candidate batch read into the window to check
// it while resynchronizing; longer ones are checked with ReadAt where the
// input allows it.
const probeSlack = 1 << 20

// raCandidateValid is validBatch for a candidate at window position i of
// total bytes, checked with ReadAt: a legacy entry's shape (from the
// window where its length fields are near, with ReadAt beyond), then the
// CRC of either kind.
func (r *Reader) raCandidateValid(i int, h []byte, total int64) bool {
	w := &r.w
	pos := w.pos + int64(i)
	// Read from h before anything fills the window, which may move the
	// bytes h points at.
	magic, stored := h[16], binary.BigEndian.Uint32(h[12:])
	if magic == 2 {
		r.probed += total
		return r.raValid(pos, total, 2)
	}
	if r.size >= 0 && pos+total > r.size {
		return false
	}
	shaped := legacyShape(magic, total, func(off int64) (uint32, bool) {
		switch {
		case off+4 <= int64(len(h)):
			return binary.BigEndian.Uint32(h[off:]), true
		case off+4 <= 64<<10 && w.fill(i+int(off)+4) >= i+int(off)+4:
			return binary.BigEndian.Uint32(w.span(i+int(off), 4)), true
		}
		var b [4]byte
		_, err := r.ra.ReadAt(b[:], r.base+pos+off)
		return binary.BigEndian.Uint32(b[:]), err == nil
	})
	if !shaped {
		return false
	}
	r.probed += total
	crc, err := r.raSum(pos+crcStartLegacy, total-crcStartLegacy, func(c uint32, b []byte) uint32 { return crc32.Update(c, crc32.IEEETable, b) })
	return err == nil && crc == stored
}

// raCRC computes the v2 CRC of n bytes at pos with ReadAt, in chunks.
func (r *Reader) raCRC(pos, n int64) (uint32, error) { return r.raSum(pos, n, crc32c) }

// raSum folds n bytes from pos, read with ReadAt a chunk at a time, into
// a checksum with update.
func (r *Reader) raSum(pos, n int64, update func(uint32, []byte) uint32) (uint32, error) {
	if cap(r.scratch) < 1<<20 {
		r.scratch = make([]byte, 1<<20)
	}
	buf := r.scratch[:cap(r.scratch)]
	var crc uint32
	for n > 0 {
		k := int64(len(buf))
		if k > n {
			k = n
		}
		m, err := r.ra.ReadAt(buf[:k], r.base+pos)
		crc = update(crc, buf[:m])
		if int64(m) < k {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return crc, err
		}
		pos += k
		n -= k
	}
	return crc, nil
}

func (r *Reader) raValid(pos, total int64, magic byte) bool {
	if magic != 2 || (r.size >= 0 && pos+total > r.size) {
		return false
	}
	var h [21]byte
	if _, err := r.ra.ReadAt(h[:], r.base+pos); err != nil {
		return false
	}
	crc, err := r.raCRC(pos+crcStartV2, total-crcStartV2)
	return err == nil && crc == binary.BigEndian.Uint32(h[17:])
}

// raValidInside is validInside for a streamed batch: it scans the batch's
// bytes with ReadAt, a chunk at a time, for a checksum-valid batch
// starting inside it.
func (r *Reader) raValidInside(pos, total int64) bool {
	const chunk = 1 << 20
	buf := make([]byte, chunk+BatchHeaderSize)
	for base := pos + 1; base < pos+total-17; base += chunk {
		n, _ := r.ra.ReadAt(buf, r.base+base)
		for i := 0; i < n-17 && i < chunk && base+int64(i) < pos+total-17; i++ {
			h := buf[i:n]
			if h[16] > 2 {
				continue
			}
			t, ok := plausible(h, r.opts.MaxBatchBytes)
			if !ok || !likelyHeader(h) {
				continue
			}
			at := base + int64(i)
			if h[16] == 2 && r.raValid(at, t, 2) {
				return true
			}
			if h[16] < 2 && t <= r.opts.StreamThreshold {
				m := make([]byte, t)
				if _, err := r.ra.ReadAt(m, r.base+at); err == nil && checksumOK(m) {
					return true
				}
			}
		}
	}
	return false
}

// raConfinedAt is confinedAfter for a streamed batch ending at pos.
func (r *Reader) raConfinedAt(pos int64) bool {
	if r.size >= 0 && pos >= r.size {
		return true
	}
	var h [17]byte
	n, _ := r.ra.ReadAt(h[:], r.base+pos)
	if n < 17 || isZero(h[:]) {
		return true
	}
	total, ok := plausible(h[:], r.opts.MaxBatchBytes)
	if !ok {
		return false
	}
	if h[16] == 2 {
		return r.raValid(pos, total, 2)
	}
	if total > r.opts.StreamThreshold {
		return false
	}
	buf := make([]byte, total)
	if _, err := r.ra.ReadAt(buf, r.base+pos); err != nil {
		return false
	}
	return checksumOK(buf)
}

// batchStream reads the remaining bytes of a streamed batch from the
// window, computing the CRC as it goes when it could not be checked first.
type batchStream struct {
	r         *Reader
	b         Batch // header copy for findings
	active    bool
	remaining int64
	deferred  bool
	crc       uint32
	ioErr     error
}

func (s *batchStream) start(b *Batch, n int64, deferred bool) {
	s.b = *b
	s.active, s.remaining, s.deferred, s.ioErr = true, n, deferred, nil
	// The CRC covers the header from byte 21 on.
	s.crc = crc32c(0, s.r.hdr[crcStartV2:])
}

func (s *batchStream) Read(p []byte) (int, error) {
	if s.remaining <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.remaining {
		p = p[:s.remaining]
	}
	n, err := s.r.w.read(p)
	if s.deferred {
		s.crc = crc32c(s.crc, p[:n])
	}
	s.remaining -= int64(n)
	if err == io.EOF && s.remaining > 0 {
		return n, detail(ErrTruncated, "streamed batch ends %d bytes early", s.remaining)
	}
	if err != nil && err != io.EOF {
		s.ioErr = err
	}
	if s.remaining == 0 {
		return n, nil
	}
	return n, err
}

// finish drains what the records did not read and returns the deferred
// CRC verdict (or a truncation) as a finding.
func (s *batchStream) finish() error {
	if !s.active {
		return nil
	}
	s.active = false
	var buf [32 << 10]byte
	for s.remaining > 0 {
		_, err := s.Read(buf[:])
		if err != nil {
			if s.ioErr != nil {
				return s.ioErr
			}
			s.r.done = true
			return s.b.corrupt(ErrTruncated, "the file ends inside this %d-byte batch", s.b.Size())
		}
	}
	if s.deferred && s.crc != s.b.CRC {
		return s.b.corrupt(ErrCRC, "stored %#08x computed %#08x (found after its records were read)", s.b.CRC, s.crc)
	}
	return nil
}

// ---- window: a sliding buffer over the input ----
