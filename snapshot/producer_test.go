package snapshot

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/iotest"
)

// Worked examples of the version-1 snapshot layout.
const (
	hexOneEntry = "00 01 06 6d ac 72 00 00 00 01 00 00 00 00 00 00 03 e8 00 00 00 00 00 01 00 00 00 00 00 00 00 06" +
		"00 00 00 01 00 00 01 8b cf e5 68 01 ff ff ff ff ff ff ff ff ff ff ff ff"
	hexEmpty = "00 01 48 67 4b c7 00 00 00 00"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var exampleEntry = Entry{
	ProducerID: 1000, Epoch: 0, LastSequence: 1, LastOffset: 6, OffsetDelta: 1,
	Timestamp: 1700000000001, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1,
}

// Corruption helpers, named after the defect they make.
func flipByte(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0xff
	return c
}

func truncateAt(b []byte, n int) []byte { return bytes.Clone(b[:n]) }

// withCount rewrites the entry count and fixes the CRC, so the count is the
// only defect.
func withCount(b []byte, n int32) []byte {
	c := bytes.Clone(b)
	binary.BigEndian.PutUint32(c[6:], uint32(n))
	return fixCRC(c)
}

func fixCRC(b []byte) []byte {
	binary.BigEndian.PutUint32(b[2:], crcOf(b[6:]))
	return b
}

func crcOf(b []byte) uint32 {
	f, _ := Parse(append([]byte{0, 1, 0, 0, 0, 0}, b...))
	return f.ComputedCRC
}

func TestParseDerivedExamples(t *testing.T) {
	f, err := Parse(unhex(t, hexOneEntry))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || f.CRC != 0x066dac72 || !f.CRCValid() || f.Count != 1 || len(f.Entries) != 1 {
		t.Fatalf("header: %+v", f)
	}
	if f.Entries[0] != exampleEntry {
		t.Fatalf("entry = %+v, want %+v", f.Entries[0], exampleEntry)
	}
	e := f.Entries[0]
	if e.FirstSequence() != 0 || e.FirstOffset() != 5 || !e.HasBatch() || e.HasOpenTxn() {
		t.Errorf("FirstSequence %d FirstOffset %d", e.FirstSequence(), e.FirstOffset())
	}
	// The DumpLogSegments line for this snapshot.
	want := "producerId: 1000 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 1700000000001 firstSequence: 0 lastSequence: 1 lastOffset: 6 offsetDelta: 1 timestamp: 1700000000001"
	if got := e.String(); got != want {
		t.Errorf("String:\n got %q\nwant %q", got, want)
	}
	if !bytes.Equal(Encode([]Entry{exampleEntry}), unhex(t, hexOneEntry)) {
		t.Error("Encode does not reproduce the derived example")
	}

	f, err = Parse(unhex(t, hexEmpty))
	if err != nil || f.CRC != 0x48674bc7 || len(f.Entries) != 0 || f.Count != 0 {
		t.Fatalf("empty snapshot: %+v, %v", f, err)
	}
	if !bytes.Equal(Encode(nil), unhex(t, hexEmpty)) {
		t.Error("Encode(nil) does not reproduce the empty snapshot")
	}
}

func TestEntryNoBatchString(t *testing.T) {
	e := Entry{ProducerID: 7, Epoch: 2, LastSequence: -1, LastOffset: -1, Timestamp: 5, CoordinatorEpoch: 3, CurrentTxnFirstOffset: 40}
	want := "producerId: 7 producerEpoch: 2 coordinatorEpoch: 3 currentTxnFirstOffset: OptionalLong[40] lastTimestamp: 5 "
	if got := e.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if e.FirstOffset() != -1 || e.FirstSequence() != -1 || e.HasBatch() || !e.HasOpenTxn() {
		t.Error("no-batch entry accessors")
	}
}

func TestDecrementSequence(t *testing.T) {
	for _, tc := range []struct{ seq, delta, want int32 }{
		{1, 1, 0},
		{10, 3, 7},
		{0, 0, 0},
		{-1, 0, math.MaxInt32},    // Java arithmetic, even for NO_SEQUENCE
		{0, 1, math.MaxInt32},     // wraps below zero
		{2, 5, math.MaxInt32 - 2}, // MAX - (5-2) + 1
		{math.MaxInt32, math.MaxInt32, 0},
	} {
		if got := DecrementSequence(tc.seq, tc.delta); got != tc.want {
			t.Errorf("DecrementSequence(%d, %d) = %d, want %d", tc.seq, tc.delta, got, tc.want)
		}
		// Round trip with the broker's incrementSequence.
		if tc.seq >= 0 && tc.delta >= 0 {
			got := DecrementSequence(tc.seq, tc.delta)
			inc := got + tc.delta
			if got > math.MaxInt32-tc.delta {
				inc = tc.delta - (math.MaxInt32 - got) - 1
			}
			if inc != tc.seq {
				t.Errorf("increment(decrement(%d,%d)) = %d", tc.seq, tc.delta, inc)
			}
		}
	}
	// A producer whose sequence wrapped: lastSeq 1, delta 3 → firstSeq MAX-1.
	e := Entry{LastSequence: 1, OffsetDelta: 3, LastOffset: 10}
	if e.FirstSequence() != math.MaxInt32-1 {
		t.Errorf("wrapped FirstSequence = %d", e.FirstSequence())
	}
}

func TestParseMalformed(t *testing.T) {
	one := unhex(t, hexOneEntry)
	two := Encode([]Entry{exampleEntry, {ProducerID: 2, LastSequence: -1, LastOffset: -1, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1}})
	logFile := append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60, 0, 0, 0, 0, 2}, make([]byte, 60)...)
	badVersion := bytes.Clone(one)
	binary.BigEndian.PutUint16(badVersion, 2)
	withTrailing := fixCRC(append(bytes.Clone(one), 0, 0, 0))
	tornTrailing := append(bytes.Clone(one), 0xde, 0xad) // CRC no longer covers EOF

	for _, tc := range []struct {
		name        string
		in          []byte
		wantErrs    []error // every one must match errors.Is
		wantOffset  int64   // of the primary (first) FormatError
		wantEntries int
		wantNilErr  bool
	}{
		{name: "ok one", in: one, wantEntries: 1, wantNilErr: true},
		{name: "ok two", in: two, wantEntries: 2, wantNilErr: true},
		{name: "empty input", in: nil, wantErrs: []error{ErrEmpty}, wantOffset: 0},
		{name: "one byte", in: []byte{0}, wantErrs: []error{ErrTruncated}, wantOffset: 1},
		{name: "header cut in crc", in: truncateAt(one, 4), wantErrs: []error{ErrTruncated}, wantOffset: 4},
		{name: "header cut in count", in: truncateAt(one, 8), wantErrs: []error{ErrTruncated}, wantOffset: 8},
		{name: "bad version 2", in: badVersion, wantErrs: []error{ErrVersion}, wantOffset: 0},
		{name: "bad version 0", in: []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, wantErrs: []error{ErrVersion}, wantOffset: 0},
		{name: "log file fed in", in: logFile, wantErrs: []error{ErrVersion}, wantOffset: 0},
		{name: "text file fed in", in: []byte("0\n1\nfoo 0 12\n"), wantErrs: []error{ErrVersion}},
		{name: "crc flipped in entry", in: flipByte(one, 20), wantErrs: []error{ErrCRC}, wantOffset: 2, wantEntries: 1},
		{name: "crc field flipped", in: flipByte(one, 3), wantErrs: []error{ErrCRC}, wantOffset: 2, wantEntries: 1},
		{name: "truncated entry", in: truncateAt(one, 40), wantErrs: []error{ErrCRC, ErrTruncated}, wantOffset: 2},
		{name: "second entry truncated", in: truncateAt(two, 70), wantErrs: []error{ErrCRC, ErrTruncated}, wantOffset: 2, wantEntries: 1},
		{name: "count too big, crc fixed", in: withCount(one, 2), wantErrs: []error{ErrTruncated}, wantOffset: 56, wantEntries: 1},
		{name: "huge count", in: withCount(one, math.MaxInt32), wantErrs: []error{ErrTruncated}, wantOffset: 56, wantEntries: 1},
		{name: "negative count", in: withCount(one, -1), wantErrs: []error{ErrSyntax}, wantOffset: 6},
		{name: "count too small", in: withCount(two, 1), wantErrs: []error{ErrTrailing}, wantOffset: 56, wantEntries: 1},
		{name: "trailing bytes, crc covers them", in: withTrailing, wantErrs: []error{ErrTrailing}, wantOffset: 56, wantEntries: 1},
		{name: "trailing bytes after write", in: tornTrailing, wantErrs: []error{ErrCRC, ErrTrailing}, wantOffset: 2, wantEntries: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range []struct {
				name  string
				parse func([]byte) (*File, error)
			}{
				{"bytes", Parse},
				{"reader", func(b []byte) (*File, error) { return Read(bytes.NewReader(b), 0) }},
				{"onebyte", func(b []byte) (*File, error) { return Read(iotest.OneByteReader(bytes.NewReader(b)), 1<<20) }},
			} {
				f, err := rd.parse(tc.in)
				if f == nil {
					t.Fatalf("%s: nil File", rd.name)
				}
				if tc.wantNilErr != (err == nil) {
					t.Fatalf("%s: err = %v", rd.name, err)
				}
				for _, w := range tc.wantErrs {
					if !errors.Is(err, w) {
						t.Errorf("%s: err = %v, want %v", rd.name, err, w)
					}
				}
				if err != nil {
					var fe *FormatError
					if !errors.As(err, &fe) {
						t.Fatalf("%s: %T is not a *FormatError", rd.name, err)
					}
					if tc.wantOffset != 0 && fe.Offset != tc.wantOffset {
						t.Errorf("%s: offset = %d, want %d (%v)", rd.name, fe.Offset, tc.wantOffset, err)
					}
					if fe.Offset < 0 || fe.Offset > int64(len(tc.in)) {
						t.Errorf("%s: offset %d outside input of %d bytes", rd.name, fe.Offset, len(tc.in))
					}
					if !strings.Contains(err.Error(), "snapshot: ") {
						t.Errorf("%s: message lacks package prefix: %v", rd.name, err)
					}
				}
				if len(f.Entries) != tc.wantEntries {
					t.Errorf("%s: %d entries, want %d", rd.name, len(f.Entries), tc.wantEntries)
				}
			}
		})
	}
}

func TestReadLimit(t *testing.T) {
	in := unhex(t, hexOneEntry)
	_, err := Read(bytes.NewReader(in), 20)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if _, err := Read(bytes.NewReader(in), int64(len(in))); err != nil {
		t.Fatalf("exact limit: %v", err)
	}
	_, err = Read(iotest.ErrReader(errors.New("boom")), 0)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("I/O error lost: %v", err)
	}
}

func TestParseNamed(t *testing.T) {
	f, err := ParseNamed("/x/p-0/00000000000000000487.snapshot", unhex(t, hexEmpty))
	if err != nil || f.EndOffset != 487 || f.Path == "" {
		t.Fatalf("%+v %v", f, err)
	}
	_, err = ParseNamed("/x/p-0/00000000000000000487.snapshot", flipByte(unhex(t, hexEmpty), 9))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Path != "/x/p-0/00000000000000000487.snapshot" ||
		!strings.HasPrefix(err.Error(), "/x/p-0/00000000000000000487.snapshot: at byte 0x2 (2): snapshot: crc mismatch") {
		t.Fatalf("error = %v", err)
	}
}

func TestOffsetFromName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want int64
		ok   bool
	}{
		{"00000000000000000042.snapshot", 42, true},
		{"00000000000000000042.snapshot.deleted", 42, true},
		{"00000000000000003462.index.deleted", 3462, true},
		{"09223372036854775807.log", math.MaxInt64, true},
		{"09223372036854775808.log", 0, false}, // overflows int64
		{"00000000000000001234-0000000005.checkpoint", 1234, true},
		{"0000000000000000042.snapshot", 0, false}, // 19 digits
		{"0000000000000000004x.snapshot", 0, false},
		{"leader-epoch-checkpoint", 0, false},
		{"", 0, false},
		{".snapshot", 0, false},
	} {
		got, ok := OffsetFromName(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("OffsetFromName(%q) = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
