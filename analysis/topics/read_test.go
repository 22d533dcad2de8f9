package topics_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestReadSegmentFindings: a record with an unknown value version and a
// truncated one are findings naming the file, the batch position and the
// record offset; the good records around them still decode.
func TestReadSegmentFindings(t *testing.T) {
	key := new(enc).i16(1).str(false, "g").str(false, "orders").i32(0).b
	good := new(enc).i16(3).i64(10).i32(1).str(false, "").i64(1700000000000).b
	first := segtest.Batch{Magic: 2, BaseOffset: 100, FirstTimestamp: 1700000000000, AutoDeltas: true,
		Records: []segtest.Record{{Key: key, Value: good}, {Key: key, Value: new(enc).i16(9).i64(1).b}}}.Encode()
	second := segtest.Batch{Magic: 2, BaseOffset: 102, FirstTimestamp: 1700000000000, AutoDeltas: true,
		Records: []segtest.Record{{Key: key, Value: good[:5]}, {Key: key, Value: nil}}}.Encode()
	in := append(append([]byte{}, first...), second...)
	st, fs, err := topics.ReadSegment("x/__consumer_offsets-0/00000000000000000100.log", bytes.NewReader(in), topics.ConsumerOffsets, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 4 || st.Tombstones != 1 || st.Types["OffsetCommit"] != 4 {
		t.Errorf("stats %+v", st)
	}
	if len(fs) != 2 {
		t.Fatalf("findings %v", fs)
	}
	if f := fs[0]; f.Position != 0 || f.Offset != 101 || !errors.Is(f, topics.ErrUnknownVersion) || f.Kind() != "unknown-version" {
		t.Errorf("first finding %v (%s)", f, f.Kind())
	}
	if f := fs[1]; f.Position != int64(len(first)) || f.Offset != 102 || !errors.Is(f, topics.ErrMalformed) || f.Kind() != "malformed-record" {
		t.Errorf("second finding %v (%s)", f, f.Kind())
	}
}
