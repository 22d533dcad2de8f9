package source

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// The fuzz input is a compact form of a tar stream, expanded by
// expandBlocks. Raw tar bytes made the fuzzer stall: every tar is a few KB
// (512-byte blocks, mostly zeros), and Go's minimiser spends its whole
// 60 s budget on each new interesting input of that size, because it
// tries removing every pair of positions (quadratic in the length). A
// mutated header also failed its checksum nearly always, so little got
// past the first block. In the compact form a block is its bytes up to
// the last non-zero one, blocks are separated by 0xff, and a block with
// the ustar magic gets its checksum recomputed.

const blockSep = 0xff

// maxFuzzInput bounds the compact input: a handful of headers and
// entries, enough for every path of the reader.
const maxFuzzInput = 2048

// expandBlocks turns the compact form into a tar stream: each chunk
// between separators is zero-padded to a multiple of 512 bytes (an empty
// chunk is one zero block), and ustar header blocks get a valid checksum.
func expandBlocks(data []byte) []byte {
	var out []byte
	for chunk := range bytes.SplitSeq(data, []byte{blockSep}) {
		n := (len(chunk) + blockSize - 1) / blockSize * blockSize
		if n == 0 {
			n = blockSize
		}
		start := len(out)
		out = append(out, chunk...)
		out = append(out, make([]byte, n-len(chunk))...)
		for b := start; b < len(out); b += blockSize {
			blk := out[b : b+blockSize]
			if string(blk[257:262]) == "ustar" {
				setChecksum(blk)
			}
		}
	}
	return out
}

func setChecksum(blk []byte) {
	copy(blk[148:156], "        ")
	var sum int64
	for _, c := range blk {
		sum += int64(c)
	}
	copy(blk[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

// compactHeader is a header block in compact form: only the fields
// given, then the magic; the checksum is left to expandBlocks.
func compactHeader(name string, flag byte, size int64, link string) []byte {
	b := make([]byte, 263)
	copy(b, name)
	copy(b[124:], fmt.Sprintf("%011o", size))
	b[156] = flag
	copy(b[157:], link)
	copy(b[257:], "ustar\x00")
	return b
}

// paxRecord is one PAX record, its length counting itself.
func paxRecord(k, v string) string {
	n := len(k) + len(v) + 3
	for len(fmt.Sprint(n))+len(k)+len(v)+3 != n {
		n++
	}
	return fmt.Sprintf("%d %s=%s\n", n, k, v)
}

// compact joins blocks into the compact form.
func compact(blocks ...[]byte) []byte {
	return bytes.Join(blocks, []byte{blockSep})
}

var (
	fuzzZstd, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<16))
	fuzzGzip    = gzip.NewWriter(io.Discard)
)

// readEntry reads an entry of size bytes as a careful caller does: a
// sparse entry's data ranges are read and its holes skipped (a header may
// declare terabytes of them). It returns the bytes read plus the bytes of
// holes passed over, which is the size when nothing failed.
func readEntry(r io.Reader, size int64) (int64, error) {
	sr, ok := r.(SparseReader)
	if !ok {
		return io.Copy(io.Discard, r)
	}
	var pos int64
	for _, dr := range sr.DataRanges() {
		if dr.Start < pos || dr.End < dr.Start || dr.End > size {
			return pos, fmt.Errorf("data ranges out of order or past the size %d: %v", size, sr.DataRanges())
		}
		if err := sr.SkipTo(dr.Start); err != nil {
			return pos, err
		}
		n, err := io.CopyN(io.Discard, r, dr.End-dr.Start)
		pos = dr.Start + n
		if err != nil {
			return pos, err
		}
	}
	if err := sr.SkipTo(size); err != nil {
		return pos, err
	}
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		return size + 1, nil
	}
	return size, nil
}

// FuzzArchiveStream: any tar stream (plain, gzip or zstd framed) is read
// without panic; every entry path is relative and stays inside the
// archive root; sizes are the bytes really read (holes skipped); problems
// with the archive are an *ArchiveError.
func FuzzArchiveStream(f *testing.F) {
	data := func(body string) []byte { return []byte(body) }
	f.Add(compact(compactHeader("t-0/00000000000000000000.log", '0', 3, ""), data("abc"),
		compactHeader("../x-0/00000000000000000000.index", '2', 0, "../../etc/passwd"),
		compactHeader("/abs/meta.properties", '1', 0, "t-0/00000000000000000000.log"), nil, nil), uint8(0))
	f.Add(compact(compactHeader("a\\..\\..\\b", '0', 0, ""), compactHeader("C:/windows/x.tar.gz", '0', 1, ""), data("z"), nil, nil,
		compactHeader("t-0/../../z", '6', 0, ""), nil, nil, data("trailing")), uint8(1))
	pax := paxRecord("GNU.sparse.map", "0,2,1000000,2") + paxRecord("GNU.sparse.size", "1000002")
	f.Add(compact(compactHeader("././@PaxHeader", 'x', int64(len(pax)), ""), data(pax),
		compactHeader("s-0/00000000000000000000.log", '0', 4, ""), data("abcd"), nil, nil), uint8(2))
	gnu := compactHeader("g-0/00000000000000000000.log", 'S', 2, "")
	gnu = append(gnu, make([]byte, 495-len(gnu))...)
	copy(gnu[257:], "ustar  \x00")
	copy(gnu[386:], "00000000000\x0000000000001\x00")
	copy(gnu[410:], "00000010000\x0000000000001\x00")
	copy(gnu[483:], "77777777777\x00")
	f.Add(compact(gnu, data("xy"), nil, nil), uint8(0))
	m10 := "1\n5\n3\n"
	pax10 := paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0")
	f.Add(compact(compactHeader("././@PaxHeader", 'x', int64(len(pax10)), ""), data(pax10),
		compactHeader("p-0/x", '0', 515, ""), data(m10), data("abc"), nil, nil), uint8(0))
	f.Add([]byte("not a tar at all"), uint8(0))
	f.Add(compact(nil, nil), uint8(0))
	// Go's minimiser's default budget is 60 s per new input, spent in
	// full on inputs of a few hundred bytes (its pair removal is
	// quadratic): with two workers both minimising, a one-minute run
	// reported a dozen executions. A budget of 5 s keeps most of the time
	// for fuzzing; -fuzzminimizetime given on the command line wins.
	minimizeSet := false
	flag.Visit(func(fl *flag.Flag) { minimizeSet = minimizeSet || fl.Name == "test.fuzzminimizetime" })
	if !minimizeSet {
		flag.Set("test.fuzzminimizetime", "5s")
	}
	f.Fuzz(func(t *testing.T, data []byte, wrap uint8) {
		if len(data) > maxFuzzInput {
			return // nothing new past this size, and minimising it is slow
		}
		raw := expandBlocks(data)
		switch wrap % 3 {
		case 1:
			var b bytes.Buffer
			fuzzGzip.Reset(&b)
			fuzzGzip.Write(raw)
			fuzzGzip.Close()
			raw = b.Bytes()
		case 2:
			raw = fuzzZstd.EncodeAll(raw, nil)
		}
		in := &Input{Path: "in.tar", Kind: Archive}
		err := in.stream(context.Background(), bytes.NewReader(raw), 4096, Options{}, func(e *Entry, r io.Reader) error {
			if e.Path == "" || strings.HasPrefix(e.Path, "/") || e.Path == ".." || strings.HasPrefix(e.Path, "../") ||
				strings.Contains(e.Path, "/../") || strings.HasSuffix(e.Path, "/..") {
				t.Fatalf("entry path %q leaves the root", e.Path)
			}
			got, rerr := readEntry(r, e.Size)
			if e.Skipped != "" && got != 0 {
				t.Fatalf("skipped entry %q yielded %d bytes", e.Path, got)
			}
			if rerr == nil && e.Skipped == "" && got != e.Size {
				t.Fatalf("entry %q: read %d bytes, size %d", e.Path, got, e.Size)
			}
			return nil
		})
		var ae *ArchiveError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("archive error is not an *ArchiveError: %v", err)
		}
		if ae != nil && ae.Offset < 0 {
			t.Fatalf("negative offset: %v", ae)
		}
	})
}

// TestStreamWritesNothing: streaming archives, the real corpus's among
// them, creates nothing beside them.
func TestStreamWritesNothing(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "*", "*", "*.tar*"))
	var inputs []string
	for _, p := range files {
		if st, err := os.Stat(p); err == nil && st.Size() < 4<<20 {
			inputs = append(inputs, p)
		}
	}
	hostile := expandBlocks(compact(compactHeader("../../evil", '0', 1, ""), []byte("x"),
		compactHeader("/etc/cron.d/x", '2', 0, "/etc/passwd"), nil, nil))
	p := filepath.Join(dir, "hostile.tar")
	if err := os.WriteFile(p, hostile, 0o444); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, p)
	for _, p := range inputs {
		ins, err := Classify([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = ins[0].Stream(context.Background(), Options{}, func(e *Entry, r io.Reader) error {
			n++
			_, err := readEntry(r, e.Size)
			return err
		})
		var ae *ArchiveError
		if err != nil && !errors.As(err, &ae) {
			t.Errorf("%s: %v", p, err)
		}
		if filepath.Base(p) == "hostile.tar" && n != 2 {
			t.Errorf("hostile archive: %d entries", n)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("files appeared beside the archive: %v", ents)
	}
}
