package realkafka

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// uncleanElection runs three brokers with replication factor 3 and a
// dedicated controller. The followers die one after the other while the
// leader keeps taking acks=1 writes; then the leader dies, and the
// follower that died first is elected uncleanly: the replicas diverge,
// and what only the old leader held is lost. Group early reads along
// until the old leader dies, so it processed records that are lost;
// group late reads after the election, the new leader's records at the
// same offsets.
var uncleanElection = Scenario{
	Name: "unclean-election",
	Doc: "3 brokers, RF=3: followers and then the leader killed under acks=1 writes; " +
		"the stalest replica is elected uncleanly, so the replicas diverge; group early read the lost records, group late the new leader's",
	Brokers:   3,
	Dedicated: true,
	Stop:      "kill",
	Config: map[string]string{"broker.session.timeout.ms": "3000", "broker.heartbeat.interval.ms": "500",
		"replica.lag.time.max.ms": "3000", "unclean.leader.election.enable": "true",
		"unclean.leader.election.interval.ms": "1000"},
	run: func(s *Session) error {
		const topic = "replicated"
		if err := s.topic(topic, 1, 3, map[string]string{"min.insync.replicas": "1", "unclean.leader.election.enable": "true"}); err != nil {
			return err
		}
		leader, isr, err := partitionState(s, topic)
		if err != nil {
			return err
		}
		if err := waitISR(s, topic, 3); err != nil {
			return err
		}
		var followers []*Broker
		var lead *Broker
		for _, b := range s.Cluster.Brokers {
			if int32(b.NodeID) == leader {
				lead = b
			} else {
				followers = append(followers, b)
			}
		}
		s.Logf("leader %d, ISR %v", leader, isr)
		next := 0
		phase := func(name string) error {
			jp, err := s.producer(name, map[string]string{"enable.idempotence": "false", "acks": "1", "retries": "10",
				"compression.type": "none", "bootstrap.servers": s.Cluster.BootstrapString()})
			if err != nil {
				return err
			}
			for range s.between(30, 120) {
				if err := s.App.Send(jp, s.order(topic, next, 1), ""); err != nil {
					return err
				}
				next++
			}
			if err := jp.Do("flush", ackWait); err != nil {
				return err
			}
			s.App.Collect(jp)
			return jp.Close()
		}
		if err := phase("all-in-sync"); err != nil {
			return err
		}
		// Read while every broker is up, so that __consumer_offsets is
		// created with all three replicas. Each read is a new client: one
		// kept across the kills would still dial the dead brokers.
		if err := s.groupConsume("early", topic); err != nil {
			return err
		}
		// The first follower dies: it holds only what was written so far.
		stale := followers[0]
		stale.Kill()
		if err := waitISR(s, topic, 2); err != nil {
			return err
		}
		if err := phase("two-in-sync"); err != nil {
			return err
		}
		followers[1].Kill()
		if err := waitISR(s, topic, 1); err != nil {
			return err
		}
		if err := phase("leader-alone"); err != nil {
			return err
		}
		if err := s.groupConsume("early", topic); err != nil {
			return err
		}
		lead.Kill()
		if err := stale.Start(); err != nil {
			return err
		}
		if err := s.Cluster.WaitReady(s.Ctx, stale); err != nil {
			return err
		}
		if err := waitLeader(s, topic, int32(stale.NodeID)); err != nil {
			return err
		}
		s.Logf("broker %d elected uncleanly", stale.NodeID)
		if err := phase("unclean-leader"); err != nil {
			return err
		}
		if err := s.groupConsume("late", topic); err != nil {
			return err
		}
		s.App.LostWhy = func(string, int32, int64) string { return "unclean-election" }
		return nil
	},
}

func partitionState(s *Session, topic string) (leader int32, isr []int32, err error) {
	cl, err := s.Cluster.Client()
	if err != nil {
		return 0, nil, err
	}
	defer cl.Close()
	req := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, mt)
	ctx, cancel := context.WithTimeout(s.Ctx, 5*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, nil, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return 0, nil, fmt.Errorf("metadata of %s: unexpected shape", topic)
	}
	p := resp.Topics[0].Partitions[0]
	return p.Leader, p.ISR, nil
}

func waitISR(s *Session, topic string, n int) error {
	return waitState(s, topic, func(_ int32, isr []int32) bool { return len(isr) == n }, fmt.Sprintf("ISR of %d", n))
}

func waitLeader(s *Session, topic string, id int32) error {
	return waitState(s, topic, func(l int32, isr []int32) bool { return l == id && slices.Contains(isr, id) }, fmt.Sprintf("leader %d", id))
}

func waitState(s *Session, topic string, ok func(int32, []int32) bool, what string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		l, isr, err := partitionState(s, topic)
		if err == nil && ok(l, isr) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: no %s within 60s (leader %d, ISR %v, %v)", topic, what, l, isr, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
