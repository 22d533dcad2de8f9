package realkafka

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// brokerCrash SIGKILLs the broker while a producer writes, restarts it
// (log recovery) and lets the producer finish; the brokers end killed.
var brokerCrash = Scenario{
	Name:    "broker-crash",
	Doc:     "broker SIGKILLed mid-produce and restarted (log recovery); the idempotent producer retries; the broker is killed again at the end",
	Brokers: 1, Stop: "kill",
	run: func(s *Session) error {
		const topic = "crash"
		parts := s.between(1, 3)
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		jp, err := s.producer("crash-1", map[string]string{"delivery.timeout.ms": "180000", "request.timeout.ms": "10000",
			"retry.backoff.ms": "200", "reconnect.backoff.max.ms": "1000"})
		if err != nil {
			return err
		}
		n := s.between(800, 2000)
		for i := range n {
			if err := s.App.Send(jp, s.order(topic, i, parts), ""); err != nil {
				return err
			}
		}
		if err := jp.Flush(); err != nil {
			return err
		}
		if err := jp.WaitAcks(s.between(n/5, n/2), ackWait); err != nil {
			return err
		}
		b := s.Cluster.Brokers[0]
		b.Kill()
		s.Logf("broker killed with %d of %d sends acked", jp.AckCount(), n)
		time.Sleep(time.Duration(s.between(200, 1500)) * time.Millisecond)
		if err := b.Start(); err != nil {
			return err
		}
		if err := s.Cluster.WaitReady(s.Ctx, b); err != nil {
			return err
		}
		if err := jp.WaitAcks(n, 3*ackWait); err != nil {
			return err
		}
		// A send the producer gave up on is resent by a new instance,
		// as an application would after an error.
		failed := s.App.Unacked(jp)
		if err := jp.Close(); err != nil {
			return err
		}
		if len(failed) > 0 {
			s.Logf("%d sends failed across the crash; resending", len(failed))
			jp2, err := s.producer("crash-2", nil)
			if err != nil {
				return err
			}
			for _, f := range failed {
				if err := s.App.Resend(jp2, f, KindRestartResend); err != nil {
					return err
				}
			}
			if err := jp2.Do("flush", ackWait); err != nil {
				return err
			}
			s.App.Collect(jp2)
			return jp2.Close()
		}
		return nil
	},
}

// liveCopy copies the log dir while the broker runs, an idle producer
// connected and a transaction open.
var liveCopy = Scenario{
	Name:    "live-copy",
	Doc:     "log dir copied while its broker runs, with a transaction left open; the copy is the output",
	Brokers: 1, Stop: "live-copy",
	run: func(s *Session) error {
		const topic = "live"
		parts := s.between(1, 3)
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		jp, err := s.producer("live-1", nil)
		if err != nil {
			return err
		}
		next := 0
		for range s.between(200, 600) {
			if err := s.App.Send(jp, s.order(topic, next, parts), ""); err != nil {
				return err
			}
			next++
		}
		if err := jp.Do("flush", ackWait); err != nil {
			return err
		}
		s.App.Collect(jp)
		tx, err := s.producer("live-tx", map[string]string{"transactional.id": fmt.Sprintf("live-%d", s.Seed)})
		if err != nil {
			return err
		}
		for _, c := range []string{"init", "begin"} {
			if err := tx.Do(c, ackWait); err != nil {
				return err
			}
		}
		for range s.between(5, 30) {
			if err := s.App.Send(tx, s.order(topic, next, parts), ""); err != nil {
				return err
			}
			next++
		}
		if err := tx.Do("flush", ackWait); err != nil {
			return err
		}
		s.App.Collect(tx)
		// Both producers stay up (the transaction open) through the copy;
		// Run kills them with the broker.
		return nil
	},
}

// segmentBytes is the smallest segment.bytes the releases accept.
const segmentBytes = 1 << 20

// segments rolls small segments, lets retention delete the oldest,
// deletes records below an offset, and compacts a topic.
var segments = Scenario{
	Name:    "segments",
	Doc:     "small segment.bytes rolls; retention.bytes deleting the oldest segments; DeleteRecords; a compacted topic after the cleaner ran",
	Brokers: 1, Stop: "clean",
	Config: map[string]string{"log.retention.check.interval.ms": "500", "file.delete.delay.ms": "1000",
		"log.cleaner.backoff.ms": "200", "log.cleaner.min.compaction.lag.ms": "0"},
	run: func(s *Session) error {
		seg := fmt.Sprint(segmentBytes)
		topics := []struct {
			name string
			cfg  map[string]string
		}{
			{"rolled", map[string]string{"segment.bytes": seg}},
			{"retained", map[string]string{"segment.bytes": seg, "retention.bytes": fmt.Sprint(2 * segmentBytes)}},
			{"compacted", map[string]string{"segment.bytes": seg, "cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01",
				"delete.retention.ms": "0", "segment.ms": "600000"}},
		}
		for _, t := range topics {
			if err := s.topic(t.name, 1, 1, t.cfg); err != nil {
				return err
			}
		}
		jp, err := s.producer("segments", map[string]string{"compression.type": "none", "linger.ms": "5", "batch.size": "65536"})
		if err != nil {
			return err
		}
		next := 0
		keys := s.between(10, 40)
		for _, t := range topics {
			total := 0
			for total < 4*segmentBytes+s.between(0, segmentBytes) {
				r := s.order(t.name, next, 1)
				r.Value = append(r.Value, s.payload(s.between(800, 2000))...)
				if t.name == "compacted" {
					r.Key = fmt.Appendf(nil, "account-%d", s.Rand.IntN(keys))
				}
				total += len(r.Value) + 60
				next++
				if err := s.App.Send(jp, r, ""); err != nil {
					return err
				}
			}
		}
		if err := jp.Do("flush", ackWait); err != nil {
			return err
		}
		s.App.Collect(jp)
		if err := jp.Close(); err != nil {
			return err
		}
		// DeleteRecords below a seeded offset of "rolled".
		end := 0
		for _, st := range s.App.sends {
			if st.Topic == "rolled" {
				end++
			}
		}
		cut := int64(s.between(end/4, end/2))
		if err := DeleteRecords(s.Ctx, s.Cluster, "rolled", 0, cut); err != nil {
			return err
		}
		// Wait for retention and for the cleaner.
		b := s.Cluster.Brokers[0]
		deadline := time.Now().Add(60 * time.Second)
		var retainedStart int64
		for {
			start, err := logStart(s, "retained")
			if err != nil {
				return err
			}
			cleaned := cleanerCheckpoint(b.LogDir, "compacted") > 0
			if start > 0 && cleaned {
				retainedStart = start
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("retention (log start %d) or cleaner (%v) did not run within 60s", start, cleaned)
			}
			time.Sleep(250 * time.Millisecond)
		}
		// The deleted segments linger as .deleted for file.delete.delay.ms.
		time.Sleep(1500 * time.Millisecond)
		s.App.LostWhy = func(topic string, _ int32, off int64) string {
			switch {
			case topic == "rolled" && off < cut:
				return "delete-records"
			case topic == "retained" && off < retainedStart:
				return "retention"
			case topic == "compacted":
				return "compacted"
			}
			return "unexplained"
		}
		return nil
	},
}

func logStart(s *Session, topic string) (int64, error) {
	cl, err := s.Cluster.Client()
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	start, _, err := listOffsets(s.Ctx, cl, map[string]int{topic: 1})
	if err != nil {
		return 0, err
	}
	return start[Loc{Topic: topic, Partition: 0}], nil
}

// cleanerCheckpoint reads partition 0's entry of the log dir's
// cleaner-offset-checkpoint: how far the cleaner has cleaned.
func cleanerCheckpoint(logDir, topic string) int64 {
	data, err := os.ReadFile(filepath.Join(logDir, "cleaner-offset-checkpoint"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == topic && f[1] == "0" {
			n, _ := strconv.ParseInt(f[2], 10, 64)
			return n
		}
	}
	return 0
}
