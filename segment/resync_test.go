package segment

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestLegacyShapeOnCorpora: every legacy entry brokers and clients wrote
// in both corpora has key and value lengths that add up to its size, the
// shape resync now requires of a legacy candidate before its CRC.
func TestLegacyShapeOnCorpora(t *testing.T) {
	n := 0
	for _, sub := range []string{"real", "thirdparty"} {
		filepath.WalkDir(corpusDir(t, sub), func(p string, d os.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(p, ".log") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			r := NewReaderBytes(data, Options{Path: p})
			defer r.Close()
			for r.Next() {
				b := r.Batch()
				if b == nil || b.Magic == 2 || !b.CRCValid {
					continue
				}
				n++
				if !legacyShapeOK(b.data) {
					t.Errorf("%s at byte %d: a legacy entry of %d bytes fails the shape check", p, b.Position, len(b.data))
				}
			}
			return nil
		})
	}
	if n < 100 {
		t.Fatalf("only %d legacy entries in the corpora", n)
	}
	t.Logf("%d legacy entries", n)
}

// badCRCChain is n one-record v2 batches from base offset first, each
// with its CRC broken, and nothing else.
func badCRCChain(n int, first int64) []byte {
	var seg []byte
	for i := range n {
		b := segtest.Batch{Magic: 2, BaseOffset: first + int64(i), FirstTimestamp: 1_700_000_000_000 + int64(i),
			Records: []segtest.Record{{Value: []byte("v")}}}.Encode()
		b[len(b)-1] ^= 0xff
		seg = append(seg, b...)
	}
	return seg
}

// TestResyncLinearOnBadCRCs: in a stretch of batches that all fail their
// CRC, the offsets and timestamps inside every header look like legacy
// entries of a plausible size; checking their CRCs made the scan of a
// 72 MB segment of such batches run for more than 20 minutes. The bytes
// checked now stay within a few times the segment.
func TestResyncLinearOnBadCRCs(t *testing.T) {
	seg := badCRCChain(20000, 1<<20)
	r := NewReaderBytes(seg, Options{})
	defer r.Close()
	for r.Next() {
	}
	if r.probed > 4*int64(len(seg)) {
		t.Fatalf("checked the CRC of %d bytes of candidates in a %d-byte segment", r.probed, len(seg))
	}
	t.Logf("%d bytes probed in %d", r.probed, len(seg))
}

// TestResyncWindowBounded: a length read from damaged bytes does not grow
// the reader's window. After a damaged batch comes something shaped like
// a legacy entry of 48 MiB, then zeros to 64 MiB (a sparse file): the old
// reader read all 48 MiB into memory to check its CRC, the reader now
// checks it where it lies and keeps the window to a few MiB.
func TestResyncWindowBounded(t *testing.T) {
	bad := badCRCChain(1, 5)
	fake := make([]byte, 40)
	binary.BigEndian.PutUint64(fake, 7)               // offset
	binary.BigEndian.PutUint32(fake[8:], 48<<20)      // message size
	fake[16] = 1                                      // magic 1
	binary.BigEndian.PutUint32(fake[26:], 0xffffffff) // null key
	binary.BigEndian.PutUint32(fake[30:], 48<<20-22)  // value length: the shape adds up
	r := fileReader(t, append(bad, fake...), 64<<20)
	findings := 0
	for r.Next() {
		if r.Finding() != nil {
			findings++
		}
	}
	if r.Err() != nil || findings == 0 {
		t.Fatalf("err %v, %d findings", r.Err(), findings)
	}
	if len(r.w.buf) > 8<<20 || r.probed < 48<<20 {
		t.Errorf("window grew to %d bytes; %d bytes checked", len(r.w.buf), r.probed)
	}
}

// TestResyncFindsLargeLegacyEntry: an intact legacy entry longer than
// probeSlack after damage is found by the ReadAt check, of either magic,
// with a key or without, and so is the batch after it.
func TestResyncFindsLargeLegacyEntry(t *testing.T) {
	for _, magic := range []int8{0, 1} {
		for _, key := range [][]byte{nil, []byte("k")} {
			big := segtest.Batch{Magic: magic, BaseOffset: 10, FirstTimestamp: 1_700_000_000_000,
				Records: []segtest.Record{{Key: key, Value: bytes.Repeat([]byte("x"), 2<<20)}}}.Encode()
			after := segtest.Batch{Magic: 2, BaseOffset: 11, Records: []segtest.Record{{Value: []byte("after")}}}.Encode()
			seg := append(append(badCRCChain(1, 5), big...), after...)
			r := fileReader(t, seg, 0)
			var got []int64
			for r.Next() {
				if b := r.Batch(); b != nil && b.CRCValid {
					got = append(got, b.BaseOffset)
				}
			}
			if len(got) != 2 || got[0] != 10 || got[1] != 11 || r.probed < int64(len(big)) {
				t.Errorf("magic %d key %q: intact batches %v, %d bytes checked", magic, key, got, r.probed)
			}
		}
	}
}

// TestSkippedReportsLongDamage: inside one Next over 6.9 MB of damage the
// reader reports how far it has got, a few MiB at a time, forward only.
func TestSkippedReportsLongDamage(t *testing.T) {
	seg := badCRCChain(100000, 0)
	var at []int64
	r := NewReaderBytes(seg, Options{Skipped: func(pos int64) { at = append(at, pos) }})
	defer r.Close()
	nexts := 0
	for r.Next() {
		nexts++
	}
	if nexts != 1 || len(at) == 0 {
		t.Fatalf("%d steps, reported at %v", nexts, at)
	}
	for i, p := range at {
		if p <= 0 || p >= int64(len(seg)) || i > 0 && p <= at[i-1] {
			t.Fatalf("reported positions %v in %d bytes", at, len(seg))
		}
	}
}

// TestResyncNegativeNullLength: Kafka reads any negative key or value
// length of a legacy message as null, so a message written with -2 is
// intact, and must be found after damage as it was before the shape
// check (found by a fuzz campaign's directed test).
func TestResyncNegativeNullLength(t *testing.T) {
	for _, magic := range []int8{0, 1} {
		for _, field := range []string{"key", "value"} {
			for _, size := range []int{1, 2 << 20} { // in the window, and checked with ReadAt
				rec := segtest.Record{Key: []byte("k"), Value: bytes.Repeat([]byte("v"), size)}
				if field == "key" {
					rec.Key = nil
				} else {
					rec.Value = nil
				}
				e := segtest.Batch{Magic: magic, BaseOffset: 3, FirstTimestamp: 1_700_000_000_000, Records: []segtest.Record{rec}}.Encode()
				p := 18
				if magic == 1 {
					p += 8
				}
				if field == "value" {
					p += 4 + int(binary.BigEndian.Uint32(e[p:]))
				}
				binary.BigEndian.PutUint32(e[p:], 0xfffffffe) // -2: null
				binary.BigEndian.PutUint32(e[12:], crc32.ChecksumIEEE(e[16:]))
				seg := append([]byte("garbage"), e...)
				found := false
				r := fileReader(t, seg, 0)
				for r.Next() {
					if b := r.Batch(); b != nil && b.CRCValid && b.BaseOffset == 3 {
						found = true
					}
				}
				if !found {
					t.Errorf("magic %d, null %s as -2, value of %d bytes: not found after damage", magic, field, size)
				}
			}
		}
	}
}

// fileReader writes seg to a segment file, extends it with zeros to size
// (a sparse file) when size is larger, and returns a Reader over it with
// random access, closed with the test.
func fileReader(t *testing.T, seg []byte, size int64) *Reader {
	t.Helper()
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(p, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	if size > int64(len(seg)) {
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(f, Options{Path: p})
	t.Cleanup(func() { r.Close(); f.Close() })
	return r
}
