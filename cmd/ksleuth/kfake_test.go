package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDupsKfake produces with real kgo clients into franz-go's in-process
// kfake cluster, restarting producers mid-stream, fetches the stored
// batches back raw, writes them as .log segments, and checks that ksleuth
// finds exactly the resends: batches encoded by a producer library, not by
// segtest.
func TestDupsKfake(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "orders", "payments"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client := func(opts ...kgo.Opt) *kgo.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...),
			kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	rec := func(topic string, part int32, i int) *kgo.Record {
		return &kgo.Record{Topic: topic, Partition: part, Key: fmt.Appendf(nil, "%s-%d", topic, i), Value: fmt.Appendf(nil, "%s value %d", topic, i),
			Headers: []kgo.RecordHeader{{Key: "src", Value: []byte("kgo")}}}
	}
	produce := func(cl *kgo.Client, rs ...*kgo.Record) {
		t.Helper()
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	span := func(topic string, part int32, from, to int) []*kgo.Record {
		var rs []*kgo.Record
		for i := from; i < to; i++ {
			rs = append(rs, rec(topic, part, i))
		}
		return rs
	}

	// Idempotent producer 1 writes 0..19 (offsets 0..19) and "crashes";
	// producer 2 resends 15..19 and writes 20..24 (offsets 20..29);
	// producer 3, with zstd, resends 22..24 (offsets 30..32).
	p1 := client(kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	produce(p1, span("orders", 0, 0, 10)...)
	produce(p1, span("orders", 0, 10, 20)...)
	p1.Close()
	p2 := client(kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	produce(p2, span("orders", 0, 15, 20)...)
	produce(p2, span("orders", 0, 20, 25)...)
	p2.Close()
	p3 := client(kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	produce(p3, span("orders", 0, 22, 25)...)
	p3.Close()
	// Producer 4 (no compression) resends 22..24 once more, landing on
	// partition 1 as keyless records would (offsets 0..2 there).
	p4 := client()
	produce(p4, span("orders", 1, 22, 25)...)
	p4.Close()

	// Transactional producer tx-a aborts 0..2 of payments-0; tx-b (a new
	// transactional id, a new PID) writes them again and commits.
	ta := client(kgo.TransactionalID("tx-a"))
	if err := ta.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produce(ta, span("payments", 0, 0, 3)...)
	if err := ta.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	ta.Close()
	tb := client(kgo.TransactionalID("tx-b"))
	if err := tb.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produce(tb, span("payments", 0, 0, 3)...)
	if err := tb.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	tb.Close()

	// Fetch every partition raw and write it as one segment.
	dir := filepath.Join(t.TempDir(), "kfake")
	fetcher := client()
	defer fetcher.Close()
	for _, topic := range []string{"orders", "payments"} {
		for part := range int32(2) {
			data := fetchRaw(t, ctx, fetcher, topic, part)
			pd := filepath.Join(dir, fmt.Sprintf("%s-%d", topic, part))
			if err := os.MkdirAll(pd, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(pd, "00000000000000000000.log"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	groups, _ := dupsJSON(t, dir)
	var got []string
	for _, g := range groups {
		got = append(got, groupKey(g.Members))
	}
	want := []string{}
	for i := range 5 { // 15..19 at 15..19, again at 20..24
		want = append(want, fmt.Sprintf("orders-0@%d orders-0@%d:restart-resend/strong", 15+i, 20+i))
	}
	for i := range 3 { // 22..24 at 27..29, again at 30..32 (p3) and orders-1@0..2 (p4)
		want = append(want, fmt.Sprintf("orders-0@%d orders-0@%d:restart-resend/strong orders-1@%d:restart-resend/strong", 27+i, 30+i, i))
	}
	for i := range 3 { // aborted at 0..2, marker at 3, again at 4..6
		want = append(want, fmt.Sprintf("payments-0@%d payments-0@%d:txn-retry/strong", i, 4+i))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Errorf("groups differ\nwant:\n  %s\ngot:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
	}
	out, _, _ := scanCmd(t, "dups", "--progress", "never", dir)
	t.Logf("ksleuth dups on kfake batches:\n%s", out)
}

// fetchRaw returns the stored record batches of one partition, as a
// Fetch response carries them (byte-identical to the log).
func fetchRaw(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, part int32) []byte {
	t.Helper()
	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	meta.Topics = append(meta.Topics, mt)
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil || len(mresp.Topics) != 1 {
		t.Fatalf("metadata %s: %v", topic, err)
	}
	var out []byte
	for off := int64(0); ; {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID = -1
		req.MaxWaitMillis = 10
		req.MaxBytes = 64 << 20
		ft := kmsg.NewFetchRequestTopic()
		ft.Topic, ft.TopicID = topic, mresp.Topics[0].TopicID
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.Partition, fp.FetchOffset, fp.PartitionMaxBytes = part, off, 64<<20
		ft.Partitions = append(ft.Partitions, fp)
		req.Topics = append(req.Topics, ft)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("fetch %s-%d: unexpected response shape", topic, part)
		}
		p := resp.Topics[0].Partitions[0]
		if p.ErrorCode != 0 {
			t.Fatalf("fetch %s-%d: error code %d", topic, part, p.ErrorCode)
		}
		if len(p.RecordBatches) == 0 || off >= p.HighWatermark {
			return out
		}
		out = append(out, p.RecordBatches...)
		// Advance past the last whole batch: baseOffset + lastOffsetDelta + 1.
		b := p.RecordBatches
		var last int64
		for len(b) >= 61 {
			var rb kmsg.RecordBatch
			if err := rb.ReadFrom(b); err != nil {
				break
			}
			last = rb.FirstOffset + int64(rb.LastOffsetDelta)
			b = b[12+rb.Length:]
		}
		off = last + 1
	}
}
