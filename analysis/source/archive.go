package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/ksleuth/ksleuth/analysis/finding"
)

// maxZstdWindow bounds the memory a hostile .tar.zst may make the decoder
// allocate for its window; zstd's own default limit for streams is 8 MiB,
// and `zstd --long` archives use up to 128 MiB (--long=27).
const maxZstdWindow = 1 << 28

// ArchiveError is a problem with an archive's own structure. Damage (a
// truncated or corrupt tar or compression stream) stops the read: the
// entries before it were read, the rest cannot be. Trailing data after
// the last end-of-archive marker (ErrTrailingData) comes after every
// entry was read, and is a warning. Offset is the position in the tar
// stream (after decompression) where the problem is.
type ArchiveError struct {
	Path   string
	Offset int64
	Err    error
	// Layer is the compression around the tar stream ("gzip", "zstd"),
	// "" for a plain tar, whose tar positions are the file's own.
	Layer string
	// Read is how many bytes of the archive file the decoder had taken
	// when the problem was found, -1 when not known; ReadAll says it had
	// taken the whole file. A decoder reads ahead of what it hands on
	// (zstd a whole block), so Read bounds the fault's place in the file
	// from above: it is not that place.
	Read    int64
	ReadAll bool
	// Last is the path of the last entry header read before the problem,
	// "" when none; a dir's ends in "/". Archive writers put a dir's
	// entries together, so it names the dir the archive ended inside,
	// which the last file entry passed on may not (a dir header, or a
	// file whose data could not be read, came after it).
	Last string
}

func (e *ArchiveError) Error() string {
	return fmt.Sprintf("%s: %s at %s: %v", e.Path, e.Kind(), streamPos(e.Layer, e.Offset), e.Err)
}

// streamPos names a position of the tar stream: a byte of the file for a
// plain tar, a byte of the decompressed stream otherwise, which a user
// would otherwise look for in the compressed file.
func streamPos(layer string, n int64) string {
	if layer == "" {
		return fmt.Sprintf("tar byte %d", n)
	}
	return fmt.Sprintf("byte %d of the decompressed tar stream", n)
}

// posText is the finding message's note on its position, "" for a
// plain tar, whose positions are the file's own.
func (e *ArchiveError) posText() string {
	if e.Layer == "" {
		return ""
	}
	t := " (at " + streamPos(e.Layer, e.Offset)
	switch {
	case e.Read < 0:
	case e.ReadAll:
		t += fmt.Sprintf("; the %s decoder had read all %d bytes of the compressed file", e.Layer, e.Read)
	default:
		t += fmt.Sprintf("; the %s decoder had read %d bytes of the compressed file by then", e.Layer, e.Read)
	}
	return t + ")"
}

func (e *ArchiveError) Unwrap() error { return e.Err }

// Kind is the finding kind for the error: archive-not-tar for a file that
// is no tar archive at all (whatever its name says), archive-trailing-data,
// or archive-damaged.
func (e *ArchiveError) Kind() finding.Kind {
	switch {
	case errors.Is(e.Err, ErrNotTar):
		return finding.KindArchiveNotTar
	case errors.Is(e.Err, ErrTrailingData):
		return finding.KindArchiveTrailingData
	}
	return finding.KindArchiveDamaged
}

// Severity is "warning" for trailing data (nothing of the archive was
// lost) and "error" otherwise.
func (e *ArchiveError) Severity() finding.Severity {
	if errors.Is(e.Err, ErrTrailingData) {
		return finding.Warning
	}
	return finding.Error
}

// Detail is the finding's message: the cause, and whether entries were
// left unread. The finding's position is Offset; for a compressed archive
// the message says that it counts bytes of the decompressed stream.
func (e *ArchiveError) Detail() string {
	switch e.Kind() {
	case finding.KindArchiveTrailingData:
		return fmt.Sprintf("%v; every entry before it was read%s", e.Err, e.posText())
	case finding.KindArchiveNotTar:
		return e.Err.Error()
	}
	return fmt.Sprintf("%v; entries after it not read%s", e.Err, e.posText())
}

var (
	// ErrNoEndMarker: the tar stream ended without its end-of-archive
	// blocks (two zero blocks), so it was most likely cut short at an
	// entry boundary.
	ErrNoEndMarker = errors.New("tar stream ends without its end-of-archive marker (truncated?)")
	// ErrNotTar: the input (after any gzip or zstd layer) does not start
	// with a tar header.
	ErrNotTar = errors.New("not a tar archive")
	// ErrTrailingData: bytes after the last end-of-archive marker that are
	// no tar header (tar --ignore-zeros would skip them too).
	ErrTrailingData = errors.New("data after the end-of-archive marker is no tar archive")
)

// Stream reads an archive input front to back and calls fn for each file
// entry with a reader over its bytes, valid only during the call; whatever
// fn leaves unread is skipped. Entries filtered out by opts are skipped
// without a call. Symlinks, hard links, devices, FIFOs and archives inside
// the archive are passed with Skipped set and an empty reader; names that
// leave the archive root or repeat an earlier entry's name carry Warnings.
// Nothing is ever written.
//
// Tar archives concatenated into one stream are read one after the other,
// as `tar --ignore-zeros` reads them. The reader of a sparse entry is a
// SparseReader: its holes read as zeros but can be skipped at no cost.
// Cancelling ctx stops the stream within one read of the input, inside a
// long entry too.
//
// Problems with the archive itself end the stream with an *ArchiveError
// after the entries before it were passed to fn: damage (a truncated or
// corrupt tar, gzip or zstd stream, a missing end-of-archive marker), a
// file that is no tar archive at all, or trailing data after the last
// archive.
func (in *Input) Stream(ctx context.Context, opts Options, fn func(e *Entry, r io.Reader) error) error {
	if in.Kind != Archive {
		return fmt.Errorf("source: %s is not an archive", in.Path)
	}
	var r io.Reader = in.Reader
	if r == nil {
		f, err := openRegular(in.Abs)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	var dirs *archiveDirs
	if opts.EmptyDir != nil {
		dirs = &archiveDirs{}
	}
	err := in.streamDirs(ctx, r, 1<<20, opts, dirs, fn)
	var ae *ArchiveError
	if dirs != nil && !dirs.stopped && (err == nil || errors.As(err, &ae)) {
		// Trailing data comes after every entry: only damage cuts.
		cut := ae != nil && ae.Kind() == finding.KindArchiveDamaged
		for _, e := range dirs.empty(opts, cut) {
			opts.EmptyDir(e)
		}
	}
	return err
}

// stream is Stream over the archive's bytes, read bufSize bytes at a time.
func (in *Input) stream(ctx context.Context, f io.Reader, bufSize int, opts Options, fn func(e *Entry, r io.Reader) error) error {
	return in.streamDirs(ctx, f, bufSize, opts, nil, fn)
}

// streamDirs is stream that also follows the archive's dirs in dirs,
// when it is not nil.
func (in *Input) streamDirs(ctx context.Context, f io.Reader, bufSize int, opts Options, dirs *archiveDirs, fn func(e *Entry, r io.Reader) error) error {
	raw := &countReader{r: &ctxReader{ctx, f}}
	br := bufio.NewReaderSize(raw, bufSize)
	rc, layer, err := decompress(br)
	if err != nil {
		// At the file's first bytes: no decompressed stream yet.
		return &ArchiveError{Path: in.Path, Err: err, Read: -1}
	}
	defer rc.Close()
	tr := &tarReader{r: &countReader{r: rc}, layer: layer}
	var last string // the last entry header read (ArchiveError.Last)
	fail := func(at int64, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, ErrNotTar) {
			err = notTar(layer)
		}
		ae := &ArchiveError{Path: in.Path, Offset: at, Err: err, Layer: layer, Read: -1, Last: last}
		if layer != "" && at == tr.r.n {
			// What the decoder took from the file, less what the buffer
			// under it holds still: cheap, and an upper bound of where
			// the fault lies in the file.
			ae.Read = raw.n - int64(br.Buffered())
			ae.ReadAll = raw.eof && br.Buffered() == 0
		}
		return ae
	}
	seen := map[string]int{}
	for {
		h, err := tr.next()
		var end *tarEnd
		if errors.As(err, &end) {
			switch end.state {
			case endNoMarker:
				return fail(tr.r.n, ErrNoEndMarker)
			case endTrailing:
				return fail(end.at, fmt.Errorf("%w (%d bytes)", ErrTrailingData, end.n))
			}
			return nil
		}
		if err != nil {
			return fail(tr.r.n, err)
		}
		if n := cleanArchiveName(h.name); n != "" {
			last = n
			if h.typeflag == '5' || h.typeflag == 'D' {
				last += "/"
			}
		}
		er := &entryReader{ctx: ctx, r: tr.r, size: h.size, phys: h.phys, ranges: h.sparse}
		e := archiveEntry(in, h)
		if dirs != nil {
			if e == nil && (h.typeflag == '5' || h.typeflag == 'D') {
				dirs.dir(in, h.name)
			} else if e != nil {
				dirs.file(e)
			}
		}
		if e != nil {
			if n := seen[e.Path]; n > 0 {
				e.Warnings = append(e.Warnings, Warning{finding.KindDuplicateEntry,
					fmt.Sprintf("archive entry %q is copy %d of that name in the archive (extracting would keep only the last)", e.Path, n+1)})
			}
			seen[e.Path]++
		}
		if e != nil && !opts.keep(e) {
			opts.leftOut(e)
		} else if e != nil {
			var r io.Reader = er
			if e.Skipped != "" {
				r = bytes.NewReader(nil)
			} else if h.sparse == nil {
				r = plainReader{er}
			}
			if err := fn(e, r); err != nil {
				if errors.Is(err, ErrStop) {
					if dirs != nil {
						dirs.stopped = true // the rest was not read
					}
					return nil
				}
				return err
			}
		}
		// Whatever fn left unread is skipped: holes at no cost, stored
		// bytes read and dropped (a compressed stream cannot seek).
		if err := er.SkipTo(h.size); err != nil {
			return fail(tr.r.n, truncated(err))
		}
		if err := tr.skipPad(h.phys); err != nil {
			return fail(tr.r.n, err)
		}
	}
}

// notTar says what the input is not, by the layer found around it.
func notTar(layer string) error {
	if layer == "" {
		return fmt.Errorf("%w: not a gzip or zstd stream either", ErrNotTar)
	}
	return fmt.Errorf("%w: the %s stream holds something else", ErrNotTar, layer)
}

// archiveEntry turns a tar header into an Entry, or nil for entries that
// are not files (directories). Names are cleaned to a path inside the
// archive root; a name that is absolute or climbs out with ".." is kept
// under its cleaned form, with an unsafe-path warning. Links are never
// followed: a link to a file inside the archive names a file read under
// its own name, and a link out of it names nothing in the evidence.
func archiveEntry(in *Input, h *tarHeader) *Entry {
	switch h.typeflag {
	case '5', 'D', 'V':
		return nil // dirs, GNU dump dirs, volume labels
	}
	raw := h.name
	name := cleanArchiveName(raw)
	if name == "" {
		return nil
	}
	e := &Entry{Input: in.Index, Path: name, Size: h.size}
	describe(e, "", nil)
	e.Warnings = append(e.Warnings, h.warnings...)
	if unsafeName(raw) {
		e.Warnings = append(e.Warnings, Warning{finding.KindUnsafePath,
			fmt.Sprintf("archive entry name %q leaves the archive root; read as %q, nothing extracted", raw, name)})
	}
	skip := func(kind, reason string) { e.SkipKind, e.Skipped, e.Size = kind, reason, 0 }
	switch h.typeflag {
	case '0', 0, '7', 'S':
		if IsNestedArchiveName(name) {
			skip(SkipNestedArchive, "archive inside an archive, not read: extract it and give it as an input of its own")
		}
	case '1':
		if unsafeName(h.linkname) {
			skip(SkipLinkOutside, fmt.Sprintf("hard link to %q, out of the archive root: not followed", h.linkname))
		} else {
			skip(SkipLinkInside, fmt.Sprintf("hard link to %q: that entry is read under its own name", cleanArchiveName(h.linkname)))
		}
	case '2':
		l := slashed(h.linkname)
		target := path.Join(path.Dir(name), l)
		if path.IsAbs(l) || len(l) >= 2 && l[1] == ':' || target == ".." || strings.HasPrefix(target, "../") {
			skip(SkipLinkOutside, fmt.Sprintf("symlink to %q, out of the archive root: not followed", h.linkname))
		} else {
			skip(SkipLinkInside, fmt.Sprintf("symlink to %q: that entry is read under its own name", target))
		}
	case '3', '4', '6':
		skip(SkipSpecial, "device or FIFO entry, not a regular file")
	default:
		skip(SkipSpecial, fmt.Sprintf("not a regular file (tar type %q)", h.typeflag))
	}
	return e
}

// plainReader hides an entry reader's SparseReader methods: an entry
// without holes is an ordinary stream.
type plainReader struct{ r *entryReader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }

// decompress sniffs gzip and zstd magic numbers (names can lie) and
// returns the tar stream and the name of the layer removed ("" for none).
// A zstd stream may start with a skippable frame (pzstd writes one) and
// hold many frames; a gzip stream may hold many members.
func decompress(br *bufio.Reader) (io.ReadCloser, string, error) {
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "gzip", err
		}
		return zr, "gzip", nil
	case len(magic) == 4 && (bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}) ||
		magic[0]&0xf0 == 0x50 && bytes.Equal(magic[1:], []byte{0x2a, 0x4d, 0x18})):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return nil, "zstd", err
		}
		return readCloser{zr, func() error { zr.Close(); return nil }}, "zstd", nil
	}
	for _, o := range otherFormats {
		if bytes.HasPrefix(magic, o.magic) {
			return nil, "", fmt.Errorf("%w: %s, which ksleuth does not read (%s)", ErrNotTar, o.name, o.hint)
		}
	}
	return io.NopCloser(br), "", nil
}

// otherFormats are archive and compression formats ksleuth does not read,
// named when an input is one rather than called "not a tar archive" alone.
var otherFormats = []struct {
	magic      []byte
	name, hint string
}{
	{[]byte{0xfd, '7', 'z', 'X'}, "an xz stream", "decompress it first: xz -d"},
	{[]byte("BZh"), "a bzip2 stream", "decompress it first: bzip2 -d"},
	{[]byte{0x04, 0x22, 0x4d, 0x18}, "an lz4 stream", "decompress it first: lz4 -d"},
	{[]byte("PK\x03\x04"), "a zip archive", "extract it and give the log dirs as inputs"},
	{[]byte("7z\xbc\xaf"), "a 7z archive", "extract it and give the log dirs as inputs"},
}

// ctxReader fails reads once ctx is cancelled, so a long archive stops
// promptly on Ctrl-C.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
