package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fuzzSeeds adds a few real and generated segments to a fuzz corpus.
func fuzzSeeds(f *testing.F) {
	seg, _ := testSegment(f, 6)
	f.Add(seg)
	f.Add(seg[:len(seg)-30])
	for _, m := range []int8{0, 1} {
		for _, c := range []segtest.Codec{segtest.CodecNone, segtest.CodecGzip, segtest.CodecSnappy, segtest.CodecLZ4} {
			f.Add(segtest.Batch{Magic: m, Codec: c, BaseOffset: 5, FirstTimestamp: 1,
				Records: []segtest.Record{{Key: []byte("k"), Value: []byte("v")}, {OffsetDelta: 1, Value: []byte("w")}}}.Encode())
		}
	}
	f.Add(segtest.Marker(7, 1000, 0, false, 3, 1, 0))
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "thirdparty", "*", "*", "*.log"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
}

// FuzzSegmentReader: whatever the bytes, the reader never panics; every
// batch and finding lies inside the input in increasing order; batches
// cover disjoint ranges, except a batch announced by an overlapping-batch
// finding, which starts inside the one before it; re-reading the prefix
// that ends with the last batch before any finding yields the same
// batches; and a Reader over the bytes in memory (NewReaderBytes) yields
// exactly what a Reader over a ReaderAt does, without writing to them.
func FuzzSegmentReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{MaxDecompressedBytes: 8 << 20, MaxRecordBytes: 1 << 20, StreamThreshold: 64 << 10}
		orig := bytes.Clone(data)
		if a, b := readEvents(NewReader(bytes.NewReader(data), opts)), readEvents(NewReaderBytes(data, opts)); !slices.Equal(a, b) {
			t.Fatalf("NewReaderBytes differs from NewReader:\n%v\n%v", b, a)
		}
		if !bytes.Equal(orig, data) {
			t.Fatal("NewReaderBytes wrote to its input")
		}
		for _, mk := range readerInputs {
			r := NewReader(mk(data), opts)
			next := int64(0)
			cleanEnd := int64(-1)
			var firstBatches []int64
			sawFinding := false
			overlapAt := int64(-1)
			for r.Next() {
				if fd := r.Finding(); fd != nil {
					if fd.Offset < 0 || fd.Offset+fd.Length > int64(len(data)) {
						t.Fatalf("finding outside input: %v (len %d)", fd, len(data))
					}
					if errors.Is(fd, ErrOverlap) {
						overlapAt = fd.Offset
					}
					sawFinding = true
					continue
				}
				b := r.Batch()
				start := next
				if b.Position == overlapAt {
					start, overlapAt = b.Position, -1
				}
				if b.Position < start || b.Position+b.Size() > int64(len(data)) {
					t.Fatalf("batch at %d size %d: overlaps or leaves the input (next %d, len %d)", b.Position, b.Size(), next, len(data))
				}
				next = b.Position + b.Size()
				if !sawFinding {
					cleanEnd = next
					firstBatches = append(firstBatches, b.Position)
				}
				it := r.Records()
				for it.Next() {
					_ = it.Record().Offset
				}
			}
			r.Close()
			if r.Err() != nil {
				t.Fatalf("reader error on in-memory input: %v", r.Err())
			}
			if cleanEnd > 0 {
				r2 := NewReader(bytes.NewReader(data[:cleanEnd]), opts)
				var again []int64
				for r2.Next() {
					if fd := r2.Finding(); fd != nil {
						t.Fatalf("finding in the clean prefix: %v", fd)
					}
					again = append(again, r2.Batch().Position)
				}
				r2.Close()
				if len(again) != len(firstBatches) {
					t.Fatalf("prefix re-read: %v, first read %v", again, firstBatches)
				}
			}
		}
	})
}

// readEvents lists what a Reader yields: batches with their records'
// offsets and errors, findings with their kind and byte range.
func readEvents(r *Reader) []string {
	defer r.Close()
	var out []string
	for r.Next() {
		if f := r.Finding(); f != nil {
			out = append(out, fmt.Sprintf("finding %s at %d+%d", f.Kind(), f.Offset, f.Length))
			continue
		}
		b := r.Batch()
		e := fmt.Sprintf("batch at %d size %d crc %v:", b.Position, b.Size(), b.CRCValid)
		it := r.Records()
		for it.Next() {
			e += fmt.Sprint(" ", it.Record().Offset, "/", len(it.Record().Content))
		}
		if it.Err() != nil {
			e += " err " + it.Err().Error()
		}
		out = append(out, e)
	}
	if r.Err() != nil {
		out = append(out, "error "+r.Err().Error())
	}
	return out
}

// FuzzRecords wraps fuzz bytes as the records area of a checksum-valid
// v2 batch (any codec, any count) and iterates them.
func FuzzRecords(f *testing.F) {
	rec := segtest.Batch{Magic: 2, AutoDeltas: true, FirstTimestamp: 1,
		Records: []segtest.Record{{Key: []byte("k"), Value: []byte("v"), Headers: []segtest.Header{{Key: "h"}}}}}.Encode()
	f.Add(rec[61:], int32(1), uint8(0), uint8(0))
	for c := segtest.CodecGzip; c <= segtest.CodecZstd; c++ {
		b := segtest.Batch{Magic: 2, Codec: c, AutoDeltas: true, FirstTimestamp: 1,
			Records: []segtest.Record{{Key: []byte("k"), Value: []byte("v")}, {Value: nil}}}.Encode()
		f.Add(b[61:], int32(2), uint8(c), uint8(0x30))
	}
	f.Fuzz(func(t *testing.T, payload []byte, count int32, codec uint8, attrs uint8) {
		b := make([]byte, BatchHeaderSize, BatchHeaderSize+len(payload))
		binary.BigEndian.PutUint32(b[8:], uint32(BatchHeaderSize-LogOverhead+len(payload)))
		b[16] = 2
		binary.BigEndian.PutUint16(b[21:], uint16(codec&7)|uint16(attrs&0x78))
		binary.BigEndian.PutUint32(b[23:], uint32(max(count-1, 0)))
		binary.BigEndian.PutUint32(b[57:], uint32(count))
		b = append(b, payload...)
		binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
		r := NewReader(bytes.NewReader(b), Options{MaxDecompressedBytes: 4 << 20, MaxRecordBytes: 1 << 20})
		defer r.Close()
		if !r.Next() || r.Batch() == nil {
			t.Fatalf("a checksum-valid batch was not yielded: %v", r.Finding())
		}
		it := r.Records()
		n := int32(0)
		var got []fuzzRec
		for it.Next() {
			rec := it.Record()
			if len(rec.Key)+len(rec.Value) > len(b)*0+(4<<20) {
				t.Fatal("record larger than the decompression limit")
			}
			n++
			got = append(got, newFuzzRec(rec))
		}
		if it.Err() == nil && n != count {
			t.Fatalf("no error but %d records for count %d", n, count)
		}
		if codec&7 == 0 && it.Err() == nil {
			compareKmsgRecords(t, payload, got, attrs&0x08 != 0)
		}
	})
}

// fuzzRec is what FuzzRecords compares of a record.
type fuzzRec struct {
	tsDelta, offDelta int64
	key, value        []byte
	headers           []Header
	canonical         bool
}

func newFuzzRec(r *Record) fuzzRec {
	hs := make([]Header, len(r.Headers))
	for i, h := range r.Headers {
		hs[i] = Header{Key: bytes.Clone(h.Key), Value: bytes.Clone(h.Value)}
	}
	return fuzzRec{key: bytes.Clone(r.Key), value: bytes.Clone(r.Value), headers: hs, canonical: r.Content != nil,
		offDelta: r.Offset, tsDelta: r.Timestamp} // base offset and first timestamp are 0
}

// compareKmsgRecords splits an uncompressed records area that the
// iterator read without error into records by their length varints
// (encoding/binary, not ours) and has franz-go's kmsg.Record parse each:
// a record the iterator found canonical (every length minimal, -1 the
// only negative) must come out of kmsg with the same deltas, key, value
// and headers, nil and empty told apart (timestamps only when the batch
// has CreateTime: with LogAppendTime they are the batch's).
func compareKmsgRecords(t *testing.T, area []byte, got []fuzzRec, logAppendTime bool) {
	t.Helper()
	for i, g := range got {
		l, n := binary.Varint(area)
		if n <= 0 || l < 0 || int64(len(area)-n) < l {
			t.Fatalf("record %d: the iterator read it, but its length varint does not frame it", i)
		}
		one := area[:n+int(l)]
		area = area[n+int(l):]
		if !g.canonical {
			continue
		}
		var k kmsg.Record
		if err := k.ReadFrom(one); err != nil {
			t.Fatalf("record %d: canonical for ksleuth, kmsg: %v", i, err)
		}
		same := (logAppendTime || k.TimestampDelta64 == g.tsDelta) && int64(k.OffsetDelta) == g.offDelta &&
			bytes.Equal(k.Key, g.key) && (k.Key == nil) == (g.key == nil) &&
			bytes.Equal(k.Value, g.value) && (k.Value == nil) == (g.value == nil) && len(k.Headers) == len(g.headers)
		for j := 0; same && j < len(k.Headers); j++ {
			h, gh := k.Headers[j], g.headers[j]
			same = h.Key == string(gh.Key) && bytes.Equal(h.Value, gh.Value) && (h.Value == nil) == (gh.Value == nil)
		}
		if !same {
			t.Fatalf("record %d: kmsg reads %+v, ksleuth %+v", i, k, g)
		}
	}
}

// fuzzDecompress feeds arbitrary payloads to one codec: no panic, and
// output bounded by the limit whether decoded at once or streamed.
func fuzzDecompress(f *testing.F, codec Codec, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(int8(2), s)
		f.Add(int8(0), s)
	}
	f.Fuzz(func(t *testing.T, magic int8, payload []byte) {
		const limit = 1 << 20
		d := NewDecoder(Options{MaxDecompressedBytes: limit})
		defer d.Close()
		direct, s, err := d.dc.openBytes(codec, magic%3, payload)
		if err != nil {
			return
		}
		if s == nil {
			if len(direct) > limit {
				t.Fatalf("one-shot output %d over limit", len(direct))
			}
			return
		}
		// Read as the records iterator does, through the limit.
		var rb recBuf
		rb.limit, rb.recMax = limit, limit
		rb.setStream(s)
		for rb.ensure(rb.end - rb.off + 1) {
			rb.off = rb.end
		}
		if rb.total > limit+recChunk+limit/2 {
			t.Fatalf("read %d bytes past a %d limit", rb.total, limit)
		}
	})
}

var fuzzPlain = bytes.Repeat([]byte("kafka record payload "), 50)

func FuzzDecompressGzip(f *testing.F) {
	gz, _ := segtest.GzipCompress(fuzzPlain)
	fuzzDecompress(f, CodecGzip, gz)
}

func FuzzDecompressSnappy(f *testing.F) {
	raw := segtest.Batch{Magic: 2, Codec: segtest.CodecSnappy, SnappyRaw: true, Records: []segtest.Record{{Value: fuzzPlain}}}.Encode()
	fuzzDecompress(f, CodecSnappy, segtest.XerialCompress(fuzzPlain), raw[61:])
}

func FuzzDecompressLZ4(f *testing.F) {
	fuzzDecompress(f, CodecLZ4, segtest.LZ4Compress(fuzzPlain, false), segtest.LZ4Compress(fuzzPlain, true))
}

func FuzzDecompressZstd(f *testing.F) {
	zs := segtest.Batch{Magic: 2, Codec: segtest.CodecZstd, Records: []segtest.Record{{Value: fuzzPlain}}}.Encode()
	fuzzDecompress(f, CodecZstd, zs[61:])
}
