package realkafka

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Scenario is one broker-side story with its ground truth.
type Scenario struct {
	Name string
	Doc  string
	// Brokers is the cluster size; Stop how the brokers end (clean, kill
	// or live-copy) after the truth is read back.
	Brokers int
	// Dedicated adds a controller-only node, so brokers can die without
	// losing the quorum.
	Dedicated bool
	Stop      string
	// Config overrides the harness's server properties.
	Config map[string]string
	// Tiered starts the brokers with remote storage (scenarios_tiered.go).
	Tiered bool
	run    func(s *Session) error
	// after runs once the brokers are stopped and the truth is read
	// back: what a scenario does to their files by hand, and adds to the
	// truth.
	after func(s *Session, t *Truth) error
}

// Session is one run of a scenario.
type Session struct {
	*Env
	Ctx     context.Context
	Rand    *rand.Rand
	Seed    int64
	Cluster *Cluster
	App     *App
}

// Scenarios lists every scenario, in the order the tests run them.
func Scenarios() []Scenario {
	return []Scenario{
		idempotentRestart, transactional, innocentRepeats, codecs,
		brokerCrash, liveCopy, segments, uncleanElection, hangingTxn, consumerGroups,
		startupRepublish, shutdownMessage, retentionTime,
		tieredClean, remoteSegmentDeleted, tierCopyFailed, tierRemoteRetention, tierPartitionDeleted,
	}
}

// CauseScenarios lists the scenarios of the causes of duplicates beyond a
// restart (docs/duplicates.md), which their own test checks.
func CauseScenarios() []Scenario {
	return []Scenario{nonidemRetry, reprocessCrash, rebalanceZombie}
}

// Lookup finds a scenario by name.
func Lookup(name string) (Scenario, bool) {
	all := slices.Concat(Scenarios(), CauseScenarios())
	i := slices.IndexFunc(all, func(s Scenario) bool { return s.Name == name })
	if i < 0 {
		return Scenario{}, false
	}
	return all[i], true
}

// Run runs the named scenario against release k, writing
// out/broker-<id>/data, out/broker-<id>/logs and out/truth.json. Every
// process it starts is gone when it returns.
func Run(ctx context.Context, k *Kafka, name string, seed int64, out string, logf func(string, ...any)) (*Truth, error) {
	sc, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no scenario %q (have %s)", name, strings.Join(Names(), ", "))
	}
	env, err := NewEnv(k, out, logf)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	if err := os.MkdirAll(filepath.Join(out, "work"), 0o755); err != nil {
		return nil, err
	}
	cfg, remoteRoots, err := tieredSetup(env, sc)
	if err != nil {
		return nil, err
	}
	c, err := env.NewCluster(ctx, sc.Brokers, sc.Dedicated, cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{Env: env, Ctx: ctx, Rand: rand.New(rand.NewPCG(uint64(seed), 0x6b736c657574)), Seed: seed, Cluster: c, App: newApp()}
	start := time.Now()
	if err := sc.run(s); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	t := &Truth{Scenario: name, KafkaVersion: k.Version, Stop: sc.Stop, RemoteRoots: remoteRoots}
	if t.Records, t.Resends, t.Lost, err = s.App.truth(ctx, c); err != nil {
		return nil, fmt.Errorf("scenario %s: truth: %w", name, err)
	}
	// Empty lists, not null, in truth.json.
	t.Records = nonNil(t.Records)
	t.Resends = nonNil(t.Resends)
	t.Lost = nonNil(t.Lost)
	t.Commits, t.Consumed, t.OffsetDeletes = s.App.groupTruth()
	t.Pipelines = s.App.pipelines
	if err := s.stop(sc.Stop); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	if sc.after != nil {
		if err := sc.after(s, t); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", name, err)
		}
	}
	for _, b := range c.All() {
		t.Brokers = append(t.Brokers, TruthBroker{NodeID: b.NodeID, LogDir: filepath.ToSlash(filepath.Join(filepath.Base(b.Root), "data"))})
	}
	logf("scenario %s (Kafka %s, seed %d): %d records, %d resends, %d lost runs in %v",
		name, k.Version, seed, len(t.Records), len(t.Resends), len(t.Lost), time.Since(start).Round(time.Millisecond))
	return t, t.WriteFile(filepath.Join(out, "truth.json"))
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Names lists the scenario names.
func Names() []string {
	var out []string
	for _, s := range Scenarios() {
		out = append(out, s.Name)
	}
	return out
}

func (s *Session) stop(how string) error {
	switch how {
	case "clean":
		return s.Cluster.Stop()
	case "kill":
		for _, b := range s.Cluster.All() {
			b.Kill()
		}
		return nil
	case "live-copy":
		for _, b := range s.Cluster.All() {
			if !b.Running() {
				continue
			}
			cp := b.Root + "/live-copy"
			n, err := b.CopyLogDir(cp)
			if err != nil {
				return err
			}
			b.Kill()
			if err := os.RemoveAll(b.LogDir); err != nil {
				return err
			}
			if err := os.Rename(cp, b.LogDir); err != nil {
				return err
			}
			s.Logf("broker %d: live copy of %d files", b.NodeID, n)
		}
		return nil
	}
	return fmt.Errorf("unknown stop %q", how)
}

// Codecs are the compression.type values a producer takes.
var Codecs = []string{"none", "gzip", "snappy", "lz4", "zstd"}

// producer starts a Java producer on the cluster with props over the
// defaults.
func (s *Session) producer(name string, props map[string]string) (*JavaProducer, error) {
	all := map[string]string{
		"bootstrap.servers": s.Cluster.BootstrapString(),
		"client.id":         name,
		"linger.ms":         fmt.Sprint(s.Rand.IntN(15)),
		"batch.size":        fmt.Sprint(2048 + s.Rand.IntN(8)*2048),
		"compression.type":  Codecs[s.Rand.IntN(len(Codecs))],
	}
	for k, v := range props {
		all[k] = v
	}
	s.Logf("producer %s: %s", name, all["compression.type"])
	return s.StartProducer(name, all)
}

// topic creates a topic on the cluster and tells the app about it.
func (s *Session) topic(name string, partitions, rf int, configs map[string]string) error {
	s.App.Topic(name, partitions)
	return CreateTopic(s.Ctx, s.Cluster, name, partitions, rf, configs)
}

// payload is a seeded printable value of n bytes.
func (s *Session) payload(n int) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 "
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[s.Rand.IntN(len(alphabet))]
	}
	return b
}

// between is a seeded int in [lo, hi].
func (s *Session) between(lo, hi int) int { return lo + s.Rand.IntN(hi-lo+1) }
