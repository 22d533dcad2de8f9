package analysis

import (
	"encoding/hex"
	"testing"

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
	// The documented layout, hashed in one call: key, value, header count,
	// then each header, every part as int64 length (-1 null) + bytes.
	layout := []byte{0, 0, 0, 0, 0, 0, 0, 1, 'k', 0, 0, 0, 0, 0, 0, 0, 1, 'v', 0, 0, 0, 0, 0, 0, 0, 2,
		0, 0, 0, 0, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 1, '1',
		0, 0, 0, 0, 0, 0, 0, 1, 'b', 0, 0, 0, 0, 0, 0, 0, 1, '2'}
	want := xxh3.Hash128(layout).Bytes()
	if got := sum(cases["headers ab"]); got != hex.EncodeToString(want[:]) {
		t.Errorf("fingerprint %s, layout hashes to %x", got, want)
	}
	// Pinned: tables written by earlier runs must stay comparable, so the
	// function may not change silently.
	if got := sum(cases["headers ab"]); got != "f9d140e8da706066cd6c8db4b6ab43c9" {
		t.Errorf("fingerprint of a fixed record changed: %s", got)
	}
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
