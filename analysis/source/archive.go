package source

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// maxZstdWindow bounds the memory a hostile .tar.zst may make the decoder
// allocate for its window; zstd's own default limit for streams is 8 MiB,
// and `zstd --long` archives use up to 128 MiB (--long=27).
const maxZstdWindow = 1 << 28

// ArchiveError is damage to an archive's own structure (a truncated or
// corrupt tar or compression stream): the entries before it were read,
// the rest of the archive cannot be. Offset is the position in the tar
// stream (after decompression) where reading stopped.
type ArchiveError struct {
	Path   string
	Offset int64
	Err    error
}

func (e *ArchiveError) Error() string {
	return fmt.Sprintf("%s: archive damaged at tar byte %d: %v", e.Path, e.Offset, e.Err)
}

func (e *ArchiveError) Unwrap() error { return e.Err }

// ErrNoEndMarker: the tar stream ended without its end-of-archive blocks
// (two zero blocks), so it was most likely cut short at an entry boundary.
var ErrNoEndMarker = errors.New("source: tar stream ends without its end-of-archive marker (truncated?)")

// Stream reads an archive input front to back and calls fn for each file
// entry with a reader over its bytes, valid only during the call; whatever
// fn leaves unread is skipped. Entries filtered out by opts are skipped
// without a call. Symlinks, hard links and other non-regular entries are
// passed with Skipped set and an empty reader; names that leave the archive
// root or repeat an earlier entry's name carry Warnings. Nothing is ever
// written. Cancelling ctx stops between reads.
//
// Damage to the archive itself (a truncated or corrupt tar, gzip or zstd
// stream, a missing end-of-archive marker) ends the stream with an
// *ArchiveError after the entries before it were passed to fn.
func (in *Input) Stream(ctx context.Context, opts Options, fn func(e *Entry, r io.Reader) error) error {
	if in.Kind != Archive {
		return fmt.Errorf("source: %s is not an archive", in.Path)
	}
	f, err := os.Open(in.Abs)
	if err != nil {
		return err
	}
	defer f.Close()
	rc, err := decompress(bufio.NewReaderSize(&ctxReader{ctx, f}, 1<<20))
	if err != nil {
		return &ArchiveError{Path: in.Path, Err: err}
	}
	defer rc.Close()
	tail := &tailReader{r: rc}
	tr := tar.NewReader(tail)
	seen := map[string]int{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			// tar.Reader also says EOF when the stream just stops between
			// entries: check the end marker, and that the compressed
			// stream ends cleanly after it.
			if !tail.endMarker() {
				return &ArchiveError{Path: in.Path, Offset: tail.n, Err: ErrNoEndMarker}
			}
			if _, err := io.Copy(io.Discard, tail); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return &ArchiveError{Path: in.Path, Offset: tail.n, Err: err}
			}
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &ArchiveError{Path: in.Path, Offset: tail.n, Err: err}
		}
		var e *Entry
		switch h.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader, tar.TypeXHeader:
			continue
		case tar.TypeReg: // Next reports the old TypeRegA as TypeReg
			e = archiveEntry(in, h.Name, h.Size, entryRegular)
		case tar.TypeSymlink:
			e = archiveEntry(in, h.Name, 0, entrySymlink)
		case tar.TypeLink:
			e = archiveEntry(in, h.Name, 0, entryHardLink)
		default:
			e = archiveEntry(in, h.Name, 0, entryOther)
		}
		if e == nil {
			continue
		}
		if n := seen[e.Path]; n > 0 {
			e.Warnings = append(e.Warnings, Warning{"duplicate-entry",
				fmt.Sprintf("archive entry %q is copy %d of that name in the archive (extracting would keep only the last)", e.Path, n+1)})
		}
		seen[e.Path]++
		if !opts.keep(e) {
			continue
		}
		var r io.Reader = tr
		if e.Skipped != "" {
			r = bytes.NewReader(nil)
		}
		if err := fn(e, r); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
}

// tailReader counts the bytes read through it and keeps the last two tar
// blocks, to tell an end-of-archive marker from a stream cut short.
type tailReader struct {
	r    io.Reader
	n    int64
	last [1024]byte
}

func (t *tailReader) Read(p []byte) (int, error) {
	k, err := t.r.Read(p)
	if k > 0 {
		t.n += int64(k)
		if k >= len(t.last) {
			copy(t.last[:], p[k-len(t.last):k])
		} else {
			copy(t.last[:], t.last[k:])
			copy(t.last[len(t.last)-k:], p[:k])
		}
	}
	return k, err
}

// endMarker reports whether the last 1024 bytes read were zero: the two
// zero blocks that end a tar stream (tar.Reader stops right after them).
func (t *tailReader) endMarker() bool {
	if t.n < int64(len(t.last)) {
		return false
	}
	for _, c := range t.last {
		if c != 0 {
			return false
		}
	}
	return true
}

// decompress sniffs gzip and zstd magic numbers (names can lie) and
// returns the tar stream.
func decompress(br *bufio.Reader) (io.ReadCloser, error) {
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		return zr, nil
	case len(magic) == 4 && bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return nil, err
		}
		return readCloser{zr, func() error { zr.Close(); return nil }}, nil
	}
	return io.NopCloser(br), nil
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
