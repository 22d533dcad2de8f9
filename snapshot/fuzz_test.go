package snapshot

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// formatErrors lists every *FormatError inside err (through errors.Join).
func formatErrors(err error) []*FormatError {
	var out []*FormatError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if fe, ok := e.(*FormatError); ok {
			out = append(out, fe)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// checkPositions asserts that every finding lies inside the input.
func checkPositions(t *testing.T, data []byte, err error) {
	t.Helper()
	if err == nil {
		return
	}
	fes := formatErrors(err)
	if len(fes) == 0 {
		t.Fatalf("error without FormatError: %v", err)
	}
	lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 2
	for _, fe := range fes {
		if fe.Offset < 0 || fe.Offset > int64(len(data)) {
			t.Fatalf("offset %d outside input of %d bytes: %v", fe.Offset, len(data), fe)
		}
		if fe.Line < 0 || fe.Line > lines {
			t.Fatalf("line %d outside input of ≤%d lines: %v", fe.Line, lines, fe)
		}
	}
}

// addCorpusSeeds adds distinct corpus files whose kind passes keep, at most
// perKind of each kind.
func addCorpusSeeds(f *testing.F, keep func(Kind) bool, perKind int) {
	seen := map[string]bool{}
	per := map[Kind]int{}
	_ = filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		k := KindOf(d.Name())
		if err != nil || d.IsDir() || !keep(k) || per[k] >= perKind {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) > 1<<16 || seen[string(data)] {
			return nil
		}
		seen[string(data)] = true
		per[k]++
		f.Add(data)
		return nil
	})
}

func FuzzSnapshotParse(f *testing.F) {
	f.Add(unhex(f, hexOneEntry))
	f.Add(unhex(f, hexEmpty))
	f.Add(Encode([]Entry{exampleEntry, exampleEntry}))
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	addCorpusSeeds(f, func(k Kind) bool { return k == KindSnapshot }, 30)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if file == nil {
			t.Fatal("nil File")
		}
		checkPositions(t, data, err)
		maxEntries := 0
		if len(data) >= HeaderSize {
			maxEntries = (len(data) - HeaderSize) / EntrySize
		}
		if len(file.Entries) > maxEntries {
			t.Fatalf("%d entries from %d bytes", len(file.Entries), len(data))
		}
		if err == nil {
			// A file that parses cleanly is exactly what Encode writes.
			if !bytes.Equal(Encode(file.Entries), data) {
				t.Fatal("valid file does not round-trip")
			}
			return
		}
		if errors.Is(err, ErrCRC) == file.CRCValid() && len(data) >= HeaderSize && file.Version == SnapshotVersion {
			t.Fatalf("ErrCRC %v but CRCValid %v", errors.Is(err, ErrCRC), file.CRCValid())
		}
		// Re-parsing the valid prefix gives the same entries.
		if len(file.Entries) > 0 {
			again, err2 := Parse(Encode(file.Entries))
			if err2 != nil || len(again.Entries) != len(file.Entries) {
				t.Fatalf("re-parse of decoded entries: %v", err2)
			}
		}
	})
}

func FuzzCheckpoint(f *testing.F) {
	for _, s := range []string{
		"0\n2\nmytopic 0 1234\nmytopic 1 99\n",
		"0\r\n1\r\n4 0\r\n",
		"0\n3\n0 0\n2 17\n5 17\n",
		"",
		"0\n-1\n",
		"version: 0\ntopic_id: ZXO_LeiHTaaEE76lfnYZUg",
		"#\n#d\nnode.id=1\nversion=1\ncluster.id=x\\\n  y\n",
		`{"version":0,"brokerEpoch":7}`,
	} {
		f.Add([]byte(s))
	}
	addCorpusSeeds(f, Kind.IsText, 8)
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1

		oc, err := ParseOffsetCheckpoint("recovery-point-offset-checkpoint", data)
		if oc == nil {
			t.Fatal("nil OffsetCheckpoint")
		}
		checkPositions(t, data, err)
		if len(oc.Entries) > lines {
			t.Fatalf("%d entries from %d lines", len(oc.Entries), lines)
		}
		if err == nil && !oc.Empty && len(oc.Entries) != oc.Count {
			t.Fatalf("no error but %d entries for count %d", len(oc.Entries), oc.Count)
		}

		le, err := ParseLeaderEpochCheckpoint("leader-epoch-checkpoint", data)
		if le == nil {
			t.Fatal("nil LeaderEpochCheckpoint")
		}
		checkPositions(t, data, err)
		if err == nil {
			for i := 1; i < len(le.Entries); i++ {
				if le.Entries[i].Epoch <= le.Entries[i-1].Epoch {
					t.Fatal("unordered epochs accepted")
				}
			}
		}

		pm, err := ParsePartitionMetadata("partition.metadata", data)
		if pm == nil {
			t.Fatal("nil PartitionMetadata")
		}
		checkPositions(t, data, err)
		if err == nil && pm.TopicID.IsZero() {
			t.Fatal("zero topic id accepted")
		}

		mp, err := ParseMetaProperties("meta.properties", data)
		if mp == nil {
			t.Fatal("nil MetaProperties")
		}
		checkPositions(t, data, err)

		cs, err := ParseCleanShutdown(".kafka_cleanshutdown", data)
		if cs == nil {
			t.Fatal("nil CleanShutdown")
		}
		checkPositions(t, data, err)

		qs, err := ParseQuorumState("quorum-state", data)
		if qs == nil {
			t.Fatal("nil QuorumState")
		}
		checkPositions(t, data, err)

		_ = ParseName(string(data))
	})
}
