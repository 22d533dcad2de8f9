package realkafkatest

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

// Real Apache Kafka in the test loop: every scenario of
// cmd/ksleuth-gen/realkafka runs on real brokers, then ksleuth is
// checked against kafka-dump-log file by file and against the
// scenario's ground truth. The tests need java, javac and mvn (or the
// releases already in the cache); they fail when those are missing and
// KSLEUTH_REQUIRE_KAFKA=1 or CI=true, and skip loudly otherwise. -short
// leaves them out.

// kafkaRelease returns a resolved release, resolving it through Maven
// the first time.
func kafkaRelease(t *testing.T, version string) *realkafka.Kafka {
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

// realSeed is the scenarios' seed: KSLEUTH_REAL_KAFKA_SEED, else 1.
func realSeed(t *testing.T) int64 {
	if s := os.Getenv("KSLEUTH_REAL_KAFKA_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("KSLEUTH_REAL_KAFKA_SEED: %v", err)
		}
		return n
	}
	return 1
}

// realVersions are the releases and the scenarios each runs: every
// scenario on the newest; the seed case on the oldest 4.x and the
// transactional one on the last ZooKeeper-era release (in KRaft mode),
// whose kafka-dump-log prints the older notations.
func realVersions() map[string][]string {
	// The tiered scenarios run in TestRealKafkaTiered.
	all := slices.DeleteFunc(realkafka.Names(), func(n string) bool { return strings.Contains(n, "tier") || strings.Contains(n, "remote") })
	return map[string][]string{
		realkafka.Newest: all,
		"4.0.2":          {"idempotent-restart"},
		"3.9.2":          {"transactional"},
	}
}

// selected reports whether name is in the comma-separated list of the
// environment variable, or the variable is unset: a reviewer reruns one
// scenario or one release with it.
func selected(env, name string) bool {
	v := os.Getenv(env)
	return v == "" || slices.Contains(strings.Split(v, ","), name)
}

// TestRealKafka runs each scenario once and checks ksleuth on what the
// brokers wrote: dump against kafka-dump-log, verify, dups and producers
// against the truth.
func TestRealKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("real Kafka brokers take minutes: left out under -short")
	}
	versions := realVersions()
	for _, v := range realkafka.Versions {
		if !selected("KSLEUTH_REAL_KAFKA_VERSIONS", v) {
			continue
		}
		t.Run(v, func(t *testing.T) {
			k := kafkaRelease(t, v)
			for _, name := range versions[v] {
				if !selected("KSLEUTH_REAL_KAFKA_SCENARIOS", name) {
					continue
				}
				t.Run(name, func(t *testing.T) {
					dir := t.TempDir()
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
					defer cancel()
					truth, err := realkafka.Run(ctx, k, name, realSeed(t), dir, t.Logf)
					if err != nil {
						t.Fatal(err)
					}
					var logDirs []string
					for _, b := range truth.Brokers {
						logDirs = append(logDirs, filepath.Join(dir, filepath.FromSlash(b.LogDir)))
					}
					t.Run("dumplog", func(t *testing.T) {
						compareWithDumpLog(t, k, logDirs).report(t, v+"/"+name)
					})
					t.Run("verify", func(t *testing.T) { checkVerify(t, truth, logDirs) })
					t.Run("dups", func(t *testing.T) { checkDups(t, truth, logDirs) })
					t.Run("replicas", func(t *testing.T) { checkReplicas(t, truth, logDirs) })
					t.Run("bundle", func(t *testing.T) { checkBundle(t, logDirs) })
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
					if v == realkafka.Newest {
						checkRestarts(t, k, name, dir)
					}
				})
			}
		})
	}
}
