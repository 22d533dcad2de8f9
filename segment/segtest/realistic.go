package segtest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

var realisticWords = []string{"order", "payment", "status", "amount", "currency", "EUR", "USD", "customer", "created",
	"updated", "items", "sku", "quantity", "price", "shipping", "address", "city", "country", "true", "false"}

// realisticRecords returns records of about target bytes: JSON-like values
// of 200-2000 bytes, string keys, 2-4 headers.
func realisticRecords(rng *rand.Rand, target int) ([]Record, int) {
	words := realisticWords
	var recs []Record
	n := 0
	for n < target {
		var v bytes.Buffer
		v.WriteString("{")
		want := 200 + rng.IntN(1800)
		for v.Len() < want {
			fmt.Fprintf(&v, "%q:%q,", words[rng.IntN(len(words))], words[rng.IntN(len(words))]+fmt.Sprint(rng.IntN(100000)))
		}
		v.WriteString("\"end\":1}")
		hs := []Header{{Key: "trace-id", Value: []byte(fmt.Sprintf("%016x", rng.Uint64()))},
			{Key: "source", Value: []byte("svc-" + words[rng.IntN(5)])}}
		for h := rng.IntN(3); h > 0; h-- {
			hs = append(hs, Header{Key: "x-" + words[rng.IntN(len(words))], Value: []byte(words[rng.IntN(len(words))])})
		}
		recs = append(recs, Record{TimestampDelta: int64(len(recs)), Key: []byte(fmt.Sprintf("customer-%d", rng.IntN(5000))),
			Value: v.Bytes(), Headers: hs})
		n += v.Len() + 60
	}
	return recs, n
}

// RealisticSegment builds a segment shaped like production traffic: JSON-
// like values of 200-2000 bytes, string keys, 2-4 headers, batches of 1-16
// KB uncompressed, 8 idempotent producers; about size bytes before
// compression, as one segment starting at offset 0. Seeded, so every run
// measures the same bytes.
func RealisticSegment(codec Codec, size int, seed uint64) []byte {
	return realisticSegment(codec, size, seed, false)
}

// RealisticOpenTxn is RealisticSegment with every batch written by one
// transactional producer (PID 7000) in a transaction that never ends: no
// marker follows. It is the hanging transaction an incident can leave,
// whose records a scan must hold until the end of the input.
func RealisticOpenTxn(codec Codec, size int, seed uint64) []byte {
	return realisticSegment(codec, size, seed, true)
}

func realisticSegment(codec Codec, size int, seed uint64, openTxn bool) []byte {
	rng := rand.New(rand.NewPCG(seed, uint64(codec)))
	var seg []byte
	var raw int
	off := int64(0)
	seqs := make([]int32, 8)
	for raw < size {
		p := rng.IntN(8)
		recs, n := realisticRecords(rng, 1024+rng.IntN(15*1024))
		b := Batch{Magic: 2, BaseOffset: off, PartitionLeaderEpoch: 3, Codec: codec, AutoDeltas: true,
			FirstTimestamp: 1_700_000_000_000 + off, Records: recs,
			Producer: &Producer{ID: int64(5000 + p), Epoch: 0, BaseSequence: seqs[p]}}
		if openTxn {
			p = 0
			b.Transactional, b.Producer = true, &Producer{ID: 7000, BaseSequence: seqs[0]}
		}
		seg = append(seg, b.Encode()...)
		seqs[p] += int32(len(recs))
		off += int64(len(recs))
		raw += n
	}
	return seg
}

// RealisticBatch is a segment of one batch holding about size bytes of
// the same records, from one idempotent producer: the shape that tests a
// reader's memory with a very large batch.
func RealisticBatch(codec Codec, size int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, uint64(codec)))
	recs, _ := realisticRecords(rng, size)
	return Batch{Magic: 2, PartitionLeaderEpoch: 3, Codec: codec, AutoDeltas: true, FirstTimestamp: 1_700_000_000_000,
		Records: recs, Producer: &Producer{ID: 5000}}.Encode()
}
