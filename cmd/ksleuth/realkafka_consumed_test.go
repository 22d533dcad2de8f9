package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// checkConsumedBy holds the consumed_by of every strong duplicate copy
// to the groups' truth: it names group G exactly when G processed that
// copy's offset and then committed past it (an acknowledged commit above
// the offset). Scenarios without commits in their truth have nothing to
// hold it to.
func checkConsumedBy(t *testing.T, truth *realkafka.Truth, logDirs []string) {
	if len(truth.Commits) == 0 {
		t.Logf("%s: the truth has no consumer group commits", truth.Scenario)
		return
	}
	type gloc struct {
		group string
		locKey
	}
	processed := map[gloc]bool{}
	for _, c := range truth.Consumed {
		processed[gloc{c.Group, locKey{c.Topic, c.Partition, c.Offset}}] = true
	}
	type gpart struct {
		group, topic string
		partition    int32
	}
	highest := map[gpart]int64{}
	var groups []string
	for _, c := range truth.Commits {
		if !c.Acked {
			continue
		}
		k := gpart{c.Group, c.Topic, c.Partition}
		if h, ok := highest[k]; !ok || c.Offset > h {
			highest[k] = c.Offset
		}
		if !slices.Contains(groups, c.Group) {
			groups = append(groups, c.Group)
		}
	}
	slices.Sort(groups)
	dupGroups, _ := dupsJSON(t, logDirs...)
	strong, withGroup := 0, 0
	bySet := map[string]int{} // consumed_by -> copies
	for _, g := range dupGroups {
		for _, m := range g.Members {
			if m.Class == "" || m.Evidence != "strong" {
				continue
			}
			strong++
			var want []string
			for _, grp := range groups {
				h, ok := highest[gpart{grp, m.Topic, m.Partition}]
				if ok && h > m.Offset && processed[gloc{grp, locKey{m.Topic, m.Partition, m.Offset}}] {
					want = append(want, grp)
				}
			}
			if want == nil {
				want = []string{}
			}
			if len(want) > 0 {
				withGroup++
			}
			bySet["["+strings.Join(want, " ")+"]"]++
			if !slices.Equal(m.ConsumedBy, want) {
				t.Errorf("%s-%d@%d (%s): consumed_by %v, the truth says %v processed it and committed past it",
					m.Topic, m.Partition, m.Offset, m.Class, m.ConsumedBy, want)
			}
		}
	}
	t.Logf("%s: %d strong later copies, %d consumed by a group (%s); copies by consumed_by %v",
		truth.Scenario, strong, withGroup, strings.Join(groups, ", "), bySet)
	if strong == 0 {
		t.Errorf("%s: no strong later copy to check consumed_by on", truth.Scenario)
	}
}
