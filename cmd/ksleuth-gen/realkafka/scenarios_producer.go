package realkafka

import (
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const ackWait = 90 * time.Second

// order is the seeded content of order n on one of parts partitions.
func (s *Session) order(topic string, n, parts int) Record {
	return Record{Msg: fmt.Sprintf("%s-%d", topic, n), Topic: topic, Partition: int32(s.Rand.IntN(parts)),
		Key:     fmt.Appendf(nil, "order-%d", n),
		Value:   fmt.Appendf(nil, "order %d amount %d note %s", n, s.Rand.IntN(100000), s.payload(s.between(20, 300))),
		Headers: []Header{{Key: "source", Value: []byte("checkout")}}}
}

// idempotentRestart is the seed case: an idempotent producer SIGKILLed
// with sends in flight, twice, each new instance resending the tail its
// predecessor had no ack for; a consumer group commits after each phase.
var idempotentRestart = Scenario{
	Name:    "idempotent-restart",
	Doc:     "idempotent producer SIGKILLed mid-stream twice; each restart resends the unacked tail; a consumer group commits offsets",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const topic = "orders"
		parts := s.between(1, 3)
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		return s.killedProducers(topic, parts, 150, 500, func(int) error { return s.groupConsume("billing", topic) })
	},
}

// killedProducers runs three idempotent Java producer instances on
// topic, each sending between lo and hi new orders; the first two are
// SIGKILLed with acks pending, and each next instance first resends the
// tail its predecessor had no ack for. after runs once each instance is
// gone.
func (s *Session) killedProducers(topic string, parts, lo, hi int, after func(inst int) error) error {
	next := 0
	var tail []*Sent
	for inst := 1; inst <= 3; inst++ {
		jp, err := s.producer(fmt.Sprintf("%s-%d", topic, inst), map[string]string{"max.in.flight.requests.per.connection": "5"})
		if err != nil {
			return err
		}
		for _, t := range tail {
			if err := s.App.Resend(jp, t, KindRestartResend); err != nil {
				return err
			}
		}
		n := s.between(lo, hi)
		for range n {
			if err := s.App.Send(jp, s.order(topic, next, parts), ""); err != nil {
				return err
			}
			next++
		}
		if err := jp.Flush(); err != nil {
			return err
		}
		if inst < 3 {
			// Kill with acks pending: at a seeded point before all came back.
			if err := jp.WaitAcks(len(tail)+s.between(n/5, n*3/5), ackWait); err != nil {
				return err
			}
			jp.Kill()
			tail = s.App.Unacked(jp)
			s.Logf("%s killed with %d sends unacked", jp.Name, len(tail))
		} else {
			if err := jp.Do("flush", ackWait); err != nil {
				return err
			}
			s.App.Collect(jp)
			if err := jp.Close(); err != nil {
				return err
			}
		}
		if err := after(inst); err != nil {
			return err
		}
	}
	return nil
}

// groupConsume reads what a topic holds with a consumer group and
// commits the offsets reached.
func (s *Session) groupConsume(group, topic string) error {
	g, err := s.joinGroup(group, "", topic)
	if err != nil {
		return err
	}
	defer g.Close()
	n, err := g.Drain(1500*time.Millisecond, false)
	if err != nil {
		return err
	}
	s.Logf("group %s read %d records of %s and committed", group, n, topic)
	return nil
}

// transactional commits, aborts and resends, then crashes inside a
// transaction; the restarted producer (same transactional.id) resends.
var transactional = Scenario{
	Name: "transactional",
	Doc: "transactional producer: commits; an abort then the same records committed again; " +
		"SIGKILL inside a transaction, then a restart with the same transactional.id resending it",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const topic = "payments"
		parts := s.between(1, 3)
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		txnID := fmt.Sprintf("payments-%d", s.Seed)
		props := map[string]string{"transactional.id": txnID, "transaction.timeout.ms": "60000"}
		jp, err := s.producer("payments-1", props)
		if err != nil {
			return err
		}
		if err := jp.Do("init", ackWait); err != nil {
			return err
		}
		next := 0
		batch := func(jp *JavaProducer, n int) ([]*Sent, error) {
			var out []*Sent
			for range n {
				r := s.order(topic, next, parts)
				next++
				st, err := s.App.note(jp.Name, r, "")
				if err != nil {
					return nil, err
				}
				if err := jp.Send(st.ID, r.Topic, r.Partition, r.Key, r.Value, r.Headers); err != nil {
					return nil, err
				}
				out = append(out, st)
			}
			return out, nil
		}
		txn := func(jp *JavaProducer, end string, body func() error) error {
			if err := jp.Do("begin", ackWait); err != nil {
				return err
			}
			if err := body(); err != nil {
				return err
			}
			if err := jp.Do(end, ackWait); err != nil {
				return err
			}
			s.App.Collect(jp)
			return nil
		}
		for range s.between(1, 3) {
			if err := txn(jp, "commit", func() error { _, err := batch(jp, s.between(10, 60)); return err }); err != nil {
				return err
			}
		}
		var aborted []*Sent
		if err := txn(jp, "abort", func() error {
			var err error
			aborted, err = batch(jp, s.between(5, 40))
			if err == nil {
				err = jp.Do("flush", ackWait)
			}
			return err
		}); err != nil {
			return err
		}
		if err := txn(jp, "commit", func() error {
			for _, a := range aborted {
				if err := s.App.Resend(jp, a, KindTxnRetry); err != nil {
					return err
				}
			}
			_, err := batch(jp, s.between(0, 20))
			return err
		}); err != nil {
			return err
		}
		// Crash inside a transaction whose records reached the log.
		if err := jp.Do("begin", ackWait); err != nil {
			return err
		}
		open, err := batch(jp, s.between(5, 40))
		if err != nil {
			return err
		}
		if err := jp.Do("flush", ackWait); err != nil {
			return err
		}
		s.App.Collect(jp)
		jp.Kill()
		s.Logf("payments-1 killed inside a transaction of %d records", len(open))
		jp2, err := s.producer("payments-2", props)
		if err != nil {
			return err
		}
		// initTransactions fences the dead instance and has the
		// coordinator abort its open transaction.
		if err := jp2.Do("init", ackWait); err != nil {
			return err
		}
		if err := txn(jp2, "commit", func() error {
			for _, o := range open {
				if err := s.App.Resend(jp2, o, KindTxnRetry); err != nil {
					return err
				}
			}
			_, err := batch(jp2, s.between(0, 30))
			return err
		}); err != nil {
			return err
		}
		return jp2.Close()
	},
}

// innocentRepeats writes identical records that are no resend: constant
// heartbeats, a startup message from every producer instance, and the
// same record from two unrelated producers (Java and franz-go).
var innocentRepeats = Scenario{
	Name:    "innocent-repeats",
	Doc:     "heartbeats with constant content, a startup message from every producer instance, the same record from a Java and a franz-go producer",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const topic = "events"
		parts := 2
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		kcl, err := s.Cluster.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			return err
		}
		defer kcl.Close()
		startup := Record{Msg: "startup", Topic: topic, Partition: 0, Key: []byte("billing"), Value: []byte(`{"event":"started","service":"billing"}`)}
		beat := Record{Msg: "heartbeat", Topic: topic, Partition: 0, Key: []byte("billing"), Value: []byte(`{"event":"alive"}`)}
		kind := func(first *bool) string {
			if *first {
				*first = false
				return ""
			}
			return KindAppRepeat
		}
		firstStart, firstBeat := true, true
		next := 0
		for inst := 1; inst <= s.between(2, 4); inst++ {
			jp, err := s.producer(fmt.Sprintf("events-%d", inst), nil)
			if err != nil {
				return err
			}
			if err := s.App.Send(jp, startup, kind(&firstStart)); err != nil {
				return err
			}
			for range s.between(3, 8) {
				if err := s.App.Send(jp, beat, kind(&firstBeat)); err != nil {
					return err
				}
				for range s.between(2, 10) {
					r := s.order(topic, next, parts)
					next++
					if err := s.App.Send(jp, r, ""); err != nil {
						return err
					}
				}
				if err := jp.Do("flush", ackWait); err != nil {
					return err
				}
			}
			// A quote both this instance and an unrelated franz-go
			// service publish, byte for byte.
			q := Record{Msg: fmt.Sprintf("quote-%d", inst), Topic: topic, Partition: 1, Key: []byte("EURUSD"),
				Value: fmt.Appendf(nil, `{"pair":"EURUSD","bid":1.%04d}`, s.Rand.IntN(10000))}
			if err := s.App.Send(jp, q, ""); err != nil {
				return err
			}
			if err := jp.Do("flush", ackWait); err != nil {
				return err
			}
			if err := s.App.SendKgo(s.Ctx, kcl, "franz-go", q, KindAppRepeat); err != nil {
				return err
			}
			s.App.Collect(jp)
			if err := jp.Close(); err != nil {
				return err
			}
		}
		return nil
	},
}

// codecs writes one partition per compression.type, idempotent and not
// in turn.
var codecs = Scenario{
	Name:    "codecs",
	Doc:     "one producer per compression.type (none, gzip, snappy, lz4, zstd), idempotent and non-idempotent (acks=1) in turn",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const topic = "codecs"
		if err := s.topic(topic, len(Codecs), 1, nil); err != nil {
			return err
		}
		next := 0
		for i, c := range Codecs {
			props := map[string]string{"compression.type": c, "linger.ms": "20"}
			if (i+int(s.Seed))%2 == 1 {
				props["enable.idempotence"] = "false"
				props["acks"] = "1"
			}
			jp, err := s.producer("codec-"+c, props)
			if err != nil {
				return err
			}
			for range s.between(50, 300) {
				r := s.order(topic, next, 1)
				r.Partition = int32(i)
				next++
				if err := s.App.Send(jp, r, ""); err != nil {
					return err
				}
			}
			if err := jp.Do("flush", ackWait); err != nil {
				return err
			}
			s.App.Collect(jp)
			if err := jp.Close(); err != nil {
				return err
			}
		}
		return nil
	},
}
