package realkafka

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// HangingPID is the producer id of hangingTxn's stray transactional
// batch: no coordinator ever gave it out.
const HangingPID = 1 << 40

// HangingTopic is the topic of that batch. It is not one the app reads
// back: its records are no sends of the app.
const HangingTopic = "stuck"

// Files the hanging-txn scenario leaves in each broker's logs dir: what
// kafka-transactions.sh said about the running broker before it was
// killed.
const (
	FindHangingFile      = "kafka-transactions-find-hanging.txt"
	DescribeProducersFmt = "kafka-transactions-describe-producers-%s-%d.txt"
)

// hangingTxn leaves two transactions open when the broker is killed: one
// its coordinator tracks (a Java producer between begin and commit) and
// one no coordinator knows (a transactional batch under a producer id
// that was never allocated, accepted because the broker does not verify
// transactions). kafka-transactions.sh find-hanging and describe-producers
// are run against the live broker first.
var hangingTxn = Scenario{
	Name: "hanging-txn",
	Doc: "a transaction its coordinator tracks and a hanging one (a stray transactional batch) open when the broker is SIGKILLed; " +
		"kafka-transactions.sh find-hanging and describe-producers are run on the live broker first",
	Brokers: 1, Stop: "kill",
	Config: map[string]string{"transaction.partition.verification.enable": "false"},
	run: func(s *Session) error {
		const topic = "orders"
		parts := s.between(2, 3)
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		if err := CreateTopic(s.Ctx, s.Cluster, HangingTopic, 1, 1, nil); err != nil {
			return err
		}
		// The open transaction must outlive the kafka-transactions.sh JVMs
		// below, which take minutes on a busy machine: the default
		// transaction.timeout.ms (60 s) let the coordinator abort it
		// before the kill. 15 minutes is the broker's default maximum.
		tx, err := s.producer("txn-app", map[string]string{
			"transactional.id": fmt.Sprintf("orders-app-%d", s.Seed), "transaction.timeout.ms": "900000",
		})
		if err != nil {
			return err
		}
		next := 0
		// A committed transaction first: the partitions get markers, the
		// producer a coordinator epoch.
		for _, c := range []string{"init", "begin"} {
			if err := tx.Do(c, ackWait); err != nil {
				return err
			}
		}
		for range s.between(10, 40) {
			if err := s.App.Send(tx, s.order(topic, next, parts), ""); err != nil {
				return err
			}
			next++
		}
		for _, c := range []string{"commit", "begin"} {
			if err := tx.Do(c, ackWait); err != nil {
				return err
			}
		}
		for range s.between(5, 20) {
			if err := s.App.Send(tx, s.order(topic, next, parts), ""); err != nil {
				return err
			}
			next++
		}
		if err := tx.Do("flush", ackWait); err != nil {
			return err
		}
		s.App.Collect(tx)
		if err := s.strayTxnBatch(HangingTopic, 0, s.between(2, 6)); err != nil {
			return err
		}
		// find-hanging counts a transaction once it is older than
		// --max-transaction-timeout (minutes, 0 here) by a millisecond.
		time.Sleep(1500 * time.Millisecond)
		b := s.Cluster.Brokers[0]
		out, err := s.Kafka.Transactions(s.Cluster.BootstrapString(), "find-hanging", "--broker-id", fmt.Sprint(b.NodeID), "--max-transaction-timeout", "0")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(b.Logs, FindHangingFile), []byte(out), 0o644); err != nil {
			return err
		}
		s.Logf("find-hanging:\n%s", out)
		for _, tp := range append(partitionsOf(topic, parts), Loc{Topic: HangingTopic}) {
			out, err := s.Kafka.Transactions(s.Cluster.BootstrapString(), "describe-producers", "--topic", tp.Topic, "--partition", fmt.Sprint(tp.Partition))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(b.Logs, fmt.Sprintf(DescribeProducersFmt, tp.Topic, tp.Partition)), []byte(out), 0o644); err != nil {
				return err
			}
		}
		// Run kills the broker with both transactions open.
		return nil
	},
}

func partitionsOf(topic string, n int) []Loc {
	var out []Loc
	for p := range n {
		out = append(out, Loc{Topic: topic, Partition: int32(p)})
	}
	return out
}

// strayTxnBatch produces one transactional batch of n records under
// HangingPID, epoch 0, to topic-partition with a raw Produce request: no
// InitProducerId, no AddPartitionsToTxn, so no coordinator will ever end
// it.
func (s *Session) strayTxnBatch(topic string, partition int32, n int) error {
	// Produce v13 names topics by id; an older version takes the name.
	cl, err := s.Cluster.Client(kgo.MaxVersions(kversion.V3_9_0()))
	if err != nil {
		return err
	}
	defer cl.Close()
	now := time.Now().UnixMilli()
	var recs []byte
	for i := range n {
		r := kmsg.Record{OffsetDelta: int32(i), Key: fmt.Appendf(nil, "stuck-%d", i), Value: fmt.Appendf(nil, "stray transactional record %d", i)}
		body := r.AppendTo(nil)[1:] // after a one-byte varint Length of 0
		r.Length = int32(len(body))
		recs = r.AppendTo(recs)
	}
	b := kmsg.RecordBatch{PartitionLeaderEpoch: -1, Magic: 2, Attributes: 1 << 4, LastOffsetDelta: int32(n - 1),
		FirstTimestamp: now, MaxTimestamp: now, ProducerID: HangingPID, ProducerEpoch: 0, FirstSequence: 0, NumRecords: int32(n), Records: recs}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:12], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:21], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	req := kmsg.NewPtrProduceRequest()
	// A transactional batch must come with a transactional id, which the
	// broker does not check against any coordinator when it does not
	// verify transactions.
	tid := "stray-no-coordinator"
	req.TransactionID, req.Acks, req.TimeoutMillis = &tid, -1, 10000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = partition, raw
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	ctx, cancel := context.WithTimeout(s.Ctx, 20*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("stray transactional batch: %w", err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("stray transactional batch to %s-%d: %w", t.Topic, p.Partition, err)
			}
			s.Logf("stray transactional batch of %d records at %s-%d offset %d (producer %d)", n, t.Topic, p.Partition, p.BaseOffset, int64(HangingPID))
		}
	}
	return nil
}

// Transactions runs kafka-transactions.sh (TransactionsCommand) of the
// release against bootstrap and returns its standard output.
func (k *Kafka) Transactions(bootstrap string, args ...string) (string, error) {
	jargs := []string{"-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
		"-Dlog4j2.level=ERROR", "-cp", k.Classpath(), "org.apache.kafka.tools.TransactionsCommand", "--bootstrap-server", bootstrap}
	cmd := exec.Command("java", append(jargs, args...)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kafka-transactions.sh %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), nil
}
