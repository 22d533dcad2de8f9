package segment

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// indexCorpusDir is the real-broker corpus (shared/corpus/real), relative to
// this package directory.
var indexCorpusDir = filepath.Join("..", "..", "shared", "corpus", "real")

func idxUnhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Hand-built index entries, the examples of docs/formats/indexes.md.
const (
	hexOffsetEntry = "00 00 00 29 00 00 10 49"             // offset 41 at byte 4169
	hexTimeEntry   = "00 00 01 8b cf e5 68 00 00 00 00 29" // ts 1700000000000 at offset 41
	hexTxnEntry    = "0000 00000000000003e8 0000000000000005 0000000000000009 0000000000000005"
)

func idxOffEntry(rel, pos int32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(rel)), uint32(pos))
}

func idxTimeEntry(ts int64, rel int32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, uint64(ts)), uint32(rel))
}

func idxTxnEntry(ver int16, pid, first, last, lso int64) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(ver))
	for _, v := range []int64{pid, first, last, lso} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

func idxCat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// idxCheckFindings checks findings: each wanted sentinel appears, nothing
// else does, and every position lies inside the input.
func idxCheckFindings(t *testing.T, data []byte, got []*IndexFinding, want []error, wantPos int64) {
	t.Helper()
	for _, f := range got {
		if f.Position < 0 || f.Position > int64(len(data)) {
			t.Errorf("finding outside input of %d bytes: %v", len(data), f)
		}
		ok := false
		for _, w := range want {
			if errors.Is(f, w) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("unexpected finding: %v", f)
		}
	}
	for _, w := range want {
		found := false
		for _, f := range got {
			if errors.Is(f, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing %v in %v", w, got)
		}
	}
	if len(want) > 0 && len(got) > 0 && wantPos >= 0 && got[0].Position != wantPos {
		t.Errorf("first finding at %d, want %d: %v", got[0].Position, wantPos, got[0])
	}
}

func TestParseOffsetIndex(t *testing.T) {
	zeros := func(n int) []byte { return make([]byte, n) }
	for _, tc := range []struct {
		name     string
		in       []byte
		base     int64
		offsets  []int64
		zeroTail int
		want     []error
		wantPos  int64
	}{
		{name: "derived example", in: idxUnhex(t, hexOffsetEntry), base: 0, offsets: []int64{41}},
		{name: "example with base", in: idxUnhex(t, hexOffsetEntry), base: 1000, offsets: []int64{1041}},
		{name: "empty", in: nil},
		{name: "two entries", in: idxCat(idxOffEntry(5, 4200), idxOffEntry(60, 8500)), base: 10, offsets: []int64{15, 70}},
		{name: "zero tail", in: idxCat(idxOffEntry(5, 4200), idxOffEntry(60, 8500), zeros(8*5)), base: 10,
			offsets: []int64{15, 70}, zeroTail: 5, want: []error{ErrIndexZeroTail}, wantPos: 16},
		{name: "all zero preallocated", in: zeros(8 * 100), zeroTail: 100, want: []error{ErrIndexZeroTail}, wantPos: 0},
		{name: "single zero entry kept", in: zeros(8), offsets: []int64{0}},
		{name: "entry 0 zero then data", in: idxCat(idxOffEntry(0, 0), idxOffEntry(3, 4100)), offsets: []int64{0, 3}},
		{name: "zero entry inside data", in: idxCat(idxOffEntry(5, 4200), zeros(8), idxOffEntry(60, 8500)),
			offsets: []int64{5, 0, 60}, want: []error{ErrIndexOrder}, wantPos: 8},
		{name: "misaligned", in: idxCat(idxOffEntry(5, 4200), []byte{1, 2, 3}), offsets: []int64{5}, want: []error{ErrIndexSize}, wantPos: 8},
		{name: "misaligned zero tail", in: idxCat(idxOffEntry(5, 4200), zeros(8*3+4)), offsets: []int64{5}, zeroTail: 3,
			want: []error{ErrIndexSize, ErrIndexZeroTail}, wantPos: 32},
		{name: "offsets not increasing", in: idxCat(idxOffEntry(5, 4200), idxOffEntry(5, 8500)), offsets: []int64{5, 5}, want: []error{ErrIndexOrder}, wantPos: 8},
		{name: "positions not increasing", in: idxCat(idxOffEntry(5, 4200), idxOffEntry(9, 4200)), offsets: []int64{5, 9}, want: []error{ErrIndexOrder}, wantPos: 8},
		{name: "negative relative offset", in: idxOffEntry(-1, 10), offsets: []int64{-1}, want: []error{ErrIndexRange}, wantPos: 0},
		// A producer snapshot read as an offset index: one odd entry, two stray bytes.
		{name: "snapshot fed in", in: idxUnhex(t, "00 01 48 67 4b c7 00 00 00 00"), offsets: []int64{0x14867}, want: []error{ErrIndexSize}, wantPos: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, fds := ParseOffsetIndex("p-0/00000000000000000000.index", tc.in, tc.base)
			idxCheckFindings(t, tc.in, fds, tc.want, tc.wantPos)
			var got []int64
			for _, e := range ix.Entries {
				got = append(got, e.Offset)
			}
			if !idxEqual(got, tc.offsets) || ix.ZeroTailEntries != tc.zeroTail {
				t.Errorf("offsets %v zero tail %d; want %v %d", got, ix.ZeroTailEntries, tc.offsets, tc.zeroTail)
			}
		})
	}
	ix, _ := ParseOffsetIndex("", idxUnhex(t, hexOffsetEntry), 0)
	if e := ix.Entries[0]; e.RelativeOffset != 41 || e.Position != 4169 || e.String() != "offset: 41 position: 4169" {
		t.Errorf("entry %+v %q", e, e.String())
	}
	// Base offset from the file name when -1 is passed.
	ix, _ = ParseOffsetIndex("x/00000000000000003462.index.deleted", idxUnhex(t, hexOffsetEntry), -1)
	if ix.BaseOffset != 3462 || ix.Entries[0].Offset != 3503 {
		t.Errorf("base from name: %+v", ix)
	}
	// Finding message names file, byte position and entry.
	_, fds := ParseOffsetIndex("p-0/00000000000000000000.index", idxCat(idxOffEntry(5, 4200), idxOffEntry(5, 8500)), 0)
	if len(fds) != 1 || !strings.HasPrefix(fds[0].Error(), "p-0/00000000000000000000.index: at byte 0x8 (8), entry 1: segment: index entries out of order") {
		t.Errorf("message: %v", fds)
	}
}

func idxEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseTimeIndex(t *testing.T) {
	zeros := func(n int) []byte { return make([]byte, n) }
	for _, tc := range []struct {
		name     string
		in       []byte
		base     int64
		ts       []int64
		zeroTail int
		want     []error
		wantPos  int64
	}{
		{name: "derived example", in: idxUnhex(t, hexTimeEntry), ts: []int64{1700000000000}},
		{name: "empty", in: nil},
		{name: "rising", in: idxCat(idxTimeEntry(100, 1), idxTimeEntry(200, 1), idxTimeEntry(300, 7)), ts: []int64{100, 200, 300}},
		{name: "zero tail", in: idxCat(idxTimeEntry(100, 1), idxTimeEntry(200, 5), zeros(12*4)), ts: []int64{100, 200},
			zeroTail: 4, want: []error{ErrIndexZeroTail}, wantPos: 24},
		{name: "all zero", in: zeros(12 * 10), zeroTail: 10, want: []error{ErrIndexZeroTail}, wantPos: 0},
		{name: "timestamp falls", in: idxCat(idxTimeEntry(200, 1), idxTimeEntry(100, 5)), ts: []int64{200, 100}, want: []error{ErrIndexOrder}, wantPos: 12},
		{name: "timestamp repeats", in: idxCat(idxTimeEntry(200, 1), idxTimeEntry(200, 5)), ts: []int64{200, 200}, want: []error{ErrIndexOrder}, wantPos: 12},
		{name: "offset falls", in: idxCat(idxTimeEntry(100, 9), idxTimeEntry(200, 5)), ts: []int64{100, 200}, want: []error{ErrIndexOrder}, wantPos: 12},
		{name: "misaligned", in: idxCat(idxTimeEntry(100, 1), zeros(5)), ts: []int64{100}, want: []error{ErrIndexSize}, wantPos: 12},
		{name: "negative offset", in: idxTimeEntry(100, -4), ts: []int64{100}, want: []error{ErrIndexRange}, wantPos: 0},
		{name: "offset index fed in", in: idxCat(idxOffEntry(5, 4200), idxOffEntry(60, 8500)), ts: []int64{5<<32 | 4200}, want: []error{ErrIndexSize}, wantPos: 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, fds := ParseTimeIndex("p-0/00000000000000000000.timeindex", tc.in, tc.base)
			idxCheckFindings(t, tc.in, fds, tc.want, tc.wantPos)
			var got []int64
			for _, e := range ix.Entries {
				got = append(got, e.Timestamp)
			}
			if !idxEqual(got, tc.ts) || ix.ZeroTailEntries != tc.zeroTail {
				t.Errorf("timestamps %v zero tail %d; want %v %d", got, ix.ZeroTailEntries, tc.ts, tc.zeroTail)
			}
		})
	}
	ix, _ := ParseTimeIndex("", idxUnhex(t, hexTimeEntry), 0)
	if e := ix.Entries[0]; e.Offset != 41 || e.String() != "timestamp: 1700000000000 offset: 41" {
		t.Errorf("entry %+v", e)
	}
}

func TestParseTxnIndex(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []byte
		base    int64
		last    []int64
		want    []error
		wantPos int64
	}{
		{name: "derived example", in: idxUnhex(t, hexTxnEntry), last: []int64{9}},
		{name: "empty", in: nil},
		{name: "two", in: idxCat(idxTxnEntry(0, 1, 5, 9, 5), idxTxnEntry(0, 2, 3, 12, 10)), last: []int64{9, 12}},
		{name: "partial trailing entry", in: idxCat(idxTxnEntry(0, 1, 5, 9, 5), make([]byte, 20)), last: []int64{9}, want: []error{ErrIndexSize}, wantPos: 34},
		{name: "only partial", in: make([]byte, 33), want: []error{ErrIndexSize}, wantPos: 0},
		{name: "low version byte ignored", in: idxTxnEntry(0x00ff, 1, 5, 9, 5), last: []int64{9}},
		{name: "high version byte", in: idxTxnEntry(0x0100, 1, 5, 9, 5), last: []int64{9}, want: []error{ErrIndexVersion}, wantPos: 0},
		{name: "last offset repeats", in: idxCat(idxTxnEntry(0, 1, 5, 9, 5), idxTxnEntry(0, 2, 6, 9, 5)), last: []int64{9, 9}, want: []error{ErrIndexOrder}, wantPos: 34},
		{name: "last offset below base", in: idxTxnEntry(0, 1, 5, 9, 5), base: 100, last: []int64{9}, want: []error{ErrIndexRange}, wantPos: 0},
		{name: "first after last", in: idxTxnEntry(0, 1, 15, 9, 5), last: []int64{9}, want: []error{ErrIndexRange}, wantPos: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, fds := ParseTxnIndex("p-0/00000000000000000000.txnindex", tc.in, tc.base)
			idxCheckFindings(t, tc.in, fds, tc.want, tc.wantPos)
			var got []int64
			for _, e := range ix.Entries {
				got = append(got, e.LastOffset)
			}
			if !idxEqual(got, tc.last) {
				t.Errorf("lastOffsets %v, want %v", got, tc.last)
			}
		})
	}
	ix, _ := ParseTxnIndex("", idxUnhex(t, hexTxnEntry), 0)
	want := AbortedTxn{Version: 0, ProducerID: 1000, FirstOffset: 5, LastOffset: 9, LastStableOffset: 5}
	if ix.Entries[0] != want || want.String() != "version: 0 producerId: 1000 firstOffset: 5 lastOffset: 9 lastStableOffset: 5" {
		t.Errorf("entry %+v", ix.Entries[0])
	}
}

func TestIndexFindingsCapped(t *testing.T) {
	// 10000 entries, every one out of order: a bounded list.
	var b []byte
	for i := range 10000 {
		b = append(b, idxOffEntry(int32(10000-i), int32(10000-i))...)
	}
	_, fds := ParseOffsetIndex("x.index", b, 0)
	if len(fds) != idxMaxFindings+1 || !strings.Contains(fds[len(fds)-1].Error(), "more index findings") {
		t.Fatalf("%d findings", len(fds))
	}
	if fds[0].Severity() != "error" {
		t.Error("severity")
	}
	_, fds = ParseOffsetIndex("x.index", make([]byte, 80), 0)
	if len(fds) != 1 || fds[0].Severity() != "note" {
		t.Errorf("zero tail severity: %v", fds)
	}
}

// TestIndexCorpus parses every .index and .timeindex file (live, .deleted,
// .cleaned and .swap) of the real corpus and expects no findings: the
// corpus holds only trimmed indexes.
func TestIndexCorpus(t *testing.T) {
	if _, err := os.Stat(indexCorpusDir); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("corpus %s absent", indexCorpusDir)
	}
	entries := map[string]int{}
	nIndex, nTime := 0, 0
	err := filepath.WalkDir(indexCorpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		for _, s := range []string{".deleted", ".cleaned", ".swap"} {
			name = strings.TrimSuffix(name, s)
		}
		var n int
		var found []*IndexFinding
		switch filepath.Ext(name) {
		case ".index":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			ix, fds := ParseOffsetIndex(path, data, -1)
			n, found = len(ix.Entries), fds
			nIndex++
		case ".timeindex":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			ix, fds := ParseTimeIndex(path, data, -1)
			n, found = len(ix.Entries), fds
			nTime++
		case ".txnindex":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			ix, fds := ParseTxnIndex(path, data, -1)
			n, found = len(ix.Entries), fds
		default:
			return nil
		}
		for _, f := range found {
			t.Errorf("%v", f)
		}
		rel, _ := filepath.Rel(indexCorpusDir, path)
		entries[filepath.ToSlash(rel)] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 657 live + 6 .deleted + 1 .swap / .cleaned of each kind.
	if nIndex != 664 || nTime != 664 {
		t.Errorf("parsed %d .index and %d .timeindex files", nIndex, nTime)
	}
	// Entry counts from MANIFEST.md.
	for rel, want := range map[string]int{
		"AdiletBatyrbayev0520__air_analyzer/kafka-data/data/__consumer_offsets-9/00000000000000003462.index.deleted":     93,
		"AdiletBatyrbayev0520__air_analyzer/kafka-data/data/__consumer_offsets-9/00000000000000003462.timeindex.deleted": 94,
		"AdiletBatyrbayev0520__air_analyzer/kafka-data/data/__consumer_offsets-9/00000000000000000000.timeindex":         1,
		"AdiletBatyrbayev0520__air_analyzer/kafka-data/data/__consumer_offsets-9/00000000000000000000.index":             0,
		"dipendrasaini__kafka-learnning-series/tmp/kafka-logs/invoice-0/00000000000000000000.index":                      85,
		"dipendrasaini__kafka-learnning-series/tmp/kafka-logs/invoice-0/00000000000000000000.timeindex":                  85,
		"dipendrasaini__kafka-learnning-series/tmp/kafka-logs/invoice-0/00000000000000030626.timeindex":                  1,
		"rjmfernandes__flink-on-prem/data/_confluent-monitoring-0/00000000000000000000.index":                            109,
		"rjmfernandes__flink-on-prem/data/_confluent-monitoring-0/00000000000000000000.timeindex":                        109,
		"rjmfernandes__flink-on-prem/data/loyalty_levels-0/00000000000000000000.index":                                   100,
		"rjmfernandes__flink-on-prem/data/loyalty_levels-0/00000000000000000000.timeindex":                               101,
		"rjmfernandes__flink-on-prem/data/_schemas-0/00000000000000000000.index":                                         1,
		"rjmfernandes__flink-on-prem/data/_schemas-0/00000000000000000000.timeindex":                                     2,
	} {
		got, ok := entries[rel]
		if !ok {
			t.Errorf("%s not parsed", rel)
		} else if got != want {
			t.Errorf("%s: %d entries, want %d", rel, got, want)
		}
	}
	// The 4355-entry .index.deleted of air_analyzer.
	max := 0
	for rel, n := range entries {
		if strings.HasPrefix(rel, "AdiletBatyrbayev0520__air_analyzer/") && strings.HasSuffix(rel, ".index.deleted") && n > max {
			max = n
		}
	}
	if max != 4355 {
		t.Errorf("largest air_analyzer .index.deleted has %d entries, want 4355", max)
	}
}
