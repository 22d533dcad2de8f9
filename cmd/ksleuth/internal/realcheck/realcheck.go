// Package realcheck holds the checks of ksleuth against real Apache
// Kafka: each scenario of cmd/ksleuth-gen/realkafka runs on real brokers,
// then the built ksleuth binary is checked against kafka-dump-log file by
// file and against the scenario's ground truth. The test packages under
// cmd/ksleuth/realkafkatest each run one family of scenarios through
// RunFamily, so that go test runs the families in parallel and no package
// needs more than a few minutes.
//
// The tests need java, javac and mvn (or the releases already in the
// cache); they fail when those are missing and KSLEUTH_REQUIRE_KAFKA=1 or
// CI=true, and skip loudly otherwise. -short leaves them out.
package realcheck

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// Families splits the scenarios among the test packages under
// cmd/ksleuth/realkafkatest, by the package that runs them; each
// scenario is in exactly one (TestFamiliesCoverScenarios). The split
// keeps each package to a few minutes on two busy cores: the restart
// cases start a broker again on a copy of the run (hanging-txn's take
// the longest), and unclean-election starts four JVMs.
var Families = map[string][]string{
	// Producers that restart, idempotent and transactional; also the
	// runs on the older releases.
	"producers": {"idempotent-restart", "transactional"},
	// Clients whose repeats are no resends, and every codec.
	"clients": {"innocent-repeats", "codecs", "startup-republish", "shutdown-message"},
	// A hanging transaction, checked live and after a restart.
	"hanging": {"hanging-txn"},
	// Consumer groups, on one broker and across an unclean election.
	"groups": {"consumer-groups", "unclean-election"},
	// Segments deleted by size, time, DeleteRecords and compaction.
	"retention": {"segments", "retention-time"},
	// A broker killed, and a log dir copied while it runs.
	"crash": {"broker-crash", "live-copy"},
	// Tiered storage: the package runs its own checks (remote-only
	// offsets, __remote_log_metadata), not RunFamily's, as its log dir
	// holds only the local tail of what the truth lists.
	// Two packages, since each tiered scenario waits a minute or two on
	// the broker's copies and deletions.
	"tiered":     {"tiered-clean", "tier-copy-failed", "tier-partition-deleted"},
	"tieredharm": {"remote-segment-deleted", "tier-remote-retention"},
}

// Release returns a resolved release, resolving it through Maven the
// first time.
func Release(t *testing.T, version string) *realkafka.Kafka {
	t.Helper()
	if k, ok := realkafka.Cached(version); ok {
		return k
	}
	k, err := realkafka.Resolve(version)
	if err != nil {
		if os.Getenv("KSLEUTH_REQUIRE_KAFKA") == "1" || os.Getenv("CI") == "true" {
			t.Fatalf("Kafka %s is required here (KSLEUTH_REQUIRE_KAFKA=1 or CI=true) and could not be resolved: %v", version, err)
		}
		t.Skipf("SKIPPING the real-Kafka tests: Kafka %s could not be resolved through Maven (%v); install Java 17 and Maven, or run .ci/run", version, err)
	}
	return k
}

// Seed is the scenarios' seed: KSLEUTH_REAL_KAFKA_SEED, else 1.
func Seed(t *testing.T) int64 {
	if s := os.Getenv("KSLEUTH_REAL_KAFKA_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("KSLEUTH_REAL_KAFKA_SEED: %v", err)
		}
		return n
	}
	return 1
}

// versionScenarios are the releases and the scenarios each runs: every
// scenario on the newest; the seed case on the oldest 4.x and the
// transactional one on the last ZooKeeper-era release (in KRaft mode),
// whose kafka-dump-log prints the older notations.
func versionScenarios() map[string][]string {
	return map[string][]string{
		realkafka.Newest: realkafka.Names(),
		"4.0.2":          {"idempotent-restart"},
		"3.9.2":          {"transactional"},
	}
}

// Selected reports whether name is in the comma-separated list of the
// environment variable, or the variable is unset: a reviewer reruns one
// scenario or one release with it.
func Selected(env, name string) bool {
	v := os.Getenv(env)
	return v == "" || slices.Contains(strings.Split(v, ","), name)
}

// Run is one finished run of a scenario, as the checks get it.
type Run struct {
	Kafka *realkafka.Kafka
	Name  string
	// Dir holds the run (broker-<id>/data, broker-<id>/logs, truth.json);
	// LogDirs are the brokers' log dirs in it.
	Dir     string
	Truth   *realkafka.Truth
	LogDirs []string
}

// RunFamily runs each scenario of the family once on each release that
// runs it, and checks ksleuth on what the brokers wrote: dump against
// kafka-dump-log, verify, dups, producers, replicas and groups against
// the truth, then the family's own checks (more), and the restart cases
// on the newest release. One run serves every check of its scenario.
func RunFamily(t *testing.T, family string, more ...func(t *testing.T, r *Run)) {
	if testing.Short() {
		t.Skip("real Kafka brokers take minutes: left out under -short")
	}
	names, ok := Families[family]
	if !ok {
		t.Fatalf("no scenario family %q", family)
	}
	versions := versionScenarios()
	for _, v := range realkafka.Versions {
		if !Selected("KSLEUTH_REAL_KAFKA_VERSIONS", v) || !slices.ContainsFunc(versions[v], func(n string) bool { return slices.Contains(names, n) }) {
			continue
		}
		t.Run(v, func(t *testing.T) {
			k := Release(t, v)
			for _, name := range versions[v] {
				if slices.Contains(names, name) && Selected("KSLEUTH_REAL_KAFKA_SCENARIOS", name) {
					t.Run(name, func(t *testing.T) { runScenario(t, k, name, more) })
				}
			}
		})
	}
}

// runScenario runs one scenario on release k and every check on it.
func runScenario(t *testing.T, k *realkafka.Kafka, name string, more []func(*testing.T, *Run)) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	truth, err := realkafka.Run(ctx, k, name, Seed(t), dir, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	var logDirs []string
	for _, b := range truth.Brokers {
		logDirs = append(logDirs, filepath.Join(dir, filepath.FromSlash(b.LogDir)))
	}
	t.Run("dumplog", func(t *testing.T) {
		compareWithDumpLog(t, k, logDirs).report(t, k.Version+"/"+name)
	})
	t.Run("verify", func(t *testing.T) { checkVerify(t, truth, logDirs) })
	t.Run("dups", func(t *testing.T) { checkDups(t, truth, logDirs) })
	t.Run("replicas", func(t *testing.T) { checkReplicas(t, truth, logDirs) })
	t.Run("bundle", func(t *testing.T) { checkBundle(t, truth, logDirs) })
	t.Run("groups", func(t *testing.T) { checkGroups(t, truth, logDirs) })
	t.Run("consumed", func(t *testing.T) { checkConsumedBy(t, truth, logDirs) })
	t.Run("consumed-lost", func(t *testing.T) { checkConsumedLost(t, truth, logDirs) })
	// Each broker's snapshots describe its own replica.
	t.Run("producers", func(t *testing.T) {
		for _, d := range logDirs {
			checkProducers(t, k, truth, []string{d})
		}
	})
	if name == "hanging-txn" {
		t.Run("hanging", func(t *testing.T) { checkHangingLive(t, dir) })
	}
	r := &Run{Kafka: k, Name: name, Dir: dir, Truth: truth, LogDirs: logDirs}
	for _, check := range more {
		check(t, r)
	}
	if k.Version == realkafka.Newest {
		checkRestarts(t, k, name, dir)
	}
}
