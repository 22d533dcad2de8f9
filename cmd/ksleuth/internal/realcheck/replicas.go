package realcheck

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

type divergenceOut struct {
	Type                 string     `json:"type"`
	Topic                string     `json:"topic"`
	Partition            int32      `json:"partition"`
	Broker               *int32     `json:"broker"`
	ReferenceBroker      *int32     `json:"reference_broker"`
	FirstDivergentOffset *int64     `json:"first_divergent_offset"`
	ExtraRanges          [][2]int64 `json:"extra_ranges"`
	Verdict              string     `json:"verdict"`
	Explanation          string     `json:"explanation"`
}

// checkReplicas runs replicas --json over the brokers' log dirs: the
// offsets the diverged copies hold outside the reference's history must
// cover every acknowledged offset the truth says an unclean election
// lost, and without such losses no copy may diverge. verify reports the
// same copies as replica-divergence errors.
func checkReplicas(t *testing.T, truth *realkafka.Truth, logDirs []string) {
	out, errs, code := scanCmd(t, append([]string{"replicas", "--json", "--progress", "never"}, logDirs...)...)
	if code != exitOK {
		t.Fatalf("replicas: exit %d\n%s", code, errs)
	}
	type tp struct {
		topic string
		part  int32
	}
	extra := map[tp]map[int64]bool{}
	diverged := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var d divergenceOut
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if d.Type != "divergence" {
			continue
		}
		broker := "?"
		if d.Broker != nil {
			broker = fmt.Sprint(*d.Broker)
		}
		t.Logf("%s-%d broker %s: %s", d.Topic, d.Partition, broker, d.Explanation)
		if d.Verdict != "diverged" {
			continue
		}
		diverged++
		k := tp{d.Topic, d.Partition}
		if extra[k] == nil {
			extra[k] = map[int64]bool{}
		}
		for _, r := range d.ExtraRanges {
			for o := r[0]; o <= r[1]; o++ {
				extra[k][o] = true
			}
		}
	}
	lost, covered := 0, 0
	for _, l := range truth.Lost {
		if l.Why != "unclean-election" {
			continue
		}
		for o := l.FirstOffset; o <= l.LastOffset; o++ {
			lost++
			if extra[tp{l.Topic, l.Partition}][o] {
				covered++
			}
		}
	}
	beyond := 0
	for _, os := range extra {
		beyond += len(os)
	}
	beyond -= covered
	t.Logf("replicas on %s: %d diverged copies; %d of %d offsets the truth lost by unclean election are in their extra ranges; "+
		"%d extra offsets beyond those (written, never acknowledged)",
		truth.Scenario, diverged, covered, lost, beyond)
	if covered != lost {
		t.Errorf("replicas finds %d of the %d offsets lost by unclean election", covered, lost)
	}
	if lost == 0 && diverged > 0 {
		t.Errorf("%d diverged copies in a scenario that lost nothing to an election", diverged)
	}
	checkClusterEvents(t, truth, logDirs, lost > 0)
	// verify says the same, one replica-divergence error per diverged copy.
	vout, _, _ := scanCmd(t, append([]string{"verify", "--json"}, logDirs...)...)
	if n := strings.Count(vout, fmt.Sprintf("%q:%q", "kind", "replica-divergence")); n != diverged {
		t.Errorf("verify reports %d replica-divergence findings, replicas %d diverged copies", n, diverged)
	}
}

// checkClusterEvents scans each broker's whole dir, log dir and logs/
// beside it: an election that lost data shows as an unclean-election
// event of the metadata log and of the brokers' own logs, and the
// broker logs are read.
func checkClusterEvents(t *testing.T, truth *realkafka.Truth, logDirs []string, unclean bool) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"scan", "--json", "--progress", "never", "--out", out}
	for _, d := range logDirs {
		args = append(args, filepath.Dir(d))
	}
	stdout, errs, code := scanCmd(t, args...)
	if code != exitOK && code != exitFindings {
		t.Fatalf("scan: exit %d\n%s", code, errs)
	}
	var sum struct {
		BrokerLogs struct {
			Files, Lines, Unparsed int64
		} `json:"broker_logs"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	bySource := map[string]int{}
	kinds := map[string]int{}
	for _, e := range readTable[analysis.ClusterEventRow](t, filepath.Join(out, tableEvents)) {
		kinds[e.Source+" "+e.Kind]++
		if e.Kind == "unclean-election" {
			bySource[e.Source]++
		}
	}
	t.Logf("cluster events of %s: %v; broker logs %+v", truth.Scenario, kinds, sum.BrokerLogs)
	// kafkaServer.out may hold the JVM's own lines, which are no log
	// entries: unparsed lines are counted, and only logged here.
	if sum.BrokerLogs.Files == 0 || sum.BrokerLogs.Lines == 0 {
		t.Errorf("broker logs: %+v, want some read", sum.BrokerLogs)
	}
	if unclean && (bySource["metadata-log"] == 0 || bySource["broker-log"] == 0) {
		t.Errorf("unclean-election events by source %v: want the metadata log's and the broker logs'", bySource)
	}
	// A lone replica that comes back after a crash is re-elected with
	// Kafka's RECOVERING mark (its unclean shutdown took it out of the
	// ISR and the eligible replicas): an unclean election by Kafka's own
	// account, though with no other copy nothing is lost to it. Where
	// there are other replicas, such an event without a loss is wrong.
	if !unclean && len(truth.Brokers) > 1 && bySource["metadata-log"] > 0 {
		t.Errorf("%d unclean elections in the metadata log of a scenario that lost nothing to one", bySource["metadata-log"])
	}
}
