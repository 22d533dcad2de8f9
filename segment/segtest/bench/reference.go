package bench

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strconv"

	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Shape names a way of writing benchmark segments.
type Shape string

// The two segment shapes the benchmarks measure.
const (
	// ShapeJava is segtest.RealisticSegment: batches framed as the Java
	// producer frames them (lz4 in KafkaLZ4BlockOutputStream's frames of
	// 64 KiB blocks without checksums, snappy in xerial's 32 KiB chunks).
	ShapeJava Shape = "java"
	// ShapeFranz is ReferenceSegment: event documents compressed by
	// franz-go's default compressor (lz4 frames of up to 4 MiB blocks
	// with a content checksum), snappy in xerial framing.
	ShapeFranz Shape = "franz"
)

// Segment builds the seeded benchmark segment of the shape for a codec,
// about size bytes before compression.
func (s Shape) Segment(codec segtest.Codec, size int, seed uint64) []byte {
	if s == ShapeFranz {
		return ReferenceSegment(codec, size, seed)
	}
	return segtest.RealisticSegment(codec, size, seed)
}

var refVocabulary = []string{"north", "south", "berlin", "lisbon", "invoice", "refund", "parcel", "courier",
	"checkout", "session", "device", "mobile", "release", "canary", "leader", "replica", "quota", "bucket",
	"coupon", "discount", "warehouse", "stock", "review", "rating", "android", "linux", "email", "push"}

var refEvents = []string{"order.created", "order.paid", "order.shipped", "payment.captured", "payment.failed",
	"user.signed_in", "cart.changed", "stock.moved"}

// refWriter holds the state of one reference segment being written.
type refWriter struct {
	rng *rand.Rand
	ts  int64
	seq int64
}

func (w *refWriter) word() string { return refVocabulary[w.rng.IntN(len(refVocabulary))] }

func (w *refWriter) hex(b []byte, n int) []byte {
	for range n {
		b = append(b, "0123456789abcdef"[w.rng.IntN(16)])
	}
	return b
}

// document is an event of about want bytes: an id of random hex, a type,
// timestamps, a user object and a list of line items, the JSON a typical
// service emits.
func (w *refWriter) document(want int) []byte {
	b := make([]byte, 0, want+160)
	b = append(b, `{"id":"`...)
	b = w.hex(b, 32)
	b = append(b, `","event":"`...)
	b = append(b, refEvents[w.rng.IntN(len(refEvents))]...)
	b = append(b, `","at":`...)
	b = strconv.AppendInt(b, w.ts, 10)
	b = append(b, `,"n":`...)
	b = strconv.AppendInt(b, w.seq, 10)
	b = append(b, `,"customer":{"id":`...)
	b = strconv.AppendInt(b, int64(w.rng.IntN(4_000_000)), 10)
	b = append(b, `,"city":"`...)
	b = append(b, w.word()...)
	b = append(b, `","mail":"`...)
	b = append(b, w.word()...)
	b = strconv.AppendInt(b, int64(w.rng.IntN(900)), 10)
	b = append(b, `@mail.test"},"lines":[`...)
	for i := 0; len(b) < want-100; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"item":"I`...)
		b = strconv.AppendInt(b, int64(w.rng.IntN(90000)), 10)
		b = append(b, `","count":`...)
		b = strconv.AppendInt(b, int64(1+w.rng.IntN(8)), 10)
		b = append(b, `,"cost":`...)
		b = strconv.AppendFloat(b, float64(w.rng.IntN(50000))/100, 'f', 2, 64)
		b = append(b, `,"note":"`...)
		for j := range 1 + w.rng.IntN(5) {
			if j > 0 {
				b = append(b, ' ')
			}
			b = append(b, w.word()...)
		}
		b = append(b, `"}`...)
	}
	b = append(b, `],"state":"`...)
	b = append(b, w.word()...)
	b = append(b, `","total":`...)
	b = strconv.AppendFloat(b, float64(w.rng.IntN(5000000))/100, 'f', 2, 64)
	return append(b, '}')
}

func (w *refWriter) record() segtest.Record {
	w.seq++
	w.ts += int64(w.rng.IntN(3))
	hs := []segtest.Header{
		{Key: "trace-id", Value: w.hex(nil, 32)},
		{Key: "content-type", Value: []byte("application/json")},
	}
	if w.rng.IntN(2) == 0 {
		hs = append(hs, segtest.Header{Key: "origin", Value: []byte(w.word() + "-svc")})
	}
	if w.rng.IntN(3) == 0 {
		hs = append(hs, segtest.Header{Key: "schema", Value: []byte(strconv.Itoa(1 + w.rng.IntN(4)))})
	}
	return segtest.Record{TimestampDelta: w.ts, Key: []byte("cust-" + strconv.Itoa(10_000_000+w.rng.IntN(2_000_000))),
		Value: w.document(200 + w.rng.IntN(1801)), Headers: hs}
}

// ReferenceSegment builds a segment in the shape of the reference
// benchmark (see docs/performance.md): event documents of 200-2000 bytes
// with random ids, keys of customer ids, 2-4 headers, batches of 1-16 KiB
// uncompressed from 8 idempotent producers, and about one batch in 2000
// making its producer restart under a new PID and send its last batches
// again. gzip, lz4 and zstd payloads come from franz-go's default
// compressor, snappy in xerial framing; about size bytes before
// compression, seeded.
func ReferenceSegment(codec segtest.Codec, size int, seed uint64) []byte {
	w := &refWriter{rng: rand.New(rand.NewPCG(seed, 0x7265660a^uint64(codec))), ts: 1_750_000_000_000}
	var comp kgo.Compressor
	switch codec {
	case segtest.CodecGzip:
		comp, _ = kgo.DefaultCompressor(kgo.GzipCompression())
	case segtest.CodecLZ4:
		comp, _ = kgo.DefaultCompressor(kgo.Lz4Compression())
	case segtest.CodecZstd:
		comp, _ = kgo.DefaultCompressor(kgo.ZstdCompression())
	}
	type sent struct {
		recs []segtest.Record
		ts   int64
	}
	type producer struct {
		id   int64
		seq  int32
		last []sent
	}
	prods := make([]*producer, 8)
	for i := range prods {
		prods[i] = &producer{id: int64(1000 + i)}
	}
	nextID := int64(1000 + len(prods))
	var seg []byte
	var off int64
	raw := 0
	var cbuf bytes.Buffer
	emit := func(p *producer, recs []segtest.Record, ts int64) {
		b := segtest.Batch{Magic: 2, BaseOffset: off, PartitionLeaderEpoch: 7, AutoDeltas: true,
			FirstTimestamp: ts, Records: recs, Producer: &segtest.Producer{ID: p.id, BaseSequence: p.seq}}
		if codec == segtest.CodecSnappy {
			b.Codec = codec
		}
		e := b.Encode()
		raw += len(e) - 61
		if comp != nil {
			cbuf.Reset()
			payload, _ := comp.Compress(&cbuf, e[61:])
			e = append(e[:61], payload...)
			binary.BigEndian.PutUint32(e[8:], uint32(len(e)-12))
			binary.BigEndian.PutUint16(e[21:], binary.BigEndian.Uint16(e[21:])|uint16(codec))
			if err := segtest.FixCRC(e); err != nil {
				panic(err) // a v2 batch of 61 bytes or more always has a CRC
			}
		}
		seg = append(seg, e...)
		off += int64(len(recs))
		p.seq += int32(len(recs))
	}
	for raw < size {
		p := prods[w.rng.IntN(len(prods))]
		if w.rng.IntN(2000) == 0 && len(p.last) > 0 {
			p.id, p.seq = nextID, 0
			nextID++
			for _, s := range p.last[len(p.last)-min(len(p.last), 1+w.rng.IntN(3)):] {
				emit(p, s.recs, s.ts)
			}
			p.last = p.last[:0]
			continue
		}
		want := 1024 + w.rng.IntN(15*1024+1)
		ts := w.ts
		var recs []segtest.Record
		for n := 0; n < want; {
			r := w.record()
			r.TimestampDelta -= ts
			n += len(r.Key) + len(r.Value) + 80
			recs = append(recs, r)
		}
		emit(p, recs, ts)
		p.last = append(p.last, sent{recs, ts})
		if len(p.last) > 3 {
			p.last = p.last[1:]
		}
	}
	return seg
}
