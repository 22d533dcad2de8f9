package main

import (
	"os"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// kafkaRelease returns a resolved Kafka release for the comparisons of
// dump with kafka-dump-log, resolving it through Maven the first time;
// the test skips (fails under CI) when it cannot be resolved. The
// real-broker suite in realkafkatest resolves releases the same way.
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
		t.Skipf("SKIPPING the kafka-dump-log comparison: Kafka %s could not be resolved through Maven (%v); install Java 17 and Maven, or run .ci/run", version, err)
	}
	return k
}
