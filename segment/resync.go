package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// validBatch reports whether a whole, checksum-valid batch starts at byte
// i of the window (i relative to the current position). Used while
// resynchronising, so it first rejects headers that merely look plausible
// (see likelyHeader) before paying for a checksum over the claimed length.
func (r *Reader) validBatch(i int) bool {
	w := &r.w
	got := w.fill(i+BatchHeaderSize) - i
	if got < 17 {
		return false
	}
	h := w.span(i, got)
	total, ok := plausible(h, r.opts.MaxBatchBytes)
	if !ok || !likelyHeader(h) {
		return false
	}
	if r.size >= 0 && w.pos+int64(i)+total > r.size {
		return false
	}
	if r.streams(total, h[16]) {
		return r.ra != nil && r.raValid(w.pos+int64(i), total, h[16])
	}
	if r.ra != nil && total > probeSlack {
		// A length read from damaged bytes must not grow the window: a
		// long candidate is checked where it lies, and only a valid one is
		// then read into the window.
		return r.raCandidateValid(i, h, total)
	}
	if int64(w.fill(i+int(total))) < int64(i)+total {
		return false
	}
	data := w.span(i, int(total)) // h may be stale: fill can move the bytes
	if data[16] != 2 && !legacyShapeOK(data) {
		return false
	}
	r.probed += total
	return checksumOK(data)
}

// legacyShapeOK reports whether a legacy entry's key and value lengths add
// up to its message size exactly, as in every message a client or broker
// writes. Inside v2 batches (offsets, lengths, timestamps) a magic of 0 or
// 1 with a plausible size is common; without this a scan of a long damaged
// stretch checked the CRC over such sizes at every few bytes, quadratic in
// the stretch.
func legacyShapeOK(data []byte) bool {
	return legacyShape(data[16], int64(len(data)), func(off int64) (uint32, bool) {
		return binary.BigEndian.Uint32(data[off:]), true
	})
}

// legacyShape is legacyShapeOK for an entry of total bytes and the given
// magic whose 4-byte fields u32 reads at an offset from its start.
func legacyShape(magic byte, total int64, u32 func(off int64) (uint32, bool)) bool {
	p := int64(18)
	if magic == 1 {
		p += 8
	}
	for range 2 { // key, then value
		if total-p < 4 {
			return false
		}
		v, ok := u32(p)
		if !ok {
			return false
		}
		n := int64(int32(v))
		p += 4
		if n > total-p {
			return false
		}
		p += max(n, 0) // any negative length is null, as Kafka reads it
	}
	return p == total
}

// likelyHeader applies the checks a real header always passes beyond
// plausible: unused attribute bits clear, a known codec, and for magic 2 a
// non-negative last offset delta and a record count that fits it. Random
// bytes pass this about once in a million positions, which keeps scanning
// damaged regions linear in practice.
func likelyHeader(h []byte) bool {
	switch h[16] {
	case 2:
		if len(h) < BatchHeaderSize {
			return false
		}
		attrs := binary.BigEndian.Uint16(h[21:])
		lod := int32(binary.BigEndian.Uint32(h[23:]))
		count := int32(binary.BigEndian.Uint32(h[57:]))
		return attrs&0xff80 == 0 && attrs&attrCodecMask <= uint16(CodecZstd) &&
			lod >= 0 && count >= 0 && int64(count) <= int64(lod)+1
	case 1:
		return len(h) >= 18 && h[17]&0xf0 == 0 && h[17]&attrCodecMask <= byte(CodecLZ4)
	case 0:
		return len(h) >= 18 && h[17]&0xf8 == 0 && h[17]&attrCodecMask <= byte(CodecLZ4)
	}
	return false
}

// plausible checks a 17-byte header prefix and returns the entry size.
func plausible(h []byte, maxLen int64) (int64, bool) {
	if int64(binary.BigEndian.Uint64(h)) < 0 {
		return 0, false
	}
	length := int32(binary.BigEndian.Uint32(h[8:]))
	minLen, ok := minLength(int8(h[16]))
	if !ok || length < minLen || int64(length) > maxLen {
		return 0, false
	}
	return LogOverhead + int64(length), true
}

func checksumOK(data []byte) bool {
	if data[16] == 2 {
		return crc32c(0, data[crcStartV2:]) == binary.BigEndian.Uint32(data[17:])
	}
	return crc32.ChecksumIEEE(data[crcStartLegacy:]) == binary.BigEndian.Uint32(data[12:])
}

// confinedAfter reports whether the damage of a batch with a bad CRC stays
// inside it: what follows at its end is end of input, zeros, or a whole
// valid batch. Then its length is trusted and reading goes on there; a
// merely plausible header is not enough, since a damaged length can land
// on bytes that look like one.
func (r *Reader) confinedAfter(total int) bool {
	w := &r.w
	got := w.fill(total + 17)
	if got == total {
		return true
	}
	if got < total+17 {
		return true // a short tail: reported at the next step
	}
	if isZero(w.peek(total + 17)[total:]) {
		return true
	}
	return r.validBatch(total)
}

// validInside reports whether a checksum-valid batch starts inside the
// first total bytes of the window. A batch with a bad CRC whose length
// swallows an intact batch cannot be trusted even when a valid batch
// follows where it ends: the "batch" may be a damaged or stray header in
// front of intact data (found by FuzzSpliceGarbage).
func (r *Reader) validInside(total int) bool {
	for i := 1; i+17 <= total; i++ {
		// Peek afresh: validBatch may move the window's buffer.
		if r.w.peek(i + 17)[i+16] <= 2 && r.validBatch(i) {
			return true
		}
	}
	return false
}

// resync scans forward from pos (the current position, where damage was
// found) for the next valid batch, consumes the bytes in between and
// returns one finding covering them with the given cause.
func (r *Reader) resync(pos int64, cause error) *CorruptionError {
	w := &r.w
	i := 1
	zero := isZero(w.peek(1))
	h, hole := r.nextHole(pos)
	for {
		if i > 4<<20 {
			// Keep the window bounded while scanning long damage: nothing
			// before candidate i can start a batch any more.
			w.discard(i - 1)
			i = 1
			if r.opts.Skipped != nil {
				r.opts.Skipped(w.pos)
			}
			if r.opts.Interrupt != nil {
				if err := r.opts.Interrupt(); err != nil {
					r.err, r.done = err, true
					return nil
				}
			}
		}
		if hole && w.pos+int64(i) >= h.Start {
			// The damage ends where the hole begins: zeros up to it are
			// part of the hole's finding, anything else has its own.
			w.discard(int(h.Start - w.pos))
			if zero {
				if !r.passHole(pos, h) {
					return nil
				}
				return r.finding
			}
			return &CorruptionError{Path: r.opts.Path, Offset: pos, Length: h.Start - pos, BaseOffset: -1,
				Err: fmt.Errorf("%w (%d bytes skipped to a hole at byte %d)", cause, h.Start-pos, h.Start)}
		}
		if w.fill(i+17) < i+17 {
			if w.err != nil {
				r.ioFail(w.err)
				return nil
			}
			// Fewer than a header's bytes remain: the damage runs to EOF.
			rest := w.fill(i + 17)
			zero = zero && isZero(w.peek(rest)[i:])
			w.discard(rest)
			r.done = true
			length := w.pos - pos
			if zero {
				return &CorruptionError{Path: r.opts.Path, Offset: pos, Length: length, BaseOffset: -1,
					Err: detail(ErrZeroTail, "%d zero bytes to the end of the file", length)}
			}
			return &CorruptionError{Path: r.opts.Path, Offset: pos, Length: length, BaseOffset: -1,
				Err: fmt.Errorf("%w; no valid batch in the %d bytes after it", cause, length)}
		}
		// Skip zero runs fast, over everything buffered: a batch starts at
		// most 11 bytes before the first non-zero byte (its length field is
		// never zero).
		// At most 4 MiB at a time: a mapped file is buffered whole, and
		// its zeros (a hole of a terabyte) pass the checks at the top of
		// the loop between steps.
		buf := w.buf[w.off:w.end]
		if buf[i] == 0 {
			j, lim := i, min(len(buf), i+4<<20)
			if hole {
				lim = int(min(int64(lim), h.Start-w.pos)) // never into the hole
			}
			for j+8 <= lim && binary.LittleEndian.Uint64(buf[j:]) == 0 {
				j += 8
			}
			for j < lim && buf[j] == 0 {
				j++
			}
			if j-11 > i {
				i = j - 11
				continue
			}
		} else {
			zero = false
		}
		if buf[i+16] <= 2 && r.validBatch(i) {
			skipped := w.pos + int64(i) - pos
			w.discard(i)
			if errors.Is(cause, ErrTruncated) {
				// Not a torn tail after all: intact data follows, so the
				// length that ran past the end was itself damaged.
				cause = detail(ErrBadLength, "%v", cause)
			}
			f := &CorruptionError{Path: r.opts.Path, Offset: pos, Length: skipped, BaseOffset: -1}
			if zero {
				f.Err = fmt.Errorf("%w (%d zero bytes skipped)", cause, skipped)
			} else {
				f.Err = fmt.Errorf("%w (%d bytes skipped to the next valid batch at byte %d)", cause, skipped, pos+skipped)
			}
			return f
		}
		i++
	}
}

// tailFinding consumes the rest of the input and reports it.
func (r *Reader) tailFinding(pos int64, cause error, format string, args ...any) *CorruptionError {
	w := &r.w
	n := w.fill(1 << 20)
	zero := isZero(w.peek(n))
	w.discard(n)
	r.done = true
	if zero {
		return &CorruptionError{Path: r.opts.Path, Offset: pos, Length: int64(n), BaseOffset: -1,
			Err: detail(ErrZeroTail, "%d zero bytes to the end of the file", n)}
	}
	return &CorruptionError{Path: r.opts.Path, Offset: pos, Length: int64(n), BaseOffset: -1,
		Err: detail(cause, format, args...)}
}

func isZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// ---- streamed batches ----
