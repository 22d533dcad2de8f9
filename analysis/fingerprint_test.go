package analysis

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"testing"

	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"

	"github.com/zeebo/xxh3"
)

func TestFingerprintDistinguishes(t *testing.T) {
	f := NewFingerprinter()
	type rec struct {
		k, v []byte
		h    [][2][]byte
	}
	sum := func(r rec) string {
		return f.Sum(r.k, r.v, len(r.h), func(i int) ([]byte, []byte) { return r.h[i][0], r.h[i][1] })
	}
	cases := map[string]rec{
		"null key":          {nil, []byte("v"), nil},
		"empty key":         {[]byte{}, []byte("v"), nil},
		"null value":        {[]byte("k"), nil, nil},
		"empty value":       {[]byte("k"), []byte{}, nil},
		"split ab|c":        {[]byte("ab"), []byte("c"), nil},
		"split a|bc":        {[]byte("a"), []byte("bc"), nil},
		"header null":       {[]byte("k"), []byte("v"), [][2][]byte{{[]byte("h"), nil}}},
		"header empty":      {[]byte("k"), []byte("v"), [][2][]byte{{[]byte("h"), []byte{}}}},
		"headers ab":        {[]byte("k"), []byte("v"), [][2][]byte{{[]byte("a"), []byte("1")}, {[]byte("b"), []byte("2")}}},
		"headers ba":        {[]byte("k"), []byte("v"), [][2][]byte{{[]byte("b"), []byte("2")}, {[]byte("a"), []byte("1")}}},
		"no headers":        {[]byte("k"), []byte("v"), nil},
		"key/value swapped": {[]byte("v"), []byte("k"), nil},
	}
	seen := map[string]string{}
	for name, r := range cases {
		s := sum(r)
		if len(s) != 32 {
			t.Fatalf("%s: fingerprint %q is not 32 hex digits", name, s)
		}
		if other, dup := seen[s]; dup {
			t.Errorf("%s and %s share fingerprint %s", name, other, s)
		}
		seen[s] = name
		if again := sum(r); again != s {
			t.Errorf("%s: not deterministic", name)
		}
	}
	// The documented layout, hashed in one call: Kafka's v2 encoding from
	// the key length on (zigzag varints, -1 null).
	layout := []byte{2, 'k', 2, 'v', 4, 2, 'a', 2, '1', 2, 'b', 2, '2'}
	want := xxh3.Hash128(layout).Bytes()
	if got := sum(cases["headers ab"]); got != hex.EncodeToString(want[:]) {
		t.Errorf("fingerprint %s, layout hashes to %x", got, want)
	}
	// Pinned: tables written by earlier runs must stay comparable, so the
	// function may not change silently (the records tables' probe tells
	// dups --from-tables when it did).
	if got := sum(cases["headers ab"]); got != "a5d34f31abf491373ad9eec182ca6e38" {
		t.Errorf("fingerprint of a fixed record changed: %s", got)
	}
}

// TestFingerprintInPlace: a v2 record's fingerprint taken in place over
// its encoded bytes equals the one laid out from its parts, for every
// shape of record; a non-canonical encoding and a legacy message of the
// same content get the same fingerprint through the layout.
func TestFingerprintInPlace(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 100_000) // streamed by Sum128
	recs := []segtest.Record{
		{Key: []byte("k"), Value: []byte("v")},
		{Key: nil, Value: nil},
		{Key: []byte{}, Value: []byte{}},
		{Key: []byte("k"), Value: big, Headers: []segtest.Header{{Key: "h", Value: nil}, {Key: "", Value: []byte{}}}},
		{Key: bytes.Repeat([]byte("q"), 200), Value: bytes.Repeat([]byte("w"), 70_000)},
		{Key: []byte("k"), Value: []byte("v"), Headers: []segtest.Header{{Key: "trace-id", Value: []byte("0123")}, {Key: "b", Value: []byte("2")}}},
	}
	for i := range recs {
		recs[i].OffsetDelta = int32(i)
	}
	enc := segtest.Batch{Magic: 2, FirstTimestamp: 1, Records: recs}.Encode()
	f := NewFingerprinter()
	n := 0
	for r := range readRecords(t, enc) {
		if r.Content == nil {
			t.Fatalf("record %d: no canonical content", n)
		}
		in := f.Record(r)
		r.Content = nil
		laid := f.Record(r)
		if in != laid {
			t.Errorf("record %d: in place %x, laid out %x", n, in, laid)
		}
		n++
	}
	if n != len(recs) {
		t.Fatalf("read %d records of %d", n, len(recs))
	}

	// A key length of 1 written in two bytes (0x82 0x00) is legal for a
	// reader but not canonical: no in-place content, same fingerprint.
	canon := segtest.Batch{Magic: 2, FirstTimestamp: 1, Records: []segtest.Record{{Key: []byte("k"), Value: []byte("v")}}}.Encode()
	want := fingerprintsOf(t, f, canon)
	odd := nonMinimalKeyLength(t, canon)
	var got [][16]byte
	for r := range readRecords(t, odd) {
		if r.Content != nil {
			t.Error("a non-minimal key length gave canonical content")
		}
		got = append(got, f.Record(r))
	}
	if len(got) != 1 || got[0] != want[0] {
		t.Errorf("non-canonical encoding: %x, canonical %x", got, want)
	}
	for _, magic := range []int8{0, 1} {
		legacy := segtest.Batch{Magic: magic, FirstTimestamp: 1, Records: []segtest.Record{{Key: []byte("k"), Value: []byte("v")}}}.Encode()
		if l := fingerprintsOf(t, f, legacy); len(l) != 1 || l[0] != want[0] {
			t.Errorf("magic %d message: %x, v2 record %x", magic, l, want)
		}
	}
}

func fingerprintsOf(t *testing.T, f *Fingerprinter, seg []byte) [][16]byte {
	var out [][16]byte
	for r := range readRecords(t, seg) {
		out = append(out, f.Record(r))
	}
	return out
}

// readRecords yields the records of a one-batch segment.
func readRecords(t *testing.T, seg []byte) func(func(*segment.Record) bool) {
	return func(yield func(*segment.Record) bool) {
		r := segment.NewReader(bytes.NewReader(seg), segment.Options{})
		defer r.Close()
		for r.Next() {
			if r.Batch() == nil {
				t.Fatalf("finding: %v", r.Finding())
			}
			it := r.Records()
			for it.Next() {
				if !yield(it.Record()) {
					return
				}
			}
			if it.Err() != nil {
				t.Fatal(it.Err())
			}
		}
	}
}

// nonMinimalKeyLength re-encodes the one uncompressed record of a v2
// batch with its key length (1) in two varint bytes, fixing the record
// length, batch length and CRC.
func nonMinimalKeyLength(t *testing.T, seg []byte) []byte {
	body := seg[61:]
	// record: length varint, attributes, timestamp delta, offset delta,
	// key length, ... all one byte each here.
	if body[0] != 2*8 || body[4] != 2 { // 8-byte record: 0, 0, 0, 2 'k', 2 'v', 0 headers
		t.Fatalf("unexpected record encoding % x", body)
	}
	rec := append([]byte{2 * 9, body[1], body[2], body[3], 0x82, 0x00}, body[5:]...)
	out := append(append([]byte{}, seg[:61]...), rec...)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

func BenchmarkFingerprint(b *testing.B) {
	f := NewFingerprinter()
	v := make([]byte, 1000)
	hs := [][2][]byte{{[]byte("trace-id"), []byte("0123456789abcdef")}, {[]byte("source"), []byte("svc")}}
	b.SetBytes(int64(len(v) + 40))
	b.ReportAllocs()
	for b.Loop() {
		f.Sum128([]byte("customer-42"), v, len(hs), func(i int) ([]byte, []byte) { return hs[i][0], hs[i][1] })
	}
}
