package realkafka

import (
	"os"
	"testing"
)

// TestResolve resolves every pinned release (KSLEUTH_RESOLVE_KAFKA=1):
// .ci/run's once-per-machine step.
func TestResolve(t *testing.T) {
	if os.Getenv("KSLEUTH_RESOLVE_KAFKA") != "1" {
		t.Skip("KSLEUTH_RESOLVE_KAFKA=1 resolves the pinned Kafka releases through Maven")
	}
	for _, v := range Versions {
		k, err := Resolve(v)
		if err != nil {
			t.Fatal(err)
		}
		class, err := k.dumpLogClass()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Kafka %s in %s (kafka-dump-log is %s)", v, k.Dir, class)
	}
}
