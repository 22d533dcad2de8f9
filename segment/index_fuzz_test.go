package segment

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addIndexSeeds adds up to max distinct corpus files with extension ext
// (".index", ".timeindex", ...), suffixes such as .deleted included.
func addIndexSeeds(f *testing.F, ext string, max int) {
	seen := map[string]bool{}
	_ = filepath.WalkDir(indexCorpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(seen) >= max {
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ext) && !strings.Contains(name, ext+".") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 || len(data) > 1<<16 || seen[string(data)] {
			return nil
		}
		seen[string(data)] = true
		f.Add(data, int64(0))
		return nil
	})
}

// checkIndexFindings asserts the invariants every index parser keeps:
// findings inside the input, with their file path, and an entry number no
// larger than the number of slots.
func checkIndexFindings(t *testing.T, data []byte, size int, found []*IndexFinding) {
	t.Helper()
	for _, f := range found {
		if f.Position < 0 || f.Position > int64(len(data)) {
			t.Fatalf("finding at %d outside input of %d bytes: %v", f.Position, len(data), f)
		}
		if f.Entry > len(data)/size+1 {
			t.Fatalf("finding names entry %d of %d: %v", f.Entry, len(data)/size, f)
		}
		if f.Path != "fuzz.idx" {
			t.Fatalf("finding without path: %v", f)
		}
	}
	if len(found) > idxMaxFindings+1 {
		t.Fatalf("%d findings", len(found))
	}
}

func FuzzOffsetIndex(f *testing.F) {
	f.Add(idxUnhex(f, hexOffsetEntry), int64(0))
	f.Add(idxCat(idxOffEntry(5, 4200), idxOffEntry(60, 8500), make([]byte, 40)), int64(10))
	f.Add(make([]byte, 80), int64(0))
	f.Add([]byte{1, 2, 3}, int64(-1))
	addIndexSeeds(f, ".index", 30)
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		ix, found := ParseOffsetIndex("fuzz.idx", data, base)
		checkIndexFindings(t, data, OffsetIndexEntrySize, found)
		if len(ix.Entries)+ix.ZeroTailEntries != len(data)/OffsetIndexEntrySize {
			t.Fatalf("%d entries + %d zero slots from %d bytes", len(ix.Entries), ix.ZeroTailEntries, len(data))
		}
		clean := true
		for _, fd := range found {
			if !errors.Is(fd, ErrIndexZeroTail) {
				clean = false
			}
		}
		for i, e := range ix.Entries {
			if i > 0 && clean && (e.Offset <= ix.Entries[i-1].Offset || e.Position <= ix.Entries[i-1].Position) {
				t.Fatal("unordered entries without a finding")
			}
		}
		// Re-parsing the entries that were returned gives the same entries.
		if len(ix.Entries) > 0 {
			prefix := data[:len(ix.Entries)*OffsetIndexEntrySize]
			again, _ := ParseOffsetIndex("fuzz.idx", prefix, base)
			if len(again.Entries) != len(ix.Entries) {
				t.Fatalf("prefix re-parse: %d entries, want %d", len(again.Entries), len(ix.Entries))
			}
		}
	})
}

func FuzzTimeIndex(f *testing.F) {
	f.Add(idxUnhex(f, hexTimeEntry), int64(0))
	f.Add(idxCat(idxTimeEntry(100, 1), idxTimeEntry(200, 5), make([]byte, 48)), int64(0))
	f.Add(make([]byte, 120), int64(7))
	addIndexSeeds(f, ".timeindex", 30)
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		ix, found := ParseTimeIndex("fuzz.idx", data, base)
		checkIndexFindings(t, data, TimeIndexEntrySize, found)
		if len(ix.Entries)+ix.ZeroTailEntries != len(data)/TimeIndexEntrySize {
			t.Fatalf("%d entries + %d zero slots from %d bytes", len(ix.Entries), ix.ZeroTailEntries, len(data))
		}
		ordered := true
		for i := 1; i < len(ix.Entries); i++ {
			if ix.Entries[i].Timestamp <= ix.Entries[i-1].Timestamp {
				ordered = false
			}
		}
		if !ordered {
			hasOrder := false
			for _, fd := range found {
				if errors.Is(fd, ErrIndexOrder) {
					hasOrder = true
				}
			}
			if !hasOrder {
				t.Fatal("out-of-order timestamps without a finding")
			}
		}
	})
}

func FuzzTxnIndex(f *testing.F) {
	f.Add(idxUnhex(f, hexTxnEntry), int64(0))
	f.Add(idxCat(idxTxnEntry(0, 1, 5, 9, 5), idxTxnEntry(0, 2, 3, 12, 10), make([]byte, 20)), int64(0))
	f.Add(idxTxnEntry(0x0100, 1, 15, 9, 5), int64(100))
	addIndexSeeds(f, ".txnindex", 10) // the corpus has none; kept for when it does
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		ix, found := ParseTxnIndex("fuzz.idx", data, base)
		checkIndexFindings(t, data, TxnIndexEntrySize, found)
		if len(ix.Entries) != len(data)/TxnIndexEntrySize {
			t.Fatalf("%d entries from %d bytes", len(ix.Entries), len(data))
		}
		// Every entry re-encodes to the bytes it came from.
		for i, e := range ix.Entries {
			enc := idxTxnEntry(e.Version, e.ProducerID, e.FirstOffset, e.LastOffset, e.LastStableOffset)
			if !bytes.Equal(enc, data[i*TxnIndexEntrySize:(i+1)*TxnIndexEntrySize]) {
				t.Fatalf("entry %d does not round-trip", i)
			}
		}
	})
}
