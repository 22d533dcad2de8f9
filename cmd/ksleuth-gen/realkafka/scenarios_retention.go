package realkafka

import (
	"fmt"
	"time"
)

// retentionTime rolls segments by time in two topics and lets retention
// by time (a short retention.ms) delete the oldest segments of one of
// them; the broker stops cleanly. The other topic, kept by the broker
// default of 7 days, is what the recovery tests alter after the stop:
// its oldest segment removed, or its active segment cut below its offset
// index's last entry, to compare ksleuth's verdicts and --recovery with a
// broker started on each copy (issue #42).
var retentionTime = Scenario{
	Name:    "retention-time",
	Doc:     "segments rolled by segment.ms; a short retention.ms deletes the oldest of one topic; the other keeps all its segments",
	Brokers: 1, Stop: "clean",
	Config: map[string]string{"log.retention.check.interval.ms": "500", "file.delete.delay.ms": "1000"},
	run: func(s *Session) error {
		// index.interval.bytes low, so every segment's offset index has
		// entries a cut can fall below.
		roll := map[string]string{"segment.ms": "1500", "index.interval.bytes": "1024"}
		aged := map[string]string{"segment.ms": "1500", "index.interval.bytes": "1024", "retention.ms": "4000"}
		for name, cfg := range map[string]map[string]string{"aged": aged, "kept": roll} {
			if err := s.topic(name, 1, 1, cfg); err != nil {
				return err
			}
		}
		jp, err := s.producer("retention", map[string]string{"compression.type": "none", "linger.ms": "5"})
		if err != nil {
			return err
		}
		next, rounds := 0, s.between(4, 6)
		for round := range rounds {
			for _, topic := range []string{"aged", "kept"} {
				for range s.between(20, 40) {
					r := s.order(topic, next, 1)
					r.Value = append(r.Value, s.payload(s.between(400, 900))...)
					next++
					if err := s.App.Send(jp, r, ""); err != nil {
						return err
					}
				}
			}
			if err := jp.Do("flush", ackWait); err != nil {
				return err
			}
			if round < rounds-1 {
				time.Sleep(1800 * time.Millisecond) // past segment.ms: the next round rolls
			}
		}
		if err := s.awaitRetention("aged", 60*time.Second); err != nil {
			return err
		}
		// A last round after the log start moved: the copy's first
		// segment of aged-0 then holds batches, so its retention rests
		// on the leader-epoch checkpoint the broker moved, not on an
		// empty log. The broker stops before retention.ms passes again.
		for range s.between(10, 20) {
			r := s.order("aged", next, 1)
			next++
			if err := s.App.Send(jp, r, ""); err != nil {
				return err
			}
		}
		if err := jp.Do("flush", ackWait); err != nil {
			return err
		}
		s.App.Collect(jp)
		return jp.Close()
	},
}

// awaitRetention waits until retention has moved topic's partition 0
// log start past 0, then for its deleted files to go, and tells the
// truth why the offsets below are gone.
func (s *Session) awaitRetention(topic string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		start, err := logStart(s, topic)
		if err != nil {
			return err
		}
		if start > 0 {
			s.Logf("retention moved %s-0's log start to %d", topic, start)
			// The deleted segments linger as .deleted for file.delete.delay.ms.
			time.Sleep(1500 * time.Millisecond)
			s.App.LostWhy = func(t string, _ int32, off int64) string {
				if t == topic && off < start {
					return "retention"
				}
				return "unexplained"
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("retention did not move %s-0's log start within %v", topic, wait)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
