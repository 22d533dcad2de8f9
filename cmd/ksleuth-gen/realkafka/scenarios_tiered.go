package realkafka

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// localTieredStorage is Kafka's own remote storage manager for tests: it
// keeps the remote copies in a directory, under a subdirectory named
// kafka-tiered-storage, one directory per topic-partition
// (topic-partition-topicIdBase64) holding files named
// startOffset-segmentUuidBase64.suffix.
const localTieredStorage = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"

// remoteDirName is the subdirectory LocalTieredStorage puts under its
// configured dir: the remote store's root.
const remoteDirName = "kafka-tiered-storage"

// tieredClean tiers a topic's rolled segments to LocalTieredStorage and
// lets a short local.retention.ms delete them locally; the remote copies
// and their metadata in __remote_log_metadata stay. Every record is still
// readable (the truth reads them back through the broker, from remote
// storage), so nothing is lost: the log dir alone holds only the tail.
var tieredClean = Scenario{
	Name:    "tiered-clean",
	Doc:     "a topic's rolled segments tiered to LocalTieredStorage, then deleted locally by local.retention.ms; nothing lost",
	Brokers: 1, Stop: "clean", Tiered: true,
	run: func(s *Session) error { return s.tierTopic("tiered") },
}

// tieredConfig is the brokers' tiered storage configuration over the
// scenario's: the default topic-based metadata manager, with one
// partition and one replica for its topic, and a fast remote log manager.
func tieredConfig(remoteDir string) map[string]string {
	return map[string]string{
		"remote.log.storage.system.enable":                                 "true",
		"remote.log.storage.manager.class.name":                            localTieredStorage,
		"rsm.config.dir":                                                   remoteDir,
		"remote.log.metadata.manager.listener.name":                        "PLAINTEXT",
		"rlmm.config.remote.log.metadata.topic.replication.factor":         "1",
		"rlmm.config.remote.log.metadata.topic.num.partitions":             "1",
		"remote.log.manager.task.interval.ms":                              "1000",
		"log.retention.check.interval.ms":                                  "500",
		"file.delete.delay.ms":                                             "1000",
		"rlmm.config.remote.log.metadata.initialization.retry.interval.ms": "200",
	}
}

// tieredSetup returns the server properties for the scenario's brokers
// and, for a tiered scenario, puts the remote storage manager's jars on
// their classpath and names the remote root (relative to the output dir)
// for truth.json.
func tieredSetup(e *Env, sc Scenario) (map[string]string, []string, error) {
	if !sc.Tiered {
		return sc.Config, nil, nil
	}
	jars, err := tieredJars(e.Kafka)
	if err != nil {
		return nil, nil, err
	}
	e.brokerCP = append(e.brokerCP, filepath.Join(jars, "*"))
	if sc.Config["rsm.config.transferer.class"] == stallingTransferer {
		classes, err := transfererClasses(e.Kafka, jars)
		if err != nil {
			return nil, nil, err
		}
		e.brokerCP = append(e.brokerCP, classes)
	}
	dir, err := filepath.Abs(filepath.Join(e.Dir, "remote"))
	if err != nil {
		return nil, nil, err
	}
	cfg := tieredConfig(dir)
	maps.Copy(cfg, sc.Config)
	return cfg, []string{filepath.ToSlash(filepath.Join("remote", remoteDirName))}, nil
}

// tieredJars fetches, once per release, the jar holding
// LocalTieredStorage: kafka-storage's test fixtures (4.x publishes them
// under the classifier test-fixtures; earlier releases in the test jar).
func tieredJars(k *Kafka) (string, error) {
	dir := filepath.Join(k.Dir, "tiered")
	mark := filepath.Join(dir, completeMarker)
	if _, err := os.Stat(mark); err == nil {
		return dir, nil
	}
	var out bytes.Buffer
	for _, classifier := range []string{"test-fixtures", "test"} {
		out.Reset()
		cmd := exec.Command("mvn", "-q", "-B", "dependency:copy",
			"-Dartifact=org.apache.kafka:kafka-storage:"+k.Version+":jar:"+classifier, "-DoutputDirectory="+dir)
		cmd.Stdout, cmd.Stderr = &out, &out
		if cmd.Run() != nil {
			continue
		}
		if err := os.WriteFile(mark, []byte(classifier), 0o644); err != nil {
			return "", err
		}
		return dir, nil
	}
	return "", fmt.Errorf("mvn: no LocalTieredStorage jar for Kafka %s:\n%s", k.Version, out.Bytes())
}

// tierPlan is what tier produces: rounds of records to each topic, a
// segment rolled per round.
type tierPlan struct {
	topics []string
	// rounds is the number of rounds; 0 is 4 to 6, seeded.
	rounds int
	// settle runs once the rounds are produced, before tier waits for
	// the rolled segments to be tiered.
	settle func() error
}

// tierTopic tiers one topic's rolled segments (tier).
func (s *Session) tierTopic(topic string) error { return s.tier(tierPlan{topics: []string{topic}}) }

// tier produces rounds of records to one-partition topics with remote
// storage on, rolling a segment per round, waits until the rolled
// segments are in remote storage and gone from the log dir, then
// produces a last round the log dir keeps.
func (s *Session) tier(p tierPlan) error {
	cfg := map[string]string{
		"remote.storage.enable": "true", "local.retention.ms": "1000",
		"segment.ms": "1500", "index.interval.bytes": "1024",
	}
	for _, topic := range p.topics {
		if err := s.topic(topic, 1, 1, cfg); err != nil {
			return err
		}
	}
	jp, err := s.producer("tiered", map[string]string{"linger.ms": "5"})
	if err != nil {
		return err
	}
	next, rounds := 0, p.rounds
	if rounds == 0 {
		rounds = s.between(4, 6)
	}
	send := func(topic string, n int, pad bool) error {
		for range n {
			r := s.order(topic, next, 1)
			if pad {
				r.Value = append(r.Value, s.payload(s.between(400, 900))...)
			}
			next++
			if err := s.App.Send(jp, r, ""); err != nil {
				return err
			}
		}
		return nil
	}
	for round := range rounds {
		for _, topic := range p.topics {
			if err := send(topic, s.between(20, 40), true); err != nil {
				return err
			}
		}
		if err := jp.Do("flush", ackWait); err != nil {
			return err
		}
		if round < rounds-1 {
			time.Sleep(1800 * time.Millisecond) // past segment.ms: the next round rolls
		}
	}
	if p.settle != nil {
		if err := p.settle(); err != nil {
			return err
		}
	}
	for _, topic := range p.topics {
		if err := s.awaitTiered(topic, rounds-1, 90*time.Second); err != nil {
			return err
		}
	}
	// A tail kept locally: local retention back to the topic's retention,
	// then a last round the log dir holds beside the remote segments.
	for _, topic := range p.topics {
		if err := alterTopicConfig(s, topic, "local.retention.ms", "-2"); err != nil {
			return err
		}
		if err := send(topic, s.between(10, 20), false); err != nil {
			return err
		}
	}
	if err := jp.Do("flush", ackWait); err != nil {
		return err
	}
	s.App.Collect(jp)
	return jp.Close()
}

// awaitTiered waits until the remote root holds at least want segments of
// topic's partition 0 and the log dir has deleted every segment below the
// active one.
func (s *Session) awaitTiered(topic string, want int, wait time.Duration) error {
	b := s.Cluster.Brokers[0]
	local := filepath.Join(b.LogDir, topic+"-0")
	deadline := time.Now().Add(wait)
	for {
		remote := remoteSegments(filepath.Join(s.Dir, "remote", remoteDirName), topic, 0)
		bases, deleting := localSegments(local)
		if len(remote) >= want && len(bases) == 1 && !deleting {
			s.Logf("tiered %d segments of %s-0; local log starts at %d", len(remote), topic, bases[0])
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s-0 not tiered within %v: %d remote segments (want %d), local segments %v",
				topic, wait, len(remote), want, bases)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// alterTopicConfig sets one config of a topic.
func alterTopicConfig(s *Session, topic, key, value string) error {
	cl, err := s.Cluster.Client()
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, topic
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Op, c.Value = key, kmsg.IncrementalAlterConfigOpSet, &value
	res.Configs = append(res.Configs, c)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(s.Ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return fmt.Errorf("alter %s of %s: %w", key, topic, err)
		}
	}
	return nil
}

// remoteSegments lists the start offsets of the .log files of a
// partition's directory in a LocalTieredStorage root.
func remoteSegments(root, topic string, partition int) []int64 {
	dirs, _ := filepath.Glob(filepath.Join(root, fmt.Sprintf("%s-%d-*", topic, partition)))
	var out []int64
	for _, d := range dirs {
		logs, _ := filepath.Glob(filepath.Join(d, "*.log"))
		for _, l := range logs {
			base, _, _ := strings.Cut(filepath.Base(l), "-")
			if n, err := strconv.ParseInt(base, 10, 64); err == nil {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// localSegments lists the base offsets of a partition dir's segments and
// whether some are still waiting for deletion.
func localSegments(dir string) ([]int64, bool) {
	entries, _ := os.ReadDir(dir)
	var bases []int64
	deleting := false
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".deleted") {
			deleting = true
		}
		if base, ok := strings.CutSuffix(name, ".log"); ok {
			if n, err := strconv.ParseInt(base, 10, 64); err == nil {
				bases = append(bases, n)
			}
		}
	}
	slices.Sort(bases)
	return bases, deleting
}
