package segtest

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const ts0 = 1700000000000 // 0x18BCFE56800, the timestamp of every example

// unhex parses hex with any whitespace, as the vectors are laid out in
// the format notes.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad test vector: %v", err)
	}
	return b
}

func wantBytes(t *testing.T, name string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %x\nwant %x", name, got, want)
	}
}

// TestVectors checks worked hex examples of the v2, legacy and codec
// layouts byte for byte.
func TestVectors(t *testing.T) {
	oneRecord := Batch{Magic: 2, FirstTimestamp: ts0, Records: []Record{{Key: []byte("k"), Value: []byte("v")}}}
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"v2 one record", oneRecord.Encode(), `
			00 00 00 00 00 00 00 00  00 00 00 3a  00 00 00 00  02  e9 9b 8d d8  00 00  00 00 00 00
			00 00 01 8b cf e5 68 00  00 00 01 8b cf e5 68 00  ff ff ff ff ff ff ff ff  ff ff  ff ff ff ff
			00 00 00 01  10 00 00 00 02 6b 02 76 00`},
		{"v2 record with null key and header", appendRecordV2(nil, Record{
			OffsetDelta: 1, TimestampDelta: 1, Value: []byte("b"),
			Headers: []Header{{Key: "h", Value: []byte("1")}},
		}), `16 00 02 02 01 02 62 02 02 68 02 31`},
		{"COMMIT marker", Marker(7, 1000, 0, true, 7, ts0+5, 3), `
			00 00 00 00 00 00 00 07 00 00 00 42 00 00 00 03 02 c3 c6 17 a4 00 30 00 00 00 00 00 00 01 8b cf
			e5 68 05 00 00 01 8b cf e5 68 05 00 00 00 00 00 00 03 e8 00 00 ff ff ff ff 00 00 00 01 20 00 00
			00 08 00 00 00 01 0c 00 00 00 00 00 07 00`},
		{"empty compacted batch", Batch{
			Magic: 2, BaseOffset: 10, PartitionLeaderEpoch: 4, Transactional: true,
			LastOffsetDelta: 2, FirstTimestamp: -1, MaxTimestamp: ts0,
			Producer: &Producer{ID: 1000, Epoch: 0, BaseSequence: 5},
		}.Encode(), `
			00 00 00 00 00 00 00 0a 00 00 00 31 00 00 00 04 02 df 8f 12 58 00 10 00 00 00 02 ff ff ff ff ff
			ff ff ff 00 00 01 8b cf e5 68 00 00 00 00 00 00 00 03 e8 00 00 00 00 00 05 00 00 00 00`},
		{"v1 message", Batch{Magic: 1, FirstTimestamp: ts0, Records: []Record{{Value: []byte("v")}}}.Encode(),
			`00 00 00 00 00 00 00 00 00 00 00 17 c1 67 2a c5 01 00 00 00 01 8b cf e5 68 00 ff ff ff ff 00 00 00 01 76`},
		{"v0 message", Batch{Magic: 0, FirstTimestamp: ts0, Records: []Record{{Value: []byte("v")}}}.Encode(),
			`00 00 00 00 00 00 00 00 00 00 00 0f d2 0c bf f5 00 00 ff ff ff ff 00 00 00 01 76`},
		{"snappy payload", XerialCompress(unhex(t, "10000000026b027600")),
			`82534e41505059000000000100000001 0000000b 0920 10000000026b027600`},
		{"lz4 payload", LZ4Compress(unhex(t, "10000000026b027600"), false),
			`04224d18604082 09000080 10000000026b027600 00000000`},
	}
	for _, tt := range tests {
		wantBytes(t, tt.name, tt.got, unhex(t, tt.want))
	}

	//: the snappy batch is 92 bytes with CRC 0x08ee4869.
	sn := oneRecord
	sn.Codec = CodecSnappy
	b := sn.Encode()
	if len(b) != 92 || be.Uint32(b[17:]) != 0x08ee4869 || be.Uint16(b[21:]) != 0x0002 {
		t.Errorf("snappy batch: len %d crc %#x attrs %#x, want 92, 0x08ee4869, 0x0002", len(b), be.Uint32(b[17:]), be.Uint16(b[21:]))
	}
	wantBytes(t, "snappy batch payload", b[61:], XerialCompress(unhex(t, "10000000026b027600")))

	//: HC 0x82 for FLG,BD and the KAFKA-3160 0x1a for magic 0.
	if got := LZ4HeaderChecksum(false); got != 0x82 {
		t.Errorf("lz4 HC = %#x, want 0x82", got)
	}
	if got := LZ4HeaderChecksum(true); got != 0x1a {
		t.Errorf("lz4 broken HC = %#x, want 0x1a", got)
	}
	for _, tc := range []struct {
		magic int8
		hc    LZ4HC
		want  byte
	}{{0, LZ4HCKafka, 0x1a}, {1, LZ4HCKafka, 0x82}, {2, LZ4HCKafka, 0x82}, {0, LZ4HCCorrect, 0x82}, {2, LZ4HCBroken, 0x1a}} {
		bt := Batch{Magic: tc.magic, Codec: CodecLZ4, LZ4HC: tc.hc, FirstTimestamp: ts0, Records: []Record{{Value: []byte("v")}}}
		enc := bt.Encode()
		payload := enc[61:]
		if tc.magic < 2 {
			payload = legacyValue(t, enc)
		}
		if len(payload) < 7 || payload[6] != tc.want {
			t.Errorf("magic %d hc mode %d: HC byte in %x, want %#x", tc.magic, tc.hc, payload, tc.want)
		}
	}
}

// legacyValue returns the value of the single legacy message in entry.
func legacyValue(t *testing.T, entry []byte) []byte {
	t.Helper()
	var v []byte
	switch entry[16] {
	case 0:
		var m kmsg.MessageV0
		if err := m.ReadFrom(entry); err != nil {
			t.Fatal(err)
		}
		v = m.Value
	default:
		var m kmsg.MessageV1
		if err := m.ReadFrom(entry); err != nil {
			t.Fatal(err)
		}
		v = m.Value
	}
	return v
}

func TestXXH32(t *testing.T) {
	// Reference values from the xxHash specification's test suite.
	if got := XXH32(nil, 0); got != 0x02cc5d05 {
		t.Errorf("xxh32(empty) = %#x, want 0x02cc5d05", got)
	}
	// pierrec/lz4 writes the xxh32 of the content as the frame checksum,
	// which exercises both the short and the 16-byte-stripe paths.
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 3, 4, 15, 16, 17, 31, 64, 1000} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.UintN(256))
		}
		var buf bytes.Buffer
		w := lz4.NewWriter(&buf)
		if err := w.Apply(lz4.ChecksumOption(true)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(src); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		frame := buf.Bytes()
		want := binary.LittleEndian.Uint32(frame[len(frame)-4:])
		if got := XXH32(src, 0); got != want {
			t.Errorf("xxh32(%d bytes) = %#x, pierrec frame checksum %#x", n, got, want)
		}
	}
}

// decompress is the test's independent decoder for each codec. For lz4 it
// checks the HC byte it is told to expect and, for a correct HC, also runs
// pierrec's standard frame reader over the same bytes.
func decompress(t *testing.T, c Codec, brokenHC bool, src []byte) []byte {
	t.Helper()
	switch c {
	case CodecNone:
		return src
	case CodecGzip:
		r, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return out
	case CodecSnappy:
		if !bytes.HasPrefix(src, XerialHeader[:8]) {
			out, err := s2.Decode(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		var out []byte
		rest := src[16:]
		for len(rest) >= 4 {
			n := int(be.Uint32(rest))
			if n > len(rest)-4 {
				t.Fatalf("xerial chunk of %d bytes, %d left", n, len(rest)-4)
			}
			dec, err := s2.Decode(nil, rest[4:4+n])
			if err != nil {
				t.Fatal(err)
			}
			if len(dec) > 32<<10 {
				t.Errorf("xerial chunk decodes to %d bytes, more than 32 KiB", len(dec))
			}
			out = append(out, dec...)
			rest = rest[4+n:]
		}
		if len(rest) != 0 {
			t.Errorf("%d trailing bytes after xerial chunks", len(rest))
		}
		return out
	case CodecLZ4:
		return decodeLZ4(t, brokenHC, src)
	case CodecZstd:
		d, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		out, err := d.DecodeAll(src, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	t.Fatalf("no decoder for %v", c)
	return nil
}

func decodeLZ4(t *testing.T, brokenHC bool, src []byte) []byte {
	t.Helper()
	if len(src) < 11 || !bytes.Equal(src[:6], []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40}) {
		t.Fatalf("lz4 frame header %x", src[:min(len(src), 7)])
	}
	hdrFrom := 4
	if brokenHC {
		hdrFrom = 0
	}
	if want := byte(XXH32(src[hdrFrom:6], 0) >> 8); src[6] != want {
		t.Errorf("lz4 HC %#x, want %#x (broken=%v)", src[6], want, brokenHC)
	}
	var out []byte
	rest := src[7:]
	blk := make([]byte, 64<<10)
	for {
		if len(rest) < 4 {
			t.Fatalf("lz4 frame without end mark")
		}
		size := binary.LittleEndian.Uint32(rest)
		rest = rest[4:]
		if size == 0 {
			break
		}
		n := int(size &^ 0x80000000)
		if n > len(rest) || n > 64<<10 {
			t.Fatalf("lz4 block of %d bytes, %d left", n, len(rest))
		}
		if size&0x80000000 != 0 {
			out = append(out, rest[:n]...)
		} else {
			m, err := lz4.UncompressBlock(rest[:n], blk)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, blk[:m]...)
		}
		rest = rest[n:]
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes after lz4 end mark", len(rest))
	}
	if !brokenHC {
		std, err := io.ReadAll(lz4.NewReader(bytes.NewReader(src)))
		if err != nil {
			t.Errorf("pierrec lz4 reader rejects the frame: %v", err)
		} else if !bytes.Equal(std, out) {
			t.Errorf("pierrec lz4 reader disagrees")
		}
	}
	return out
}

// sameBytes compares with null/empty distinguished.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// checkV2 parses one encoded v2 batch with kmsg, decompresses it with the
// test's decoders and compares every field with b and with Describe.
func checkV2(t *testing.T, b Batch, enc []byte) {
	t.Helper()
	var kb kmsg.RecordBatch
	if err := kb.ReadFrom(enc); err != nil {
		t.Fatalf("kmsg: %v", err)
	}
	if got := kb.AppendTo(nil); !bytes.Equal(got, enc) {
		t.Errorf("kmsg re-encoding differs:\n got %x\nwant %x", got, enc)
	}
	infos := b.Describe()
	if len(infos) != 1 {
		t.Fatalf("Describe: %d entries, want 1", len(infos))
	}
	info := infos[0]
	rs := b.records()
	p := b.producer()
	if int(kb.Length)+12 != len(enc) || info.Size != len(enc) {
		t.Errorf("length %d, info size %d, encoded %d", kb.Length, info.Size, len(enc))
	}
	if crc := crc32.Checksum(enc[21:], castagnoli); uint32(kb.CRC) != crc || info.CRC != crc {
		t.Errorf("crc stored %#x info %#x computed %#x", uint32(kb.CRC), info.CRC, crc)
	}
	wantAttrs := int16(b.Codec)
	if b.LogAppendTime {
		wantAttrs |= 8
	}
	if b.Transactional {
		wantAttrs |= 0x10
	}
	if b.Control {
		wantAttrs |= 0x20
	}
	if b.DeleteHorizon {
		wantAttrs |= 0x40
	}
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("FirstOffset", kb.FirstOffset, b.BaseOffset)
	check("PartitionLeaderEpoch", kb.PartitionLeaderEpoch, b.PartitionLeaderEpoch)
	check("Magic", kb.Magic, int8(2))
	check("Attributes", kb.Attributes, wantAttrs)
	check("info.Attributes", info.Attributes, wantAttrs)
	check("FirstTimestamp", kb.FirstTimestamp, b.FirstTimestamp)
	check("MaxTimestamp", kb.MaxTimestamp, info.MaxTimestamp)
	check("ProducerID", kb.ProducerID, p.ID)
	check("ProducerEpoch", kb.ProducerEpoch, p.Epoch)
	check("FirstSequence", kb.FirstSequence, p.BaseSequence)
	check("NumRecords", kb.NumRecords, int32(len(rs)))
	check("LastOffset", kb.FirstOffset+int64(kb.LastOffsetDelta), info.LastOffset)
	if b.MaxTimestamp != 0 {
		check("explicit MaxTimestamp", kb.MaxTimestamp, b.MaxTimestamp)
	}

	if len(rs) == 0 {
		check("records area", len(kb.Records), 0)
		return
	}
	area := decompress(t, b.Codec, false, kb.Records)
	var maxTS int64 = -1 << 63
	var lastDelta int32
	for i, want := range rs {
		l, n := binary.Varint(area)
		if n <= 0 || int(l) > len(area)-n {
			t.Fatalf("record %d: bad length prefix", i)
		}
		var kr kmsg.Record
		if err := kr.ReadFrom(area[:n+int(l)]); err != nil {
			t.Fatalf("record %d: kmsg: %v", i, err)
		}
		if got := kr.AppendTo(nil); !bytes.Equal(got, area[:n+int(l)]) {
			t.Errorf("record %d: kmsg re-encoding differs", i)
		}
		area = area[n+int(l):]
		check("record Attributes", kr.Attributes, int8(0))
		check("record TimestampDelta", kr.TimestampDelta64, want.TimestampDelta)
		check("record OffsetDelta", kr.OffsetDelta, want.OffsetDelta)
		if !sameBytes(kr.Key, want.Key) || !sameBytes(kr.Value, want.Value) {
			t.Errorf("record %d: key/value %q/%q, want %q/%q", i, kr.Key, kr.Value, want.Key, want.Value)
		}
		if len(kr.Headers) != len(want.Headers) {
			t.Fatalf("record %d: %d headers, want %d", i, len(kr.Headers), len(want.Headers))
		}
		for j, h := range kr.Headers {
			if h.Key != want.Headers[j].Key || !sameBytes(h.Value, want.Headers[j].Value) {
				t.Errorf("record %d header %d: %q=%q, want %q=%q", i, j, h.Key, h.Value, want.Headers[j].Key, want.Headers[j].Value)
			}
		}
		ri := info.Records[i]
		check("info offset", ri.Offset, kb.FirstOffset+int64(kr.OffsetDelta))
		wantTS := kb.FirstTimestamp + kr.TimestampDelta64
		maxTS = max(maxTS, wantTS)
		if b.LogAppendTime {
			wantTS = kb.MaxTimestamp
		}
		check("info timestamp", ri.Timestamp, wantTS)
		lastDelta = max(lastDelta, kr.OffsetDelta)
	}
	if len(area) != 0 {
		t.Errorf("%d bytes after the last record", len(area))
	}
	if b.MaxTimestamp == 0 {
		check("computed MaxTimestamp", kb.MaxTimestamp, maxTS)
	}
	check("LastOffsetDelta", kb.LastOffsetDelta, max(lastDelta, b.LastOffsetDelta))
}

// sampleRecords covers null, empty and binary keys and values, and
// headers including a null header value and a repeated header key.
func sampleRecords() []Record {
	return []Record{
		{Key: []byte("k"), Value: []byte("v")},
		{Key: nil, Value: []byte("null key"), TimestampDelta: 3},
		{Key: []byte("tombstone"), Value: nil, TimestampDelta: 1},
		{Key: []byte{}, Value: []byte{}, TimestampDelta: 7},
		{Key: []byte{0, 0xff, 0x80}, Value: bytes.Repeat([]byte("abc"), 100), TimestampDelta: -2,
			Headers: []Header{{Key: "h", Value: []byte("1")}, {Key: "null", Value: nil}, {Key: "", Value: []byte{}}, {Key: "h", Value: []byte("2")}}},
	}
}

func TestV2Kmsg(t *testing.T) {
	big := make([]Record, 300)
	for i := range big {
		big[i] = Record{Key: fmt.Appendf(nil, "key-%04d", i), Value: bytes.Repeat([]byte{byte(i)}, 500), TimestampDelta: int64(i)}
	}
	variants := []struct {
		name string
		mod  func(*Batch)
	}{
		{"plain", func(*Batch) {}},
		{"idempotent", func(b *Batch) { b.Producer = &Producer{ID: 4000, Epoch: 2, BaseSequence: 17} }},
		{"sequence wrap", func(b *Batch) { b.Producer = &Producer{ID: 1, Epoch: 0, BaseSequence: 1<<31 - 2} }},
		{"transactional", func(b *Batch) {
			b.Transactional = true
			b.Producer = &Producer{ID: 7, Epoch: 1, BaseSequence: 0}
		}},
		{"log append time", func(b *Batch) { b.LogAppendTime = true; b.MaxTimestamp = ts0 + 99999 }},
		{"delete horizon", func(b *Batch) { b.DeleteHorizon = true }},
		{"compacted gaps", func(b *Batch) {
			b.AutoDeltas = false
			b.LastOffsetDelta = 40
			for i := range b.Records {
				b.Records[i].OffsetDelta = int32(3*i + 1)
			}
		}},
		{"big multi-block", func(b *Batch) { b.Records = big }},
	}
	for _, c := range []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		for _, raw := range []bool{false, true} {
			if raw && c != CodecSnappy {
				continue
			}
			for _, v := range variants {
				b := Batch{Magic: 2, BaseOffset: 1234, PartitionLeaderEpoch: 5, Codec: c, SnappyRaw: raw,
					FirstTimestamp: ts0, AutoDeltas: true, LastOffsetDelta: -1, Records: sampleRecords()}
				v.mod(&b)
				t.Run(fmt.Sprintf("%v/raw=%v/%s", c, raw, v.name), func(t *testing.T) {
					if err := b.Validate(); err != nil {
						t.Errorf("Validate: %v", err)
					}
					checkV2(t, b, b.Encode())
				})
			}
		}
	}
	t.Run("markers", func(t *testing.T) {
		for _, commit := range []bool{true, false} {
			m := MarkerBatch(99, 1000, 3, commit, 12, ts0, 2)
			enc := m.Encode()
			checkV2(t, m, enc)
			var kb kmsg.RecordBatch
			if err := kb.ReadFrom(enc); err != nil {
				t.Fatal(err)
			}
			var kr kmsg.Record
			if err := kr.ReadFrom(kb.Records); err != nil {
				t.Fatal(err)
			}
			var key kmsg.ControlRecordKey
			var val kmsg.EndTxnMarker
			if err := key.ReadFrom(kr.Key); err != nil {
				t.Fatal(err)
			}
			if err := val.ReadFrom(kr.Value); err != nil {
				t.Fatal(err)
			}
			wantType := ControlAbort
			if commit {
				wantType = ControlCommit
			}
			if int16(key.Type) != wantType || val.CoordinatorEpoch != 12 || kb.Attributes != 0x30 || kb.FirstSequence != -1 {
				t.Errorf("marker: type %d coord %d attrs %#x seq %d", key.Type, val.CoordinatorEpoch, kb.Attributes, kb.FirstSequence)
			}
		}
	})
	t.Run("kraft control", func(t *testing.T) {
		b := ControlBatch(0, ControlLeaderChange, LeaderChangeValue(1, []int32{1, 2, 3}, []int32{1, 2}), ts0, 1)
		checkV2(t, b, b.Encode())
		var lc kmsg.LeaderChangeMessage
		if err := lc.ReadFrom(b.Records[0].Value); err != nil {
			t.Fatal(err)
		}
		if lc.LeaderID != 1 || len(lc.Voters) != 3 || len(lc.GrantingVoters) != 2 || lc.Voters[2].VoterID != 3 {
			t.Errorf("leader change parsed as %+v", lc)
		}
		wantBytes(t, "snapshot header", SnapshotHeaderValue(ts0), unhex(t, "0000 0000018bcfe56800 00"))
		wantBytes(t, "snapshot footer", SnapshotFooterValue(), unhex(t, "0000 00"))
		wantBytes(t, "kraft version", KRaftVersionValue(1), unhex(t, "0000 0001 00"))
		wantBytes(t, "control key", ControlRecordKey(ControlKRaftVoters), unhex(t, "0000 0006"))
	})
}

// checkLegacy parses every entry of a legacy encoding with kmsg, verifies
// the CRCs and, for wrappers, the inner message set, and compares with
// Describe.
func checkLegacy(t *testing.T, b Batch, enc []byte) {
	t.Helper()
	infos := b.Describe()
	rs := b.records()
	type msg struct {
		offset   int64
		size     int32
		crc      uint32
		attrs    int8
		ts       int64
		key, val []byte
	}
	parse := func(buf []byte) msg {
		t.Helper()
		if len(buf) < 17 {
			t.Fatalf("entry of %d bytes", len(buf))
		}
		if int8(buf[16]) != b.Magic {
			t.Fatalf("magic %d, want %d", buf[16], b.Magic)
		}
		size := int32(be.Uint32(buf[8:]))
		if crc := crc32.ChecksumIEEE(buf[16 : 12+size]); crc != be.Uint32(buf[12:]) {
			t.Errorf("crc stored %#x computed %#x", be.Uint32(buf[12:]), crc)
		}
		if b.Magic == 0 {
			var m kmsg.MessageV0
			if err := m.ReadFrom(buf[:12+size]); err != nil {
				t.Fatal(err)
			}
			return msg{m.Offset, m.MessageSize, uint32(m.CRC), m.Attributes, -1, m.Key, m.Value}
		}
		var m kmsg.MessageV1
		if err := m.ReadFrom(buf[:12+size]); err != nil {
			t.Fatal(err)
		}
		if got := m.AppendTo(nil); !bytes.Equal(got, buf[:12+size]) {
			t.Errorf("kmsg re-encoding differs")
		}
		return msg{m.Offset, m.MessageSize, uint32(m.CRC), m.Attributes, m.Timestamp, m.Key, m.Value}
	}
	var tsBit int8
	if b.LogAppendTime && b.Magic >= 1 {
		tsBit = 8
	}
	if b.Codec == CodecNone {
		if len(infos) != len(rs) {
			t.Fatalf("%d entries described, want %d", len(infos), len(rs))
		}
		rest := enc
		for i, r := range rs {
			m := parse(rest)
			info := infos[i]
			if info.Position != int64(len(enc)-len(rest)) || info.Size != int(m.size)+12 {
				t.Errorf("entry %d: info pos/size %d/%d", i, info.Position, info.Size)
			}
			rest = rest[12+m.size:]
			wantTS := int64(-1)
			if b.Magic >= 1 {
				wantTS = b.FirstTimestamp + r.TimestampDelta
				if tsBit != 0 {
					wantTS = info.MaxTimestamp
				}
			}
			if m.offset != b.BaseOffset+int64(r.OffsetDelta) || m.attrs != tsBit || m.ts != wantTS ||
				!sameBytes(m.key, r.Key) || !sameBytes(m.val, r.Value) {
				t.Errorf("entry %d: %+v, want offset %d ts %d key %q value %q", i, m, b.BaseOffset+int64(r.OffsetDelta), wantTS, r.Key, r.Value)
			}
			if info.Records[0].Offset != m.offset || info.Records[0].Timestamp != m.ts || info.CRC != m.crc {
				t.Errorf("entry %d: info %+v disagrees with %+v", i, info.Records[0], m)
			}
		}
		if len(rest) != 0 {
			t.Errorf("%d trailing bytes", len(rest))
		}
		return
	}
	w := parse(enc)
	if int(w.size)+12 != len(enc) || len(infos) != 1 {
		t.Fatalf("wrapper size %d of %d bytes, %d infos", w.size, len(enc), len(infos))
	}
	info := infos[0]
	if w.key != nil || w.attrs != int8(b.Codec)|tsBit || w.crc != info.CRC {
		t.Errorf("wrapper key %x attrs %#x crc %#x", w.key, w.attrs, w.crc)
	}
	broken := b.Magic == 0 && b.Codec == CodecLZ4
	inner := decompress(t, b.Codec, broken, w.val)
	var innerTSMax int64 = -1
	for i, r := range rs {
		m := parse(inner)
		inner = inner[12+m.size:]
		wantOff := int64(r.OffsetDelta)
		if b.Magic == 0 {
			wantOff += b.BaseOffset
		}
		wantTS := int64(-1)
		if b.Magic >= 1 {
			wantTS = b.FirstTimestamp + r.TimestampDelta
			innerTSMax = max(innerTSMax, wantTS)
		}
		if m.offset != wantOff || m.attrs != 0 || m.ts != wantTS || !sameBytes(m.key, r.Key) || !sameBytes(m.val, r.Value) {
			t.Errorf("inner %d: %+v, want offset %d ts %d", i, m, wantOff, wantTS)
		}
		ri := info.Records[i]
		reportTS := wantTS
		if tsBit != 0 {
			reportTS = w.ts
		}
		// The reader's rule for legacy offsets applied to the wire values.
		abs := m.offset
		if b.Magic >= 1 {
			last, _ := maxDelta(rs)
			abs = w.offset - int64(last) + m.offset
		}
		if ri.Offset != abs || ri.Timestamp != reportTS {
			t.Errorf("inner %d: info offset/ts %d/%d, want %d/%d", i, ri.Offset, ri.Timestamp, abs, reportTS)
		}
	}
	if len(inner) != 0 {
		t.Errorf("%d bytes after inner messages", len(inner))
	}
	last, _ := maxDelta(rs)
	if w.offset != b.BaseOffset+int64(last) || info.LastOffset != w.offset {
		t.Errorf("wrapper offset %d, want %d", w.offset, b.BaseOffset+int64(last))
	}
	if b.Magic >= 1 {
		wantWTS := innerTSMax
		if tsBit != 0 {
			wantWTS = b.MaxTimestamp
		}
		if w.ts != wantWTS {
			t.Errorf("wrapper timestamp %d, want %d", w.ts, wantWTS)
		}
	}
}

func TestLegacyKmsg(t *testing.T) {
	recs := func() []Record {
		rs := sampleRecords()
		for i := range rs {
			rs[i].Headers = nil // legacy has no headers
		}
		return rs
	}
	for _, magic := range []int8{0, 1} {
		for _, c := range []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4} {
			for _, raw := range []bool{false, true} {
				if raw && c != CodecSnappy {
					continue
				}
				for _, lat := range []bool{false, true} {
					if lat && magic == 0 {
						continue
					}
					b := Batch{Magic: magic, BaseOffset: 500, Codec: c, SnappyRaw: raw, LogAppendTime: lat,
						FirstTimestamp: ts0, AutoDeltas: true, Records: recs()}
					if lat {
						b.MaxTimestamp = ts0 + 5000
					}
					t.Run(fmt.Sprintf("v%d/%v/raw=%v/lat=%v", magic, c, raw, lat), func(t *testing.T) {
						if err := b.Validate(); err != nil {
							t.Errorf("Validate: %v", err)
						}
						checkLegacy(t, b, b.Encode())
					})
				}
			}
		}
	}
}

func TestFixCRC(t *testing.T) {
	for _, b := range []Batch{
		{Magic: 2, FirstTimestamp: ts0, Records: []Record{{Value: []byte("v")}}},
		{Magic: 1, FirstTimestamp: ts0, Records: []Record{{Value: []byte("v")}}},
	} {
		enc := b.Encode()
		want := bytes.Clone(enc)
		enc[len(enc)-1] ^= 0xff
		if err := FixCRC(enc); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(enc[12:21], want[12:21]) {
			t.Errorf("magic %d: CRC unchanged after patching a covered byte", b.Magic)
		}
		enc[len(enc)-1] ^= 0xff
		if err := FixCRC(enc); err != nil {
			t.Fatal(err)
		}
		wantBytes(t, "restored", enc, want)
	}
	for _, n := range []int{0, 16, 20, 40} {
		if err := FixCRC(make([]byte, n)); err == nil {
			t.Errorf("FixCRC(%d zero bytes) = nil, want error", n)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []Batch{
		{Magic: 3},
		{Magic: 1, Codec: CodecZstd, Records: []Record{{}}},
		{Magic: 0, LogAppendTime: true, Records: []Record{{}}},
		{Magic: 1, Transactional: true, Records: []Record{{}}},
		{Magic: 1, Records: []Record{{Headers: []Header{{Key: "h"}}}}},
		{Magic: 1},
		{Magic: 2, Codec: CodecGzip},
		{Magic: 2, Codec: 5, Records: []Record{{}}},
		{Magic: 2, Records: []Record{{OffsetDelta: 1}, {OffsetDelta: 1}}},
		{Magic: 2, Control: true, Records: []Record{{Key: []byte{0}}}},
	}
	for i, b := range bad {
		if err := b.Validate(); err == nil {
			t.Errorf("case %d: Validate = nil, want an error", i)
		}
		// Encoding what Validate rejects must still work and not panic.
		if enc := b.Encode(); len(enc) < 12 && len(b.Records) > 0 {
			t.Errorf("case %d: Encode returned %d bytes", i, len(enc))
		}
	}
	if err := (Batch{Magic: 2}).Validate(); err != nil {
		t.Errorf("empty v2 batch: %v", err)
	}
}

// TestNoPanic throws random field values at Encode and Describe, and
// random bytes at FixCRC: a test helper must not take a test binary down.
func TestNoPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	blob := func() []byte {
		if rng.IntN(4) == 0 {
			return nil
		}
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	for range 2000 {
		b := Batch{
			Magic: int8(rng.IntN(6) - 2), BaseOffset: rng.Int64(), Codec: Codec(rng.IntN(10) - 1),
			SnappyRaw: rng.IntN(2) == 0, LZ4HC: LZ4HC(rng.IntN(4)), LogAppendTime: rng.IntN(2) == 0,
			Transactional: rng.IntN(2) == 0, Control: rng.IntN(2) == 0, DeleteHorizon: rng.IntN(2) == 0,
			FirstTimestamp: rng.Int64() - rng.Int64(), MaxTimestamp: rng.Int64N(3) - 1,
			LastOffsetDelta: rng.Int32() - rng.Int32(), AutoDeltas: rng.IntN(2) == 0,
		}
		if rng.IntN(2) == 0 {
			b.Producer = &Producer{ID: rng.Int64(), Epoch: int16(rng.IntN(1 << 16)), BaseSequence: rng.Int32() - rng.Int32()}
		}
		for range rng.IntN(5) {
			r := Record{OffsetDelta: rng.Int32() - rng.Int32(), TimestampDelta: rng.Int64() - rng.Int64(), Key: blob(), Value: blob()}
			for range rng.IntN(3) {
				r.Headers = append(r.Headers, Header{Key: string(blob()), Value: blob()})
			}
			b.Records = append(b.Records, r)
		}
		enc, infos, err := b.EncodeDescribe()
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, e := range infos {
			total += e.Size
		}
		if total != len(enc) {
			t.Fatalf("%+v: entries cover %d of %d bytes", b, total, len(enc))
		}
		_ = b.Validate()
		_ = FixCRC(enc)
		junk := blob()
		_ = FixCRC(junk)
	}
}
