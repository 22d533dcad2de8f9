package realcheck

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// RunCauses runs the scenarios of the causes of duplicates beyond a
// restart on the newest release and checks dups against their truth: a
// client's retry (nonidem-retry), an application's output produced again
// after a crash before its commit (reprocess-crash) or by a stalled
// instance the group had moved on from (rebalance-zombie).
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

// causeClasses are the truth's kinds of the causes beyond a restart, each
// with the class dups names it by.
var causeClasses = map[string]string{
	realkafka.KindRetry:     "retry",
	realkafka.KindReprocess: "reprocess",
	realkafka.KindRebalance: "rebalance",
}

type causeLoc struct {
	topic     string
	partition int32
	offset    int64
}

// checkCauses holds dups to the truth's later copies of a cause: every one
// is a later copy in dups (recall 1.0) classed by its cause, nothing else
// is classed so, none is left a repeat, and an application's output
// produced again (reprocess, rebalance) is no producer's restart-resend.
func checkCauses(t *testing.T, truth *realkafka.Truth, logDirs []string) {
	t.Helper()
	want := map[causeLoc]string{}
	consumerSide := false
	for _, r := range truth.Resends {
		if c, ok := causeClasses[r.Kind]; ok {
			want[causeLoc{r.Topic, r.Partition, r.Offset}] = c
			consumerSide = consumerSide || r.Kind != realkafka.KindRetry
		}
	}
	if len(want) == 0 {
		t.Fatalf("%s: the truth holds no later copy of a cause: the scenario did not make one", truth.Scenario)
	}
	groups, sum := dupsJSON(t, slices.Concat(logDirs, pipelineArgs(t, truth))...)
	got := map[causeLoc]string{}
	classes := slices.Collect(maps.Values(causeClasses))
	strong := 0
	for _, g := range groups {
		for _, m := range g.Members {
			if m.Class == "" {
				continue
			}
			l := causeLoc{m.Topic, m.Partition, m.Offset}
			got[l] = m.Class
			if m.Evidence == "strong" && m.Class == want[l] {
				strong++
			}
			if want[l] == "" && slices.Contains(classes, m.Class) {
				t.Errorf("%s-%d@%d classed %s, which the truth has not: %s", m.Topic, m.Partition, m.Offset, m.Class, m.Explanation)
			}
		}
	}
	found, named := 0, 0
	var misnamed []string
	for _, l := range slices.SortedFunc(maps.Keys(want), cmpCauseLoc) {
		switch c := got[l]; c {
		case "":
			t.Errorf("%s-%d@%d: the truth's %s copy is no later copy in dups", l.topic, l.partition, l.offset, want[l])
		case want[l]:
			found++
			named++
		default:
			found++
			misnamed = append(misnamed, fmt.Sprintf("%s-%d@%d %s", l.topic, l.partition, l.offset, c))
		}
	}
	t.Logf("dups on %s: later copies of the causes recall %s; the cause named on %d of %d (%d strong); %d later copies in all",
		truth.Scenario, ratio(found, len(want)), named, len(want), strong, sum.Duplicates)
	if len(misnamed) > 0 {
		t.Errorf("%d of the truth's %d later copies carry another class than their cause, e.g. %s",
			len(misnamed), len(want), strings.Join(misnamed[:min(len(misnamed), 5)], ", "))
	}
	if n := countClass(got, "repeat"); n > 0 {
		t.Errorf("%d later copies classed repeat where every copy has a producer- or consumer-side cause", n)
	}
	if n := countClass(got, "restart-resend"); consumerSide && n > 0 {
		t.Errorf("%d later copies classed restart-resend where every copy is an application's output produced again", n)
	}
	if sum.Duplicates != int64(len(want)) {
		t.Errorf("summary: %d later copies, the truth %d", sum.Duplicates, len(want))
	}
}

// pipelineArgs hands dups the pipelines the truth names. A build of dups
// without the flag gets none, and the test says so.
func pipelineArgs(t *testing.T, truth *realkafka.Truth) []string {
	if len(truth.Pipelines) == 0 {
		return nil
	}
	out, errOut, _ := scanCmd(t, "dups", "--help")
	if !strings.Contains(out+errOut, "--pipeline") {
		t.Logf("NOT HANDED to dups, which has no --pipeline flag: the pipelines %v", truth.Pipelines)
		return nil
	}
	var args []string
	for _, p := range truth.Pipelines {
		args = append(args, "--pipeline", p)
	}
	return args
}

func cmpCauseLoc(x, y causeLoc) int {
	return cmp.Or(cmp.Compare(x.topic, y.topic), cmp.Compare(x.partition, y.partition), cmp.Compare(x.offset, y.offset))
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
