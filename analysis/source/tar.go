package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/finding"
)

// The tar reader is ksleuth's own rather than archive/tar's: a forensic
// read needs what that package keeps to itself. It needs the stream offset
// of every header (for findings), the sparse map of a sparse entry (so a
// declared terabyte of holes is skipped, not read as zeros), the bytes
// after an end-of-archive marker (concatenated archives and trailing
// data), and a context check inside long entries. It reads ustar, old GNU
// and PAX headers, GNU long names, base-256 numbers, and the sparse forms
// old GNU, PAX 0.0, 0.1 and 1.0.

const blockSize = 512

// maxMetaBytes bounds the PAX records, GNU long names and sparse maps of
// one entry held in memory: real ones are a few hundred bytes.
const maxMetaBytes = 1 << 20

// maxSparseEntries bounds a sparse map (each entry is two numbers).
const maxSparseEntries = 1 << 16

// Errors of the tar structure itself.
var (
	errBadHeader     = errors.New("tar header checksum mismatch or invalid field")
	errMetaTooLarge  = fmt.Errorf("tar extended header or long name larger than %d bytes", maxMetaBytes)
	errBadSparse     = errors.New("invalid sparse map")
	errTruncatedData = errors.New("tar stream ends inside an entry")
)

// tarHeader is one file entry as the reader found it.
type tarHeader struct {
	name, linkname string
	typeflag       byte
	// size is the file's logical size; phys the bytes stored after the
	// header (they differ for sparse entries).
	size, phys int64
	// sparse lists the data ranges of a sparse entry (nil for any other).
	sparse []DataRange
	// offset is the stream position of the entry's first header block
	// (its PAX or long-name header, if any).
	offset int64
	// warnings are problems found while skipping to this header.
	warnings []Warning
}

// countReader counts the bytes read through it, and notes the end.
type countReader struct {
	r   io.Reader
	n   int64
	eof bool
}

func (c *countReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	if err == io.EOF {
		c.eof = true
	}
	return k, err
}

// tarReader walks the headers of a tar stream, including the archives that
// follow an end-of-archive marker, as `tar --ignore-zeros` does.
type tarReader struct {
	r   *countReader
	blk [blockSize]byte
	// zeros counts the zero blocks read since the last header.
	zeros int
	// headers counts the headers read, to tell "not a tar archive" from
	// damage inside one.
	headers int
	// layer is the compression the stream comes out of, "" for none: it
	// says what the positions in messages count.
	layer string
}

// endState says how next found the end of the stream.
type endState int

const (
	endClean    endState = iota // after an end-of-archive marker
	endNoMarker                 // at an entry boundary, without the marker
	endTrailing                 // data that is no tar header after the marker
)

// tarEnd is returned by next at the end of the stream.
type tarEnd struct {
	state endState
	// at is the stream offset of the trailing data, n its length.
	at, n int64
}

func (e *tarEnd) Error() string { return "end of tar stream" }

// readBlock reads the next 512 bytes. It returns io.EOF when the stream
// ends at the block boundary and errTruncatedData when it ends inside the
// block; any other error is the input's own (a compressed stream's
// damage), passed on as it is: io.ReadFull would turn a decompressor's
// io.ErrUnexpectedEOF and a short plain stream into the same error.
func (t *tarReader) readBlock() error {
	n := 0
	for n < blockSize {
		k, err := t.r.Read(t.blk[n:])
		n += k
		switch {
		case err == io.EOF && n == 0:
			return io.EOF
		case err == io.EOF && n < blockSize:
			return errTruncatedData
		case err != nil && err != io.EOF:
			return err
		case err == io.EOF:
			return nil
		}
	}
	return nil
}

// next returns the next file entry's header, with the reader at its data.
// At the end of the stream it returns a *tarEnd.
func (t *tarReader) next() (*tarHeader, error) {
	var (
		pax      map[string]string
		sparse00 []int64 // PAX 0.0 offset, numbytes pairs, in order
		longName string
		longLink string
		haveLong [2]bool
		start    int64 = -1
		warns    []Warning
	)
	for {
		at := t.r.n
		err := t.readBlock()
		if (err == io.EOF || err == errTruncatedData) && t.headers == 0 && t.zeros == 0 {
			return nil, ErrNotTar // empty, or shorter than one header
		}
		if err == errTruncatedData && start < 0 && t.zeros >= 2 {
			// Less than a block after the end marker.
			return nil, &tarEnd{state: endTrailing, at: at, n: t.r.n - at}
		}
		if err == io.EOF {
			switch {
			case start >= 0:
				return nil, errTruncatedData
			case t.zeros >= 2:
				return nil, &tarEnd{state: endClean}
			}
			return nil, &tarEnd{state: endNoMarker}
		}
		if err != nil {
			return nil, err
		}
		if isZeroBlock(t.blk[:]) {
			if start >= 0 {
				return nil, errBadHeader // a zero block between an extended header and its file
			}
			t.zeros++
			continue
		}
		if !validHeader(t.blk[:]) {
			if start >= 0 || t.zeros < 2 {
				if t.headers == 0 && t.zeros == 0 {
					return nil, ErrNotTar
				}
				return nil, errBadHeader
			}
			// Data after an end-of-archive marker that is no header: skip
			// to the next header, as tar --ignore-zeros does, or to the end.
			from := at
			found, err := t.skipGarbage()
			if err != nil {
				return nil, err
			}
			if !found {
				return nil, &tarEnd{state: endTrailing, at: from, n: t.r.n - from}
			}
			warns = append(warns, Warning{finding.KindArchiveTrailingData,
				fmt.Sprintf("%d bytes after an end-of-archive marker at %s are no tar header; skipped to the next header", t.r.n-blockSize-from, streamPos(t.layer, from))})
			at = t.r.n - blockSize
		}
		t.zeros = 0
		t.headers++
		if start < 0 {
			start = at
		}
		flag := t.blk[156]
		size, ok := parseNumber(t.blk[124:136])
		if !ok || size < 0 {
			return nil, errBadHeader
		}
		switch flag {
		case 'x', 'g', 'L', 'K':
			data, err := t.readMeta(size)
			if err != nil {
				return nil, err
			}
			switch flag {
			case 'x':
				if pax, sparse00, err = parsePAX(data); err != nil {
					return nil, err
				}
			case 'L':
				longName, haveLong[0] = cString(data), true
			case 'K':
				longLink, haveLong[1] = cString(data), true
			}
			if flag == 'g' {
				start = -1 // a global header stands on its own
			}
			continue
		}
		h := &tarHeader{typeflag: flag, size: size, phys: size, offset: start, warnings: warns}
		h.name = headerName(t.blk[:])
		h.linkname = cString(t.blk[157:257])
		if haveLong[0] {
			h.name = longName
		}
		if haveLong[1] {
			h.linkname = longLink
		}
		if err := applyPAX(h, pax); err != nil {
			return nil, err
		}
		if flag == 'S' {
			if err := t.oldGNUSparse(h); err != nil {
				return nil, err
			}
		}
		if flag != 'S' && pax != nil {
			if err := t.paxSparse(h, pax, sparse00); err != nil {
				return nil, err
			}
		}
		if headerOnly(flag) {
			// Links, dirs, devices and FIFOs store no data whatever their
			// size field says.
			h.size, h.phys, h.sparse = 0, 0, nil
		}
		return h, nil
	}
}

// headerOnly reports whether entries of a type store no data.
func headerOnly(flag byte) bool {
	switch flag {
	case '1', '2', '3', '4', '5', '6':
		return true
	}
	return false
}

// skipGarbage reads blocks until one is a valid header (left in t.blk) or
// the stream ends. Anything other than a clean end is an error.
func (t *tarReader) skipGarbage() (bool, error) {
	for {
		err := t.readBlock()
		if err == io.EOF {
			return false, nil
		}
		if err == errTruncatedData {
			return false, nil // a last partial block is garbage too
		}
		if err != nil {
			return false, err
		}
		if !isZeroBlock(t.blk[:]) && validHeader(t.blk[:]) {
			return true, nil
		}
	}
}

// readMeta reads an entry's data of at most maxMetaBytes, with padding.
func (t *tarReader) readMeta(size int64) ([]byte, error) {
	if size > maxMetaBytes {
		return nil, errMetaTooLarge
	}
	// Read, not allocated from the header's size: a lying size costs
	// only the bytes really there.
	data, err := io.ReadAll(io.LimitReader(t.r, size))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) < size {
		return nil, errTruncatedData
	}
	return data, t.skipPad(size)
}

// skipPad reads the padding after n bytes of entry data.
func (t *tarReader) skipPad(n int64) error {
	if pad := (blockSize - n%blockSize) % blockSize; pad > 0 {
		if _, err := io.ReadFull(t.r, t.blk[:pad]); err != nil {
			return truncated(err)
		}
	}
	return nil
}

func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errTruncatedData
	}
	return err
}

// oldGNUSparse reads the sparse map of an old GNU sparse header ('S'):
// four entries in the header, more in extension blocks after it.
func (t *tarReader) oldGNUSparse(h *tarHeader) error {
	var pairs []int64
	addEntries := func(b []byte, n int) error {
		for i := range n {
			e := b[i*24 : i*24+24]
			if e[0] == 0 {
				break
			}
			off, ok1 := parseNumber(e[:12])
			num, ok2 := parseNumber(e[12:24])
			if !ok1 || !ok2 {
				return errBadSparse
			}
			if len(pairs) >= 2*maxSparseEntries {
				return errBadSparse
			}
			pairs = append(pairs, off, num)
		}
		return nil
	}
	if err := addEntries(t.blk[386:482], 4); err != nil {
		return err
	}
	real, ok := parseNumber(t.blk[483:495])
	if !ok {
		return errBadSparse
	}
	for ext := t.blk[482] != 0; ext; {
		if err := t.readBlock(); err != nil {
			return truncated(err)
		}
		if err := addEntries(t.blk[:504], 21); err != nil {
			return err
		}
		ext = t.blk[504] != 0
	}
	h.size = real
	return setSparse(h, pairs)
}

// paxSparse reads a PAX sparse entry's map: from the records (0.0 and
// 0.1) or from the start of its data (1.0).
func (t *tarReader) paxSparse(h *tarHeader, pax map[string]string, sparse00 []int64) error {
	major, hasMajor := pax["GNU.sparse.major"]
	minor := pax["GNU.sparse.minor"]
	mapText, hasMap := pax["GNU.sparse.map"]
	if !hasMajor && !hasMap && sparse00 == nil {
		return nil
	}
	if n, ok := pax["GNU.sparse.name"]; ok {
		h.name = n
	}
	real := pax["GNU.sparse.realsize"]
	if real == "" {
		real = pax["GNU.sparse.size"]
	}
	if real != "" {
		v, err := strconv.ParseInt(real, 10, 64)
		if err != nil || v < 0 {
			return errBadSparse
		}
		h.size = v
	}
	switch {
	case major == "1" && minor == "0":
		pairs, used, err := t.sparseMap10(h.phys)
		if err != nil {
			return err
		}
		h.phys -= used
		return setSparse(h, pairs)
	case hasMap:
		var pairs []int64
		if mapText != "" {
			fields := strings.Split(mapText, ",")
			if len(fields)%2 != 0 || len(fields) > 2*maxSparseEntries {
				return errBadSparse
			}
			for _, f := range fields {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return errBadSparse
				}
				pairs = append(pairs, v)
			}
		}
		return setSparse(h, pairs)
	case sparse00 != nil:
		return setSparse(h, sparse00)
	}
	return nil
}

// sparseMap10 reads the PAX 1.0 sparse map from the start of the entry's
// data: a count and that many offset, size pairs, one decimal number a
// line, padded to a block. It returns the pairs and the bytes used.
func (t *tarReader) sparseMap10(phys int64) ([]int64, int64, error) {
	var (
		buf   []byte
		used  int64
		nums  []int64
		count int64 = -1
	)
	for count < 0 || int64(len(nums)) < 2*count {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			if used+blockSize > phys || used+blockSize > maxMetaBytes {
				return nil, 0, errBadSparse
			}
			if err := t.readBlock(); err != nil {
				return nil, 0, truncated(err)
			}
			used += blockSize
			buf = append(buf, t.blk[:]...)
			continue
		}
		v, err := strconv.ParseInt(string(buf[:i]), 10, 64)
		if err != nil || v < 0 {
			return nil, 0, errBadSparse
		}
		buf = buf[i+1:]
		if count < 0 {
			if v > maxSparseEntries {
				return nil, 0, errBadSparse
			}
			count = v
			continue
		}
		nums = append(nums, v)
	}
	return nums, used, nil
}

// setSparse checks a sparse map (offset, size pairs) against the entry's
// sizes and stores it. The data stored must add up to what the archive
// holds, in order and inside the file.
func setSparse(h *tarHeader, pairs []int64) error {
	if len(pairs)%2 != 0 {
		return errBadSparse
	}
	ranges := make([]DataRange, 0, len(pairs)/2)
	var end, total int64
	for i := 0; i < len(pairs); i += 2 {
		off, n := pairs[i], pairs[i+1]
		if off < end || n < 0 || off > h.size || n > h.size-off {
			return errBadSparse
		}
		end = off + n
		total += n
		if n > 0 {
			ranges = append(ranges, DataRange{Start: off, End: end})
		}
	}
	if total != h.phys {
		return errBadSparse
	}
	h.sparse = ranges
	return nil
}

// applyPAX applies the path, linkpath and size records to a header.
func applyPAX(h *tarHeader, pax map[string]string) error {
	if v, ok := pax["path"]; ok {
		h.name = v
	}
	if v, ok := pax["linkpath"]; ok {
		h.linkname = v
	}
	if v, ok := pax["size"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return errBadHeader
		}
		h.size, h.phys = n, n
	}
	return nil
}

// parsePAX parses PAX records ("<len> <key>=<value>\n"). The repeated
// GNU.sparse.offset and GNU.sparse.numbytes records of sparse format 0.0
// are returned in order as pairs.
func parsePAX(data []byte) (map[string]string, []int64, error) {
	recs := map[string]string{}
	var pairs []int64
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 || sp > 20 {
			return nil, nil, errBadHeader
		}
		n, err := strconv.Atoi(string(data[:sp]))
		if err != nil || n <= sp+1 || n > len(data) || data[n-1] != '\n' {
			return nil, nil, errBadHeader
		}
		rec := data[sp+1 : n-1]
		data = data[n:]
		eq := bytes.IndexByte(rec, '=')
		if eq <= 0 {
			return nil, nil, errBadHeader
		}
		k, v := string(rec[:eq]), string(rec[eq+1:])
		switch k {
		case "GNU.sparse.offset", "GNU.sparse.numbytes":
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil || len(pairs) >= 2*maxSparseEntries {
				return nil, nil, errBadSparse
			}
			// Offsets and sizes alternate; a size without its offset
			// (or the reverse) breaks the pairing.
			if (k == "GNU.sparse.offset") != (len(pairs)%2 == 0) {
				return nil, nil, errBadSparse
			}
			pairs = append(pairs, x)
		default:
			recs[k] = v
		}
	}
	if pairs == nil {
		if _, ok := recs["GNU.sparse.numblocks"]; ok {
			pairs = []int64{}
		}
	}
	return recs, pairs, nil
}

// headerName is the name of a ustar or GNU header: a POSIX ustar header
// puts a prefix before it; a GNU header uses those bytes for other fields.
func headerName(b []byte) string {
	name := cString(b[0:100])
	if string(b[257:263]) == "ustar\x00" {
		if p := cString(b[345:500]); p != "" {
			name = p + "/" + name
		}
	}
	return name
}

// cString is b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func isZeroBlock(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// validHeader checks a header block's checksum: the sum of its bytes with
// the checksum field read as spaces, unsigned or (old tars) signed.
func validHeader(b []byte) bool {
	want, ok := parseOctal(b[148:156])
	if !ok {
		return false
	}
	var u, s int64
	for i, c := range b[:blockSize] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		u += int64(c)
		s += int64(int8(c))
	}
	return want == u || want == s
}

// parseNumber reads a numeric header field: octal text, or base-256 when
// the first byte's high bit is set (GNU, for values octal cannot hold).
func parseNumber(b []byte) (int64, bool) {
	if len(b) > 0 && b[0]&0x80 != 0 {
		if b[0] == 0xff {
			return 0, false // negative
		}
		var v uint64
		for i, c := range b {
			if i == 0 {
				c &= 0x7f
			}
			if v > math.MaxInt64>>8 {
				return 0, false
			}
			v = v<<8 | uint64(c)
		}
		if v > math.MaxInt64 {
			return 0, false
		}
		return int64(v), true
	}
	return parseOctal(b)
}

// parseOctal reads octal digits between optional spaces and NULs; an
// empty field is 0.
func parseOctal(b []byte) (int64, bool) {
	s := strings.Trim(string(b), " \x00")
	if s == "" {
		return 0, true
	}
	v, err := strconv.ParseInt(s, 8, 64)
	return v, err == nil && v >= 0
}
