package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestDupsEvidenceScenarios prints the precision and recall of the strong
// grade in every generated scenario against its ground truth: 1.0 and
// 1.0 where the scenario shows a restart and a resend, no strong copy
// where it does not. Every option a group needs is given, so every
// expected group is reported.
func TestDupsEvidenceScenarios(t *testing.T) {
	t.Parallel()
	dir, truth := genDupScenarios(t)
	groups, _ := dupsJSON(t, dir, "--same-pid", "--ignore-header", "trace-id")
	got := map[string]map[string]string{} // topic -> partition@offset -> grade
	for _, g := range groups {
		for _, m := range g.Members {
			if got[m.Topic] == nil {
				got[m.Topic] = map[string]string{}
			}
			got[m.Topic][fmt.Sprintf("%d@%d", m.Partition, m.Offset)] = m.Evidence
		}
	}
	for _, sc := range truth.Scenarios {
		want := map[string]string{}
		for _, g := range sc.Groups {
			for _, m := range g.Members {
				want[fmt.Sprintf("%d@%d", m.Partition, m.Offset)] = m.Evidence
			}
		}
		var tp, gotStrong, wantStrong, graded int
		for k, e := range want {
			if e == "strong" {
				wantStrong++
				if got[sc.Topic][k] == "strong" {
					tp++
				}
			}
			if e != "" {
				graded++
			}
		}
		for _, e := range got[sc.Topic] {
			if e == "strong" {
				gotStrong++
			}
		}
		ratio := func(a, b int) string {
			if b == 0 {
				return "n/a"
			}
			return fmt.Sprintf("%.2f", float64(a)/float64(b))
		}
		kind := "negative"
		if sc.Strong {
			kind = "positive"
		}
		t.Logf("%-16s %s: graded %2d, strong %2d of %2d expected: precision %s recall %s (%s)", sc.Topic, kind, graded, gotStrong, wantStrong,
			ratio(tp, gotStrong), ratio(tp, wantStrong), sc.About)
		if tp != gotStrong || tp != wantStrong {
			t.Errorf("%s: strong precision %d/%d, recall %d/%d", sc.Topic, tp, gotStrong, tp, wantStrong)
		}
		if !sc.Strong && graded == 0 {
			continue
		}
		if graded == 0 {
			t.Errorf("%s: a positive scenario with no graded copy", sc.Topic)
		}
		for k, e := range want {
			if g := got[sc.Topic][k]; g != e {
				t.Errorf("%s-%s: evidence %q, want %q", sc.Topic, k, g, e)
			}
		}
	}
}

// TestDupsEvidenceRealCorpus names every later copy of the real broker
// corpus with its class and grade: each is an innocent repeat across
// producer sessions (an IDE plugin's empty value, a line typed twice, a
// constant value every 15 s), so none is strong, and the copy of a
// PID -1 record is a repeat.
func TestDupsEvidenceRealCorpus(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(corpusDir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("real corpus missing: %v", err)
		}
		t.Skipf("SKIPPED: real corpus not available (%v); this test pins the grades of its 23 copies", err)
	}
	const rekey = "_confluent-controlcenter-7-6-0-1-monitoring-trigger-event-rekey-0"
	want := []string{
		"BiggerBrain__kafka lsx1-0@1 PID 0: repeat",
		"NikhilDighe9975__kafka_setup nikhilDemo-0@1 PID 10000: restart-resend/weak",
		"NikhilDighe9975__kafka_setup my-topic-0@1 PID 2: repeat",
		"rjmfernandes__flink-on-prem _confluent-command-0@1 PID 20: restart-resend/weak",
	}
	for o := 2; o <= 13; o++ {
		want = append(want, fmt.Sprintf("BiggerBrain__kafka lsx1-0@%d PID %d: restart-resend/weak", o, o-1))
	}
	for o := 1; o <= 7; o++ {
		want = append(want, fmt.Sprintf("rjmfernandes__flink-on-prem %s@%d PID 8: repeat", rekey, o))
	}
	// PID 27 writes the value of PID 8's last record at its start, then
	// again every 15 s: only the first can be a resend.
	want = append(want, fmt.Sprintf("rjmfernandes__flink-on-prem %s@23 PID 27: restart-resend/weak", rekey))
	for o := 24; o <= 30; o++ {
		want = append(want, fmt.Sprintf("rjmfernandes__flink-on-prem %s@%d PID 27: repeat", rekey, o))
	}
	// The corpus is one input; its topics name the log dirs they are in.
	sources := map[string]string{"lsx1": "BiggerBrain__kafka", "nikhilDemo": "NikhilDighe9975__kafka_setup", "my-topic": "NikhilDighe9975__kafka_setup",
		"_confluent-command": "rjmfernandes__flink-on-prem", strings.TrimSuffix(rekey, "-0"): "rjmfernandes__flink-on-prem"}
	groups, sum := dupsJSON(t, corpusDir)
	var got []string
	resends := 0
	for _, g := range groups {
		for _, m := range g.Members {
			if m.Class == "" {
				continue
			}
			s := fmt.Sprintf("%s %s-%d@%d PID %d: %s", sources[m.Topic], m.Topic, m.Partition, m.Offset, m.ProducerID, m.Class)
			if m.Evidence != "" {
				s += "/" + m.Evidence
			}
			if m.Class == "restart-resend" || m.Class == "txn-retry" {
				resends++
			}
			got = append(got, s)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("later copies differ\ngot:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if resends != 15 {
		t.Errorf("%d copies graded, want 15 (16 once classed restart-resend, less the copy of a PID -1 record)", resends)
	}
	if sum.Duplicates != int64(len(want)) {
		t.Errorf("summary: %d later copies, want %d", sum.Duplicates, len(want))
	}
}
