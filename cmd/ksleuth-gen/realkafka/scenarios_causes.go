package realkafka

import (
	"fmt"
	"time"
)

// retryTimeout is the request.timeout.ms of the non-idempotent producer:
// the broker is paused for longer, so the client gives up on requests the
// broker has read and sends them again.
const retryTimeout = 2 * time.Second

// nonidemRetry: a Java producer without idempotence (acks=all, retries)
// sends readings; the broker is paused (SIGSTOP), a burst is sent to it,
// and it is resumed (SIGCONT) three request timeouts later. The client
// gives up on its requests, reconnects and sends the batches again; the
// broker appends the requests it had read and then the retries. The
// application sends every reading once, so every second copy in the log
// is the client's retry (KindRetry).
var nonidemRetry = Scenario{
	Name:    "nonidem-retry",
	Doc:     "producer without idempotence; a burst sent to a broker paused past request.timeout.ms, so the client retries batches the broker then appends",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const topic = "readings"
		parts := s.between(1, 3)
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		props := map[string]string{"enable.idempotence": "false", "acks": "all", "retries": "2147483647",
			"max.in.flight.requests.per.connection": "5", "request.timeout.ms": fmt.Sprint(retryTimeout.Milliseconds()),
			"delivery.timeout.ms": "120000", "retry.backoff.ms": "100", "linger.ms": "20", "batch.size": "4096"}
		jp, err := s.producer("readings-1", props)
		if err != nil {
			return err
		}
		s.App.NonIdempotent(jp.Name)
		next := 0
		send := func(n int) error {
			for range n {
				if err := s.App.Send(jp, s.order(topic, next, parts), ""); err != nil {
					return err
				}
				next++
			}
			return jp.Flush()
		}
		// A first stretch acknowledged before the pause.
		if err := send(s.between(100, 200)); err != nil {
			return err
		}
		if err := jp.Do("flush", ackWait); err != nil {
			return err
		}
		broker := s.Cluster.All()[0]
		for round := range 2 {
			// The broker is stalled before the burst, so its requests are
			// on the wire, queued in the stalled broker's socket, however
			// fast the machine: sent after the pause began, a burst could
			// be acknowledged whole before it.
			if err := broker.Pause(); err != nil {
				return err
			}
			if err := send(s.between(200, 400)); err != nil {
				return err
			}
			time.Sleep(3 * retryTimeout)
			if err := broker.Resume(); err != nil {
				return err
			}
			if err := jp.Do("flush", ackWait); err != nil {
				return fmt.Errorf("round %d: %w", round, err)
			}
		}
		if err := send(s.between(50, 100)); err != nil {
			return err
		}
		if err := jp.Do("flush", ackWait); err != nil {
			return err
		}
		s.App.Collect(jp)
		return jp.Close()
	},
}
