package realkafka

import (
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// startupRepublish is an application that, at each clean start,
// publishes the same few configuration records to a partition no other
// instance writes, then writes orders to the other partitions for four
// minutes and closes. Every re-publish is an app-repeat at the head of
// the new session and the tail of the old one in that partition; only
// the old session's later writes elsewhere tell it from a resend. The
// minutes are record timestamps (CreateTime set by the client), half an
// hour in the past, so the scenario runs in seconds.
var startupRepublish = Scenario{
	Name: "startup-republish",
	Doc: "clean restarts of an application that publishes the same configuration records at each start to a partition of its own, " +
		"then writes orders elsewhere for minutes (record timestamps)",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const topic = "settings"
		const parts = 3
		if err := s.topic(topic, parts, 1, nil); err != nil {
			return err
		}
		var config []Record
		for i := range s.between(2, 4) {
			config = append(config, Record{Msg: fmt.Sprintf("config-%d", i), Topic: topic, Partition: 0, Key: []byte("feature-flags"),
				Value: fmt.Appendf(nil, `{"flag":"f%d","enabled":%t}`, i, s.Rand.IntN(2) == 0)})
		}
		base := time.Now().Add(-30 * time.Minute).Truncate(time.Second)
		next := 0
		for inst := range s.between(3, 4) {
			start := base.Add(time.Duration(inst) * 6 * time.Minute)
			if err := s.republish(fmt.Sprintf("settings-%d", inst+1), config, inst > 0, start, func(cl *kgo.Client, name string) error {
				n := s.between(20, 40)
				for i := range n {
					r := s.order(topic, next, parts-1)
					r.Partition++
					r.Time = start.Add(10*time.Second + time.Duration(i)*4*time.Minute/time.Duration(n))
					next++
					if err := s.App.SendKgo(s.Ctx, cl, name, r, ""); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	},
}

// republish runs one instance: a new idempotent franz-go client (a new
// PID) sends recs, app-repeats when again, created from start on a
// millisecond apart, then runs rest and closes cleanly.
func (s *Session) republish(name string, recs []Record, again bool, start time.Time, rest func(*kgo.Client, string) error) error {
	cl, err := s.Cluster.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return err
	}
	defer cl.Close()
	kind := ""
	if again {
		kind = KindAppRepeat
	}
	for i, r := range recs {
		if !start.IsZero() {
			r.Time = start.Add(time.Duration(i) * time.Millisecond)
		}
		if err := s.App.SendKgo(s.Ctx, cl, name, r, kind); err != nil {
			return err
		}
	}
	if err := rest(cl, name); err != nil {
		return err
	}
	s.Logf("%s closed cleanly", name)
	return nil
}

// shutdownMessage is an application whose sessions write a startup
// record, numbered heartbeats and, as they close, a two-record shutdown
// message. The second session stops after a dozen heartbeats, fewer than
// the first: its shutdown message repeats the first session's last
// records, after thirteen records of its own that copy the first
// session's first ones, not a resend of anything.
var shutdownMessage = Scenario{
	Name:    "shutdown-message",
	Doc:     "two clean sessions that write a startup record, numbered heartbeats and a two-record shutdown message; the second stops after a dozen heartbeats",
	Brokers: 1, Stop: "clean",
	run: func(s *Session) error {
		const topic = "lifecycle"
		if err := s.topic(topic, 1, 1, nil); err != nil {
			return err
		}
		rec := func(msg, value string) Record {
			return Record{Msg: msg, Topic: topic, Key: []byte("inventory"), Value: []byte(value)}
		}
		shutdown := []Record{rec("stopping", `{"event":"stopping","service":"inventory"}`), rec("stopped", `{"event":"stopped","service":"inventory"}`)}
		for inst, beats := range []int{12 + s.between(10, 20), 12} {
			recs := []Record{rec("startup", `{"event":"started","service":"inventory"}`)}
			for i := range beats {
				recs = append(recs, rec(fmt.Sprintf("heartbeat-%d", i+1), fmt.Sprintf(`{"event":"alive","n":%d}`, i+1)))
			}
			// The first session's heartbeats beyond the dozen are its own.
			again := inst > 0
			if err := s.republish(fmt.Sprintf("inventory-%d", inst+1), recs, again, time.Time{}, func(cl *kgo.Client, name string) error {
				for _, r := range shutdown {
					kind := ""
					if again {
						kind = KindAppRepeat
					}
					if err := s.App.SendKgo(s.Ctx, cl, name, r, kind); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	},
}
