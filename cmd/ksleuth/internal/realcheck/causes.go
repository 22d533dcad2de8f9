package realcheck

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// TestRealKafkaCauses runs the scenarios of the causes of duplicates
// beyond a restart on the newest release and checks dups against their
// truth: every later copy the truth has as a client's retry is found and
// classed retry (recall 1.0), nothing else is, and none is left a repeat.
func RunCauses(t *testing.T) {
	if testing.Short() {
		t.Skip("real Kafka brokers take minutes: left out under -short")
	}
	if !Selected("KSLEUTH_REAL_KAFKA_VERSIONS", realkafka.Newest) {
		t.Skipf("SKIPPED: KSLEUTH_REAL_KAFKA_VERSIONS leaves out %s", realkafka.Newest)
	}
	k := Release(t, realkafka.Newest)
	for _, sc := range realkafka.CauseScenarios() {
		if !Selected("KSLEUTH_REAL_KAFKA_SCENARIOS", sc.Name) {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			truth, err := realkafka.Run(ctx, k, sc.Name, Seed(t), dir, t.Logf)
			if err != nil {
				t.Fatal(err)
			}
			var logDirs []string
			for _, b := range truth.Brokers {
				logDirs = append(logDirs, filepath.Join(dir, filepath.FromSlash(b.LogDir)))
			}
			checkCauses(t, truth, logDirs)
		})
	}
}

// checkCauses holds dups to the truth's retries: recall and precision of
// the class, the grade of each, and no application repeat where the
// truth has the client's retry.
func checkCauses(t *testing.T, truth *realkafka.Truth, logDirs []string) {
	t.Helper()
	type loc struct {
		topic     string
		partition int32
		offset    int64
	}
	want := map[loc]bool{}
	for _, r := range truth.Resends {
		if r.Kind == realkafka.KindRetry {
			want[loc{r.Topic, r.Partition, r.Offset}] = true
		}
	}
	if len(want) == 0 {
		t.Fatalf("%s: the truth holds no retry: the pause did not make the client retry an appended batch", truth.Scenario)
	}
	groups, sum := dupsJSON(t, logDirs...)
	got := map[loc]string{}
	strong := 0
	for _, g := range groups {
		for _, m := range g.Members {
			if m.Class == "" {
				continue
			}
			l := loc{m.Topic, m.Partition, m.Offset}
			got[l] = m.Class
			if m.Class == "retry" && m.Evidence == "strong" && want[l] {
				strong++
			}
			if m.Class == "retry" && !want[l] {
				t.Errorf("%s-%d@%d classed retry, which the truth has not: %s", m.Topic, m.Partition, m.Offset, m.Explanation)
			}
		}
	}
	tp := 0
	for l := range want {
		switch c := got[l]; c {
		case "retry":
			tp++
		case "":
			t.Errorf("%s-%d@%d: the client's retry is in no group", l.topic, l.partition, l.offset)
		default:
			t.Errorf("%s-%d@%d: the client's retry is classed %s", l.topic, l.partition, l.offset, c)
		}
	}
	t.Logf("dups on %s: retries recall %s, precision %s; %d of %d strong; %d later copies in all",
		truth.Scenario, ratio(tp, len(want)), ratio(tp, countClass(got, "retry")), strong, len(want), sum.Duplicates)
	if n := countClass(got, "repeat"); n > 0 {
		t.Errorf("%d later copies classed repeat where every copy is the client's retry", n)
	}
	if sum.Duplicates != int64(len(want)) {
		t.Errorf("summary: %d later copies, the truth %d", sum.Duplicates, len(want))
	}
}

func countClass[K comparable](got map[K]string, class string) int {
	n := 0
	for _, c := range got {
		if c == class {
			n++
		}
	}
	return n
}
