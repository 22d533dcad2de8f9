package realcheck

import (
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// TestFamiliesCoverScenarios: every scenario runs in exactly one test
// package, and each family is a package under cmd/ksleuth/realkafkatest
// that runs it; a new scenario fails here until a family lists it.
func TestFamiliesCoverScenarios(t *testing.T) {
	in := map[string]string{}
	for _, fam := range slices.Sorted(maps.Keys(Families)) {
		if _, err := os.Stat("../../realkafkatest/" + fam); err != nil {
			t.Errorf("family %s has no package: %v", fam, err)
		}
		for _, name := range Families[fam] {
			if _, ok := realkafka.Lookup(name); !ok {
				t.Errorf("family %s lists %s, which is no scenario", fam, name)
			}
			if prev, ok := in[name]; ok {
				t.Errorf("%s is in families %s and %s", name, prev, fam)
			}
			in[name] = fam
		}
	}
	for _, name := range realkafka.Names() {
		if _, ok := in[name]; !ok {
			t.Errorf("scenario %s is in no family of realcheck.Families, so no test runs it", name)
		}
	}
	for v, names := range versionScenarios() {
		for _, name := range names {
			if _, ok := in[name]; !ok {
				t.Errorf("Kafka %s runs %s, which is in no family", v, name)
			}
		}
	}
}
