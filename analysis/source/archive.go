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

// Stream reads an archive input front to back and calls fn for each file
// entry with a reader over its bytes, valid only during the call; whatever
// fn leaves unread is skipped. Entries filtered out by opts are skipped
// without a call. Symlinks and other non-regular entries are passed with
// Skipped set and an empty reader. Cancelling ctx stops between reads.
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
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s: %w", in.Path, err)
		}
		var e *Entry
		switch h.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader, tar.TypeXHeader:
			continue
		case tar.TypeReg: // Next reports the old TypeRegA as TypeReg
			e = archiveEntry(in, h.Name, h.Size, false, true)
		case tar.TypeSymlink, tar.TypeLink:
			e = archiveEntry(in, h.Name, 0, true, false)
		default:
			e = archiveEntry(in, h.Name, 0, false, false)
		}
		if e == nil || !opts.keep(e) {
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
