package realkafka

import (
	"math/rand/v2"
	"time"
)

// consumerGroups has consumer groups commit offsets while an idempotent
// producer is killed and resends, so the groups read duplicates:
// billing consumes all along and commits after every poll; audit lags,
// processing a seeded share of what is new after each producer instance
// and committing once; reports reads everything once, and then an admin
// deletes its committed offset of one partition (OffsetDelete). A
// billing instance the group has moved on from commits too, and is
// refused.
var consumerGroups = Scenario{
	Name: "consumer-groups",
	Doc: "groups billing (commits every poll, reads along), audit (lags) and reports (offset deleted) commit " +
		"while an idempotent producer is SIGKILLed twice and resends; a zombie member's commit is refused",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const topic = "ledger"
		parts := s.between(2, 3)
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		billing, err := s.joinGroup("billing", "billing-batch", topic)
		if err != nil {
			return err
		}
		defer billing.Close()
		stop := make(chan struct{})
		done := make(chan error, 1)
		// The reader has a generator of its own: s.Rand is the main
		// goroutine's.
		rng := rand.New(rand.NewPCG(s.Rand.Uint64(), 0))
		go func() { done <- s.readAlong(billing, rng, stop) }()
		// reports, then audit, after each producer instance.
		perPhase := s.between(20, 80)
		err = s.killedProducers(topic, parts, 100, 300, func(inst int) error {
			if inst == 2 {
				// A billing instance that lost its membership commits
				// an old position; the coordinator refuses it.
				if err := s.ZombieCommit("billing", topic, 0, int64(s.between(0, 50)), "billing-zombie"); err != nil {
					return err
				}
			}
			if inst == 1 {
				if err := s.groupConsume("reports", topic); err != nil {
					return err
				}
				if err := s.deleteOffsetsRetrying("reports", topic, int32(s.Rand.IntN(parts))); err != nil {
					return err
				}
			}
			audit, err := s.joinGroup("audit", "", topic)
			if err != nil {
				return err
			}
			defer audit.Close()
			n := 0
			for deadline := time.Now().Add(20 * time.Second); n < perPhase && time.Now().Before(deadline); {
				k, err := audit.Poll(perPhase-n, 500*time.Millisecond)
				if err != nil {
					return err
				}
				n += k
			}
			s.Logf("group audit processed %d records after %s-%d", n, topic, inst)
			return audit.Commit()
		})
		close(stop)
		if berr := <-done; err == nil {
			err = berr
		}
		return err
	},
}

// readAlong consumes with g and commits after every poll that returned
// records, until stop is closed and nothing new has come for a while.
func (s *Session) readAlong(g *GroupConsumer, rng *rand.Rand, stop <-chan struct{}) error {
	n := 0
	for {
		select {
		case <-stop:
			k, err := g.Drain(1500*time.Millisecond, true)
			s.Logf("group %s read %d records along the producers, committed %d times", g.Group, n+k, g.commits)
			return err
		default:
		}
		k, err := g.Poll(20+rng.IntN(181), 300*time.Millisecond)
		if err != nil {
			return err
		}
		n += k
		if k > 0 {
			if err := g.Commit(); err != nil {
				return err
			}
		}
	}
}

// deleteOffsetsRetrying deletes a group's offsets once its last member
// has left: until the coordinator has seen the leave, it answers that the
// group is still subscribed to the topic.
func (s *Session) deleteOffsetsRetrying(group, topic string, partitions ...int32) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := s.DeleteOffsets(group, topic, partitions...)
		if err == nil || time.Now().After(deadline) {
			if err == nil {
				s.Logf("group %s: committed offsets of %s %v deleted", group, topic, partitions)
			}
			return err
		}
		if cerr := s.Ctx.Err(); cerr != nil {
			return cerr
		}
		time.Sleep(250 * time.Millisecond)
	}
}
