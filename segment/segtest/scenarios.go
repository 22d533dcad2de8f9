package segtest

import (
	"bytes"
	"fmt"
)

// Each scenario below adds one topic to the generated log dir. They share
// the gen's clock and random source, so their order is part of the output.

// edgeRecords gives null and empty keys and values, which every
// scenario's first batch carries so each magic/codec pair sees them.
func (g *gen) edgeRecords() []Record {
	return []Record{
		{Key: nil, Value: g.text(4, 20)},
		{Key: []byte("tombstone"), Value: nil, TimestampDelta: 1},
		{Key: []byte{}, Value: []byte{}, TimestampDelta: 2},
		{Key: []byte{0x00, 0xff, 0xfe}, Value: g.text(4, 20), TimestampDelta: 2},
	}
}

// withHeaders adds 0..3 headers to each record; one in four header values
// is null and one header key repeats, both legal in Kafka.
func (g *gen) withHeaders(rs []Record) []Record {
	for i := range rs {
		n := g.rng.IntN(4)
		for j := range n {
			h := Header{Key: fmt.Sprintf("h%d", j), Value: g.text(0, 12)}
			switch g.rng.IntN(4) {
			case 0:
				h.Value = nil
			case 1:
				h.Key = "trace"
			}
			rs[i].Headers = append(rs[i].Headers, h)
		}
	}
	return rs
}

func genLegacy(g *gen, magic int8) error {
	p := g.newPartition(fmt.Sprintf("legacy-v%d", magic), 0,
		fmt.Sprintf("magic %d message sets: plain messages and gzip, snappy (xerial and raw) and lz4 wrappers", magic)+
			map[int8]string{0: "; lz4 with the KAFKA-3160 header checksum", 1: "; LogAppendTime plain and wrapped"}[magic])
	type step struct {
		codec Codec
		raw   bool
		lat   bool
	}
	steps := []step{{CodecNone, false, false}, {CodecGzip, false, false}, {CodecSnappy, false, false},
		{CodecSnappy, true, false}, {CodecLZ4, false, false}}
	if magic == 1 {
		steps = append(steps, step{CodecNone, false, true}, step{CodecLZ4, false, true})
	}
	for round := range 3 {
		for i, s := range steps {
			rs := g.records(1+g.rng.IntN(5), "user", 20)
			if round == 0 && i < 5 {
				rs = append(g.edgeRecords(), rs...)
				for j := range rs {
					rs[j].TimestampDelta = int64(j) // edge records came with their own deltas
				}
			}
			b := Batch{Magic: magic, Codec: s.codec, SnappyRaw: s.raw, FirstTimestamp: g.tick(), AutoDeltas: true, Records: rs}
			if s.lat {
				b.LogAppendTime = true
				b.MaxTimestamp = b.FirstTimestamp + 1000 + g.rng.Int64N(1000)
			}
			if err := p.append(b); err != nil {
				return err
			}
		}
	}
	return nil
}

func genLegacy0(g *gen) error { return genLegacy(g, 0) }
func genLegacy1(g *gen) error { return genLegacy(g, 1) }

// v2Steps is every v2 codec framing: none, gzip, snappy xerial, snappy
// raw, lz4, zstd.
var v2Steps = []struct {
	codec Codec
	raw   bool
}{{CodecNone, false}, {CodecGzip, false}, {CodecSnappy, false}, {CodecSnappy, true}, {CodecLZ4, false}, {CodecZstd, false}}

// genCodecs: partition 0 is an idempotent producer, partition 1 a plain
// one; both cycle through every codec with headers and edge values, one
// LogAppendTime batch each, and partition 0 gets batches whose records
// area spans several xerial chunks and lz4 blocks.
func genCodecs(g *gen) error {
	for part := range int32(2) {
		scenario := "v2 batches in every codec (none, gzip, snappy xerial, snappy raw, lz4, zstd) with headers, " +
			"null/empty keys and values, null header values, one LogAppendTime batch; "
		if part == 0 {
			scenario += "idempotent producer 1000 with rising sequences"
			if g.opts.MultiBlock {
				scenario += "; two multi-block (>64 KiB) batches in snappy and lz4"
			}
		} else {
			scenario += "non-idempotent producer"
		}
		p := g.newPartition("codecs", part, scenario)
		var seq int32
		for round := range 3 {
			for i, s := range v2Steps {
				rs := g.withHeaders(g.records(1+g.rng.IntN(6), "item", 50))
				if round == 0 {
					rs = append(g.withHeaders(g.edgeRecords()), rs...)
					for j := range rs {
						rs[j].TimestampDelta = int64(j)
					}
				}
				b := Batch{Magic: 2, PartitionLeaderEpoch: int32(round) + 3*part, Codec: s.codec, SnappyRaw: s.raw,
					FirstTimestamp: g.tick(), AutoDeltas: true, Records: rs}
				if round == 1 && i == 1 {
					b.LogAppendTime = true
					b.MaxTimestamp = b.FirstTimestamp + 500 + g.rng.Int64N(500)
				}
				if part == 0 {
					b.Producer = &Producer{ID: 1000, Epoch: 0, BaseSequence: seq}
					seq += int32(len(rs))
				}
				if err := p.append(b); err != nil {
					return err
				}
			}
		}
		if part != 0 || !g.opts.MultiBlock {
			continue
		}
		for _, c := range []Codec{CodecSnappy, CodecLZ4} {
			// ~80 KiB of repetitive values: several 32 KiB xerial chunks or
			// 64 KiB lz4 blocks, yet only a few KiB on disk.
			rs := make([]Record, 160)
			for j := range rs {
				rs[j] = Record{TimestampDelta: int64(j), Key: fmt.Appendf(nil, "bulk-%03d", j),
					Value: bytes.Repeat([]byte{'a' + byte(j%26)}, 500)}
			}
			b := Batch{Magic: 2, PartitionLeaderEpoch: 2, Codec: c, FirstTimestamp: g.tick(), AutoDeltas: true, Records: rs,
				Producer: &Producer{ID: 1000, Epoch: 0, BaseSequence: seq}}
			seq += int32(len(rs))
			if err := p.append(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// txnProducer tracks one transactional producer's id, epoch and sequence.
type txnProducer struct {
	id    int64
	epoch int16
	seq   int32
}

func (tp *txnProducer) batch(g *gen, codec Codec, n int, leaderEpoch int32) Batch {
	b := Batch{Magic: 2, PartitionLeaderEpoch: leaderEpoch, Codec: codec, Transactional: true,
		FirstTimestamp: g.tick(), AutoDeltas: true, Records: g.withHeaders(g.records(n, "order", 30)),
		Producer: &Producer{ID: tp.id, Epoch: tp.epoch, BaseSequence: tp.seq}}
	tp.seq += int32(n)
	return b
}

// genTransactions interleaves two transactional producers and one
// idempotent one, with COMMIT and ABORT markers and an epoch bump that
// restarts producer 2000's sequences.
func genTransactions(g *gen) error {
	p := g.newPartition("txn", 0, "transactions: producers 2000 and 2001 interleaved, COMMIT and ABORT markers (coordinator epoch 5), "+
		"idempotent non-transactional producer 2002 in between, producer 2000 fenced by an epoch bump (ABORT at epoch 1) then committing at epoch 1")
	a := &txnProducer{id: 2000}
	b := &txnProducer{id: 2001}
	c := &txnProducer{id: 2002}
	const coord, le = 5, 2
	marker := func(tp *txnProducer, commit bool) error {
		err := p.append(MarkerBatch(0, tp.id, tp.epoch, commit, coord, g.tick(), le))
		return err
	}
	data := func(tp *txnProducer, codec Codec, n int) error {
		err := p.append(tp.batch(g, codec, n, le))
		return err
	}
	plain := func(codec Codec, n int) error {
		bt := c.batch(g, codec, n, le)
		bt.Transactional = false
		err := p.append(bt)
		return err
	}
	steps := []func() error{
		func() error { return data(a, CodecNone, 3) },
		func() error { return data(b, CodecGzip, 2) },
		func() error { return data(a, CodecZstd, 4) },
		func() error { return marker(a, true) },
		func() error { return data(b, CodecNone, 1) },
		func() error { return plain(CodecLZ4, 3) },
		func() error { return marker(b, false) },
		func() error { return data(a, CodecSnappy, 2) },
		func() error { return data(b, CodecZstd, 3) },
		func() error { return marker(b, true) },
		func() error { return plain(CodecNone, 2) },
		// Producer 2000 times out: the coordinator bumps its epoch and
		// aborts with the new one; sequences restart at 0.
		func() error { a.epoch, a.seq = 1, 0; return marker(a, false) },
		func() error { return data(a, CodecLZ4, 2) },
		func() error { return data(a, CodecNone, 1) },
		func() error { return marker(a, true) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

// genCompacted writes a log-cleaner output followed by an uncleaned tail
// in the active segment:
// survivors keep their offset deltas (gaps; count < lastOffsetDelta+1),
// whole batches vanish, one batch is kept empty (61 bytes) to preserve
// producer state, and one carries a delete horizon with a tombstone.
func genCompacted(g *gen) error {
	p := g.newPartition("compacted", 0, "log-cleaner output: offset gaps inside and between batches, first offsets 0..n removed, "+
		"an empty 61-byte batch keeping producer 5000's state, a delete-horizon batch with a tombstone; then an uncleaned tail")
	codecs := []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd}
	var off int64
	var seq int32
	for i := range 14 {
		n := 3 + g.rng.IntN(4)
		orig := g.records(n, "acct", 8)
		ts := g.tick()
		b := Batch{Magic: 2, BaseOffset: off, PartitionLeaderEpoch: 0, Codec: codecs[i%len(codecs)], FirstTimestamp: ts,
			LastOffsetDelta: int32(n - 1), Producer: &Producer{ID: 5000, Epoch: 0, BaseSequence: seq}}
		for d, r := range orig {
			r.OffsetDelta = int32(d)
			if g.rng.IntN(2) == 0 || (i == 5 && d == n-1) {
				b.Records = append(b.Records, r)
			}
		}
		switch i {
		case 0:
			b.Records = nil // the first batch vanished whole: the segment starts with a gap
			// The leader epoch cache was assigned when the batch was
			// appended; cleaning does not change it.
			p.m.LeaderEpochs = append(p.m.LeaderEpochs, EpochEntry{Epoch: b.PartitionLeaderEpoch, StartOffset: b.BaseOffset})
		case 3:
			// Every record removed, but the batch is the producer's last
			// at the time, so the cleaner keeps an empty header.
			b.Records, b.Codec, b.FirstTimestamp = nil, CodecNone, -1
			b.MaxTimestamp = ts + orig[n-1].TimestampDelta
			if err := p.appendAt(b); err != nil {
				return err
			}
		case 5:
			// The cleaner set a delete horizon: baseTimestamp is the horizon
			// and deltas are relative to it, so they go negative.
			b.Records[len(b.Records)-1].Value = nil
			horizon := ts + 86_400_000
			for j := range b.Records {
				b.Records[j].TimestampDelta = ts + b.Records[j].TimestampDelta - horizon
			}
			b.MaxTimestamp = ts + orig[n-1].TimestampDelta
			b.FirstTimestamp, b.DeleteHorizon = horizon, true
		}
		if i != 3 && len(b.Records) > 0 {
			if err := p.appendAt(b); err != nil {
				return err
			}
		}
		off += int64(n)
		seq += int32(n)
	}
	// The cleaner only cleans segments below the active one: the cleaned
	// part was rolled at the log end, and the uncleaned tail continues in
	// the new active segment, consecutive again. The cleaner checkpoint is
	// the first offset it left dirty.
	for i := range p.m.Segments {
		p.m.Segments[i].Cleaned = true
	}
	p.next, p.roll, p.m.CleanerOffset = off, true, off
	for i := range 6 {
		rs := g.records(2+g.rng.IntN(4), "acct", 8)
		if i == 2 {
			rs[0].Value = nil
		}
		b := Batch{Magic: 2, PartitionLeaderEpoch: 1, Codec: codecs[i%len(codecs)], FirstTimestamp: g.tick(), AutoDeltas: true,
			Records: rs, Producer: &Producer{ID: 5000, Epoch: 0, BaseSequence: seq}}
		seq += int32(len(rs))
		if err := p.append(b); err != nil {
			return err
		}
	}
	return nil
}

// genIdempotent: producer 3000 writes to two partitions, then restarts as
// producer 3001 and resends its last three batches per partition (same
// keys and values, sequences from 0): duplicates no broker can detect.
func genIdempotent(g *gen) error {
	type sent struct{ rs []Record }
	for part := range int32(2) {
		codec := CodecLZ4
		if part == 1 {
			codec = CodecNone
		}
		scenario := fmt.Sprintf("idempotent producer 3000 (%v), restart as 3001 after a leader change resending the last 3 batches, then new data", codec)
		p := g.newPartition("idempotent", part, scenario)
		var history []sent
		var seq int32
		for range 12 {
			rs := g.records(2+g.rng.IntN(6), "evt", 1000)
			if err := p.append(Batch{Magic: 2, PartitionLeaderEpoch: 0, Codec: codec, FirstTimestamp: g.tick(), AutoDeltas: true,
				Records: rs, Producer: &Producer{ID: 3000, Epoch: 0, BaseSequence: seq}}); err != nil {
				return err
			}
			history = append(history, sent{rs})
			seq += int32(len(rs))
		}
		seq = 0
		g.now += 30_000 // the restart takes a while
		for _, h := range history[len(history)-3:] {
			if err := p.append(Batch{Magic: 2, PartitionLeaderEpoch: 1, Codec: codec, FirstTimestamp: g.tick(), AutoDeltas: true,
				Records: h.rs, Producer: &Producer{ID: 3001, Epoch: 0, BaseSequence: seq}}); err != nil {
				return err
			}
			seq += int32(len(h.rs))
		}
		for range 3 {
			rs := g.records(2+g.rng.IntN(6), "evt", 1000)
			if err := p.append(Batch{Magic: 2, PartitionLeaderEpoch: 1, Codec: codec, FirstTimestamp: g.tick(), AutoDeltas: true,
				Records: rs, Producer: &Producer{ID: 3001, Epoch: 0, BaseSequence: seq}}); err != nil {
				return err
			}
			seq += int32(len(rs))
		}
	}
	return nil
}

// genUpgrade is one partition through a message-format upgrade: magic 0,
// then 1, then 2, as old segments keep their format. The leader-epoch
// checkpoint starts at the first v2 batch.
func genUpgrade(g *gen) error {
	p := g.newPartition("upgrade", 0, "message format upgrade in one partition: magic 0 (none, gzip), magic 1 (none, snappy, lz4), magic 2 (none, zstd, lz4)")
	steps := []struct {
		magic int8
		codec Codec
	}{{0, CodecNone}, {0, CodecGzip}, {1, CodecNone}, {1, CodecSnappy}, {1, CodecLZ4}, {2, CodecNone}, {2, CodecZstd}, {2, CodecLZ4}}
	for _, s := range steps {
		for range 2 {
			b := Batch{Magic: s.magic, Codec: s.codec, FirstTimestamp: g.tick(), AutoDeltas: true, Records: g.records(1+g.rng.IntN(4), "cfg", 10)}
			if s.magic == 2 {
				b.PartitionLeaderEpoch = 7
			}
			if err := p.append(b); err != nil {
				return err
			}
		}
	}
	return nil
}
