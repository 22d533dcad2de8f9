package brokerlog

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestIsLogName(t *testing.T) {
	for name, want := range map[string]bool{
		"server.log": true, "state-change.log": true, "controller.log": true, "log-cleaner.log": true, "kafkaServer.out": true,
		"server.log.1": true, "server.log.2024-01-31-13": true, "controller.log.2024-01-31": true, "server-2024-01-31-1.log": true,
		"00000000000000000000.log": false, "server.log.deleted": false, "myapp.log": false, "server.log.gz": false, "server.logx": false,
	} {
		if got := IsLogName(name); got != want {
			t.Errorf("IsLogName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestParse: the lines Kafka 4 writes (log4j2, the log4j layout), a
// log4j2 ISO layout with a zone, continuation lines and garbage.
func TestParse(t *testing.T) {
	in := strings.Join([]string{
		"garbage before any entry",
		"[2026-12-02 04:27:38,356] INFO KafkaConfig values: ",
		"\tunclean.leader.election.enable = true",
		"[2026-12-02 04:28:01,200] INFO Loaded 1 logs in 22ms (unclean log dirs = [/data/k1]) (org.apache.kafka.storage.internals.log.LogManager)",
		"[2026-12-02 04:28:02,378] INFO Setting new leader for topicId GCRrkq1wRBOyvIng_88Fow, partition 0 to 1 using an unclean election. (org.apache.kafka.controller.ReplicationControlManager)",
		"[2026-12-02 04:28:02,401] INFO [Broker id=1] Leader replicated-0 with topic id Some(x) starts at leader epoch 1 from offset 44 with partition epoch 3 (state.change.logger)",
		"[2026-12-02 04:28:03,000] INFO [UnifiedLog partition=replicated-0, dir=/data/k2] Truncating to offset 44 (org.apache.kafka.storage.internals.log.UnifiedLog)",
		"2026-12-02T05:28:04.500+01:00 WARN [Partition orders-3 broker=2] Shrinking ISR from 2,3,1 to 2 (kafka.cluster.Partition)",
		"[2026-12-02 04:28:05,000] ERROR [ReplicaFetcher replicaId=3] Found invalid messages during fetch for partition orders-3 offset 10 (kafka.server.ReplicaFetcherThread)",
		"org.apache.kafka.common.errors.CorruptRecordException: bad",
		"\tat kafka.log.UnifiedLog.append(UnifiedLog.scala:1)",
		"[2026-12-02 04:28:06,000] INFO [KafkaRaftServer nodeId=1] Kafka Server started (kafka.server.KafkaRaftServer)",
		"[2026-12-02 04:28:07,000] INFO [BrokerServer id=1] shutting down (kafka.server.BrokerServer)",
		"[2026-12-02 04:28:08,000] INFO Recorded new KRaft controller, from now on will use node 127.0.0.1:1 (id: 100 rack: null isFenced: false) (org.apache.kafka.server.NodeToControllerRequestThread)",
		"[2026-12-02 04:28:09,000] INFO nothing of note here (x)",
		"more garbage \x00\x01",
	}, "\n")
	evs, st, err := Parse(strings.NewReader(in), 2, "logs/server.log")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		tp, b := "-", "-"
		if e.Topic != nil {
			tp = fmt.Sprintf("%s-%d", *e.Topic, *e.Partition)
		}
		if e.Broker != nil {
			b = fmt.Sprint(*e.Broker)
		}
		got = append(got, fmt.Sprintf("%d %s %s %s %s", *e.Line, time.UnixMilli(*e.Time).UTC().Format("15:04:05.000"), e.Kind, b, tp))
		if e.Input != 2 || e.File != "logs/server.log" || e.Source != Source {
			t.Errorf("evidence %+v", e)
		}
	}
	want := []string{
		"4 04:28:01.200 log-recovery 1 -", /* the log's writer, node 1 (line 12) */
		"5 04:28:02.378 unclean-election 1 -",
		"6 04:28:02.401 leader-change 1 replicated-0",
		"7 04:28:03.000 truncation 1 replicated-0",
		"8 04:28:04.500 isr-shrink 2 orders-3",
		"9 04:28:05.000 invalid-messages 3 orders-3",
		"12 04:28:06.000 broker-startup 1 -",
		"13 04:28:07.000 broker-shutdown 1 -",
		"14 04:28:08.000 controller-change 1 -",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st.Lines != 16 || st.Entries != 11 || st.Continuations != 3 || st.Unparsed != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestParseHostile: no line, however long or binary, stops the parse.
func TestParseHostile(t *testing.T) {
	in := strings.Repeat("x", 3*maxLine) + "\n[2026-12-02 04:28:03,000] INFO Truncating to offset 4 (x)\n" + strings.Repeat("\xff", 100)
	evs, st, err := Parse(strings.NewReader(in), 0, "server.log")
	if err != nil || len(evs) != 1 || st.Long != 1 || st.Unparsed != 2 {
		t.Errorf("events %d, stats %+v, err %v", len(evs), st, err)
	}
}
