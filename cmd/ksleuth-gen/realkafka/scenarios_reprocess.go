package realkafka

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// reprocessCrash: a consume-transform-produce application (KsleuthPipeline:
// a consumer in group shipper with manual commits, an idempotent producer,
// no transactions) turns orders into shipments. Two or three times an
// instance is SIGKILLed after its batch's outputs are acknowledged and
// before it commits the batch's input offsets; the next instance, a new
// process and so a new producer id, re-reads from the last commit and
// produces those outputs again (KindReprocess). The last instance runs to
// the end of the input. The run hands the pipeline to dups.
var reprocessCrash = Scenario{
	Name: "reprocess-crash",
	Doc: "a consume-transform-produce app (idempotent producer, manual commits after producing) SIGKILLed between producing " +
		"a batch and committing it, two or three times; each restart re-reads from the last commit and produces the batch again",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const input, output, group = "orders", "shipments", "shipper"
		parts := s.between(1, 3)
		feed, err := s.pipelineTopics(input, output, parts)
		if err != nil {
			return err
		}
		ends, err := s.fillInput(feed, input, allPartitions(parts), s.between(300, 450))
		if err != nil {
			return err
		}
		if err := feed.Close(); err != nil {
			return err
		}
		s.App.pipelines = append(s.App.pipelines, group+":"+input+":"+output)
		maxPoll := s.between(15, 30)
		crashes := s.between(2, 3)
		var apps []*PipelineApp
		for inst := 1; inst <= crashes+1; inst++ {
			a, err := s.startPipeline(fmt.Sprintf("shipper-%d", inst), group, input, output, maxPoll)
			if err != nil {
				return err
			}
			apps = append(apps, a)
			if inst > crashes {
				break
			}
			for range s.between(1, 2) {
				if _, err := s.batch(a, true); err != nil {
					return err
				}
			}
			n, err := s.batch(a, false)
			if err != nil {
				return err
			}
			// The outputs are acknowledged (produce flushes); the commit
			// never comes.
			a.Kill()
			s.Logf("pipeline %s killed after producing %d outputs it did not commit the inputs of", a.Name, n)
		}
		last := apps[len(apps)-1]
		err = s.await("the last instance commits the whole input", 120*time.Second, func() (bool, error) {
			_, err := last.Step()
			return committedUpTo(ends, apps...), err
		})
		if err != nil {
			return err
		}
		if err := last.Close(); err != nil {
			return err
		}
		return s.pipelineTruth(KindReprocess, input, output, apps...)
	},
}

// rebalanceZombie: two instances of one group (poster) run the same
// consume-transform-produce application on payments. When both hold
// partitions and have processed a first round, a second round goes to the
// partitions of one of them (the zombie); it polls a batch, produces part
// of it and is stopped (SIGSTOP) past the group's session and poll
// interval. The group gives its partitions to the other instance, which
// re-reads the batch from the last commit, produces it and commits. Then
// the zombie goes on (SIGCONT): its producer writes the rest of the batch
// it had in hand, and its commit is refused (the group has moved on), as
// its log records. Every output written by both is a later copy of kind
// KindRebalance: two live producer sessions, no restart. The run leaves
// the pipeline for dups to find.
var rebalanceZombie = Scenario{
	Name: "rebalance-zombie",
	Doc: "two instances of a consume-transform-produce group; one is SIGSTOPped holding a half-produced batch past the " +
		"session and poll interval, the other takes its partitions and produces the batch, then the stopped one resumes and produces it too",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const input, output, group = "payments", "postings", "poster"
		parts := s.between(2, 4)
		feed, err := s.pipelineTopics(input, output, parts)
		if err != nil {
			return err
		}
		maxPoll := s.between(20, 40)
		a, b, err := s.twoMembers(group, input, output, parts, maxPoll)
		if err != nil {
			return err
		}
		ends, err := s.fillInput(feed, input, allPartitions(parts), s.between(60, 150))
		if err != nil {
			return err
		}
		err = s.await("both instances commit the first round", 90*time.Second, func() (bool, error) {
			if _, err := a.Step(); err != nil {
				return false, err
			}
			_, err := b.Step()
			return committedUpTo(ends, a, b), err
		})
		if err != nil {
			return err
		}
		zombie, other := a, b
		if s.Rand.IntN(2) == 1 {
			zombie, other = b, a
		}
		if ends, err = s.fillInput(feed, input, zombie.Assigned(), s.between(2*maxPoll, 3*maxPoll)); err != nil {
			return err
		}
		if err := feed.Close(); err != nil {
			return err
		}
		n, err := s.pollSome(zombie)
		if err != nil {
			return err
		}
		k := s.Rand.IntN(n)
		if err := zombie.Produce(k); err != nil {
			return err
		}
		if err := zombie.Pause(); err != nil {
			return err
		}
		paused := time.Now()
		s.Logf("pipeline %s stopped holding %d records, %d of them produced", zombie.Name, n, k)
		// The coordinator expels the zombie when its session lapses; the
		// pause lasts until the other instance has its partitions and has
		// committed their input, and at least the poll interval.
		err = s.await(other.Name+" takes every partition and commits the input", 90*time.Second, func() (bool, error) {
			_, err := other.Step()
			return len(other.Assigned()) == parts && committedUpTo(ends, other) && time.Since(paused) > pipelinePollInterval, err
		})
		if rerr := zombie.Resume(); err == nil {
			err = rerr
		}
		if err != nil {
			return err
		}
		// The zombie goes on where it stopped: its producer does not know
		// the group moved on.
		if err := zombie.Produce(-1); err != nil {
			return err
		}
		// Its commit must be the client's refusal, which its log records,
		// not a lost process or a timeout.
		switch err := zombie.Commit(); {
		case err == nil:
			return fmt.Errorf("pipeline %s: the commit of the batch the group gave to %s was taken", zombie.Name, other.Name)
		case !strings.Contains(err.Error(), "fail commit"):
			return err
		default:
			s.Logf("pipeline %s: the commit after resuming failed: %v", zombie.Name, err)
		}
		for _, p := range []*PipelineApp{zombie, other} {
			if err := p.Close(); err != nil {
				return err
			}
		}
		return s.pipelineTruth(KindRebalance, input, output, a, b)
	},
}

// pipelineTopics creates the input and output topics, partitions each,
// and starts the producer that feeds the input: one JVM started before the
// application instances, so that filling the input later leaves no gap in
// their polls longer than the poll interval.
func (s *Session) pipelineTopics(input, output string, parts int) (*JavaProducer, error) {
	for _, t := range []string{input, output} {
		if err := s.topic(t, parts, 1, nil); err != nil {
			return nil, err
		}
	}
	return s.producer(input+"-feed", map[string]string{"enable.idempotence": "true", "acks": "all"})
}

func allPartitions(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// fillInput writes n orders to the given partitions of topic through the
// feed, waits for every ack and returns the topic's end offset per
// partition (all of its partitions).
func (s *Session) fillInput(feed *JavaProducer, topic string, partitions []int32, n int) (map[int32]int64, error) {
	if len(partitions) == 0 {
		return nil, fmt.Errorf("fill %s: no partition", topic)
	}
	first := s.App.sentTo(topic)
	for i := range n {
		r := s.order(topic, first+i, 1)
		r.Partition = partitions[s.Rand.IntN(len(partitions))]
		if err := s.App.Send(feed, r, ""); err != nil {
			return nil, err
		}
	}
	if err := feed.Do("flush", ackWait); err != nil {
		return nil, err
	}
	s.App.Collect(feed)
	ends := map[int32]int64{}
	for l := range s.App.ackedContents(topic) {
		ends[l.Partition] = max(ends[l.Partition], l.Offset+1)
	}
	return ends, nil
}

// batch turns the application's loop until a poll brings records, and
// produces their outputs; then it commits when commit is set. It returns
// the batch's size.
func (s *Session) batch(a *PipelineApp, commit bool) (int, error) {
	n, err := s.pollSome(a)
	if err != nil {
		return 0, err
	}
	if err := a.Produce(-1); err != nil {
		return 0, err
	}
	if commit {
		return n, a.Commit()
	}
	return n, nil
}

// pollSome polls until records come: a new instance first joins the
// group, which waits for a dead member's session to lapse.
func (s *Session) pollSome(a *PipelineApp) (int, error) {
	n := 0
	err := s.await(a.Name+" polls records", 90*time.Second, func() (bool, error) {
		var err error
		n, err = a.Poll(500 * time.Millisecond)
		return n > 0, err
	})
	return n, err
}

// twoMembers starts two instances of group and polls both until each
// holds some of the input's partitions.
func (s *Session) twoMembers(group, input, output string, parts, maxPoll int) (*PipelineApp, *PipelineApp, error) {
	a, err := s.startPipeline(group+"-a", group, input, output, maxPoll)
	if err != nil {
		return nil, nil, err
	}
	b, err := s.startPipeline(group+"-b", group, input, output, maxPoll)
	if err != nil {
		return nil, nil, err
	}
	err = s.await("both instances hold partitions", 90*time.Second, func() (bool, error) {
		if _, err := a.Poll(300 * time.Millisecond); err != nil {
			return false, err
		}
		if _, err := b.Poll(300 * time.Millisecond); err != nil {
			return false, err
		}
		pa, pb := a.Assigned(), b.Assigned()
		return len(pa) > 0 && len(pb) > 0 && len(pa)+len(pb) == parts && !slices.ContainsFunc(pa, func(p int32) bool {
			return slices.Contains(pb, p)
		}), nil
	})
	if err != nil {
		return nil, nil, err
	}
	s.Logf("group %s: %s holds %v, %s holds %v", group, a.Name, a.Assigned(), b.Name, b.Assigned())
	return a, b, nil
}

// committedUpTo reports whether the instances' acknowledged commits
// together reach ends on every partition.
func committedUpTo(ends map[int32]int64, apps ...*PipelineApp) bool {
	for p, e := range ends {
		if !slices.ContainsFunc(apps, func(a *PipelineApp) bool { return a.committedAt(p) >= e }) {
			return false
		}
	}
	return true
}
