package realkafka

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bulk is the scenario that writes one big segment for the timings of
// docs/performance.md. It is no test scenario (Scenarios leaves it out):
// a gigabyte per codec takes minutes.
const (
	BulkName = "bulk"
	BulkDoc  = "one segment of --bytes on disk (segment.bytes at its maximum) from one idempotent Java producer with --codec, " +
		"JSON order events of 0.3-1.4 KB with keys and headers; for the timings, not in the test suite"
	// BulkMaxBytes keeps the segment below segment.bytes' maximum
	// (2^31-1) with room for what is in flight when the load stops.
	BulkMaxBytes = 2000 << 20
	bulkTopic    = "bulk"
)

// BulkResult describes what RunBulk wrote; it goes to DIR/bulk.json.
type BulkResult struct {
	Scenario          string  `json:"scenario"`
	KafkaVersion      string  `json:"kafka_version"`
	Codec             string  `json:"codec"`
	Seed              int64   `json:"seed"`
	Records           int64   `json:"records"`
	UncompressedBytes int64   `json:"uncompressed_bytes"` // keys, values and headers sent
	Segment           string  `json:"segment"`            // relative to DIR
	SegmentBytes      int64   `json:"segment_bytes"`
	Seconds           float64 `json:"seconds"`
}

// RunBulk loads records into one partition until its only segment holds
// at least size bytes, then stops the broker cleanly. The Java producer
// runs with the given compression.type and the client's default batching
// (batch.size 16 KiB, linger.ms 5), as most applications do.
func RunBulk(ctx context.Context, k *Kafka, codec string, size, seed int64, out string, logf func(string, ...any)) (*BulkResult, error) {
	if !slices.Contains(Codecs, codec) {
		return nil, fmt.Errorf("--codec %q: not one of %s", codec, strings.Join(Codecs, ", "))
	}
	if size < 1<<20 || size > BulkMaxBytes {
		return nil, fmt.Errorf("--bytes %d: between 1 MiB and %d", size, BulkMaxBytes)
	}
	env, err := NewEnv(k, out, logf)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	if err := os.MkdirAll(filepath.Join(out, "work"), 0o755); err != nil {
		return nil, err
	}
	c, err := env.NewCluster(ctx, 1, false, nil)
	if err != nil {
		return nil, err
	}
	if err := CreateTopic(ctx, c, bulkTopic, 1, 1, map[string]string{"segment.bytes": "2147483647",
		"retention.ms": "-1", "retention.bytes": "-1"}); err != nil {
		return nil, err
	}
	b := c.Brokers[0]
	seg := filepath.Join(b.LogDir, bulkTopic+"-0", "00000000000000000000.log")
	jp, err := env.startProducer("bulk-"+codec, []string{"--bulk", bulkTopic}, map[string]string{
		"bootstrap.servers": c.BootstrapString(), "client.id": "bulk-" + codec, "compression.type": codec})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	gen := newBulkGen(seed)
	var frame []byte
	var onDisk int64
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if n%1024 == 0 {
			if fi, err := os.Stat(seg); err == nil {
				onDisk = fi.Size()
			}
			if onDisk >= size {
				break
			}
			if n%(1<<17) == 0 {
				logf("bulk %s: %d records sent, %d MiB on disk", codec, n, onDisk>>20)
			}
		}
		frame = gen.frame(frame[:0])
		if _, err := jp.in.Write(frame); err != nil {
			return nil, fmt.Errorf("bulk producer: %w (%v)", err, jp.p.err)
		}
	}
	if _, err := jp.in.Write(binary.BigEndian.AppendUint32(nil, uint32(0xfffffffe))); err != nil {
		return nil, err
	}
	if err := jp.in.Flush(); err != nil {
		return nil, err
	}
	var reply string
	select {
	case line, ok := <-jp.replies:
		if !ok {
			return nil, fmt.Errorf("bulk producer exited before its reply: %v", jp.p.err)
		}
		reply = line
	case <-time.After(10 * time.Minute):
		return nil, fmt.Errorf("bulk producer: no reply 10 minutes after the last record")
	}
	f := strings.Fields(reply)
	if len(f) < 5 || f[0] != "ok" || f[1] != "bulk" {
		return nil, fmt.Errorf("bulk producer: %s", reply)
	}
	sent, _ := strconv.ParseInt(f[2], 10, 64)
	acked, _ := strconv.ParseInt(f[3], 10, 64)
	if f[4] != "0" || acked != sent {
		return nil, fmt.Errorf("bulk producer: %d sent, %d acked, %s failed: %s", sent, acked, f[4], strings.Join(f[5:], " "))
	}
	select {
	case <-jp.p.done:
	case <-time.After(time.Minute):
		jp.Kill()
	}
	if err := c.Stop(); err != nil {
		return nil, err
	}
	fi, err := os.Stat(seg)
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(out, seg)
	r := &BulkResult{Scenario: BulkName, KafkaVersion: k.Version, Codec: codec, Seed: seed, Records: sent,
		UncompressedBytes: gen.bytes, Segment: filepath.ToSlash(rel), SegmentBytes: fi.Size(),
		Seconds: time.Since(start).Round(time.Millisecond).Seconds()}
	data, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return nil, err
	}
	return r, os.WriteFile(filepath.Join(out, "bulk.json"), append(data, '\n'), 0o644)
}

// bulkGen makes seeded order events shaped like a shop's traffic: a
// JSON document of 0.3-2 KB (ids, amounts, line items, an address, a
// free-text note), keyed by order id, with a W3C trace header, a content
// type and the emitting service. Ids and trace ids keep it from
// compressing like a repeated template.
type bulkGen struct {
	rng   *rand.Rand
	n     int64
	ts    int64
	bytes int64
	doc   []byte
}

func newBulkGen(seed int64) *bulkGen {
	return &bulkGen{rng: rand.New(rand.NewPCG(uint64(seed), 0x62756c6b)), ts: 1_780_000_000_000}
}

var (
	bulkEvents = []string{
		"order.created", "order.paid", "order.packed", "order.shipped", "order.delivered", "order.cancelled",
		"payment.failed", "refund.issued",
	}
	bulkServices = []string{"checkout", "payments", "fulfilment", "shipping", "support"}
	bulkCities   = []string{
		"Berlin", "Hamburg", "Munich", "Cologne", "Lyon", "Paris", "Madrid", "Lisbon",
		"Milan", "Vienna", "Zurich", "Prague", "Warsaw", "Oslo", "Dublin",
	}
	bulkWords = strings.Fields("please leave the parcel at the door with neighbour call before delivery gift wrap no invoice in box " +
		"fragile handle with care deliver after six pm back entrance ring twice customer asked for express shipping " +
		"address changed after order reorder of last month discount code applied loyalty tier gold silver bronze " +
		"warehouse north south split shipment backorder expected next week substitute allowed colour blue red green")
	bulkProducts = strings.Fields("mug lamp chair desk cable charger kettle blanket pillow towel backpack bottle notebook pen headphones " +
		"keyboard mouse monitor stand shelf basket candle plant pot frame clock mirror rug jacket shoes")
)

func (g *bulkGen) hex(b []byte, n int) []byte {
	const digits = "0123456789abcdef"
	for i := 0; i < n; i++ {
		b = append(b, digits[g.rng.IntN(16)])
	}
	return b
}

// frame appends the next record in KsleuthProducer's bulk framing.
func (g *bulkGen) frame(b []byte) []byte {
	g.n++
	g.ts += int64(g.rng.IntN(40))
	r := g.rng
	order := g.hex(nil, 12)
	d := g.doc[:0]
	d = fmt.Appendf(d, `{"event":%q,"event_id":"`, bulkEvents[r.IntN(len(bulkEvents))])
	d = g.hex(d, 32)
	d = fmt.Appendf(d, `","order_id":"ord-%s","customer_id":"cust-%07d","occurred_at":%d,"currency":%q,"items":[`,
		order, r.IntN(2_000_000), g.ts, []string{"EUR", "EUR", "EUR", "USD", "GBP", "CHF"}[r.IntN(6)])
	total := 0
	for i := range 1 + r.IntN(8) {
		if i > 0 {
			d = append(d, ',')
		}
		price, qty := 99+r.IntN(25000), 1+r.IntN(4)
		total += price * qty
		d = fmt.Appendf(d, `{"sku":"SKU-%05d","name":"%s %s","qty":%d,"unit_price":%d.%02d}`, r.IntN(60000),
			bulkProducts[r.IntN(len(bulkProducts))], bulkWords[r.IntN(len(bulkWords))], qty, price/100, price%100)
	}
	d = fmt.Appendf(d, `],"total":%d.%02d,"shipping":{"city":%q,"zip":"%05d","street":"%s street %d"},"note":"`,
		total/100, total%100, bulkCities[r.IntN(len(bulkCities))], r.IntN(100000), bulkWords[r.IntN(len(bulkWords))], 1+r.IntN(200))
	for i := range r.IntN(60) {
		if i > 0 {
			d = append(d, ' ')
		}
		d = append(d, bulkWords[r.IntN(len(bulkWords))]...)
	}
	d = append(d, `"}`...)
	g.doc = d
	trace := append([]byte("00-"), g.hex(nil, 32)...)
	trace = append(append(trace, '-'), g.hex(nil, 16)...)
	trace = append(trace, "-01"...)
	key := append([]byte("ord-"), order...)
	hs := [][2][]byte{{[]byte("traceparent"), trace}, {[]byte("content-type"), []byte("application/json")},
		{[]byte("source"), []byte(bulkServices[r.IntN(len(bulkServices))])}}

	be := binary.BigEndian
	b = be.AppendUint32(b, uint32(len(key)))
	b = append(b, key...)
	b = be.AppendUint32(b, uint32(len(d)))
	b = append(b, d...)
	b = be.AppendUint16(b, uint16(len(hs)))
	g.bytes += int64(len(key) + len(d))
	for _, h := range hs {
		b = be.AppendUint16(b, uint16(len(h[0])))
		b = append(b, h[0]...)
		b = be.AppendUint32(b, uint32(len(h[1])))
		b = append(b, h[1]...)
		g.bytes += int64(len(h[0]) + len(h[1]))
	}
	return b
}
