package realcheck

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
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
	if strong == 0 && len(truth.Resends) > 0 {
		t.Errorf("%s: no strong later copy to check consumed_by on", truth.Scenario)
	}
}

// checkConsumedLost holds the consumers command's lines for records a
// replica lost by divergence to the groups' truth: a group is listed
// exactly when it processed a record that is gone from its offset (the
// unclean election put the new leader's record there) in a partition the
// truth lost records of. A group that read only the new leader's records
// commits past the same offsets, in the new leader's epoch, and must not
// be listed; the scenario needs one such group, or the epochs decide
// nothing.
func checkConsumedLost(t *testing.T, truth *realkafka.Truth, logDirs []string) {
	type part struct {
		topic string
		p     int32
	}
	lostFrom := map[part]int64{}
	for _, l := range truth.Lost {
		if l.Why != "unclean-election" {
			continue
		}
		k := part{l.Topic, l.Partition}
		if f, ok := lostFrom[k]; !ok || l.FirstOffset < f {
			lostFrom[k] = l.FirstOffset
		}
	}
	if len(lostFrom) == 0 || len(truth.Commits) == 0 {
		t.Logf("%s: no group commits beside records lost by unclean election", truth.Scenario)
		return
	}
	readLost := map[string]bool{}
	for _, c := range truth.Consumed {
		if _, ok := lostFrom[part{c.Topic, c.Partition}]; ok && c.Gone {
			readLost[c.Group] = true
		}
	}
	var newOnly []string
	for _, c := range truth.Commits {
		if f, ok := lostFrom[part{c.Topic, c.Partition}]; ok && c.Acked && c.Offset > f && !readLost[c.Group] && !slices.Contains(newOnly, c.Group) {
			newOnly = append(newOnly, c.Group)
		}
	}
	out, errs, code := scanCmd(t, append([]string{"consumers", "--json", "--progress", "never"}, logDirs...)...)
	if code != exitOK && code != exitFindings {
		t.Fatalf("consumers: exit %d\n%s", code, errs)
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		var c pipeline.ConsumedLine
		if json.Unmarshal([]byte(l), &c) != nil || c.Type != "consumed" || c.Detail != "replica-divergence" {
			continue
		}
		listed[c.Group] = true
		t.Logf("%s", text.ConsumedText(&c))
	}
	want, got := slices.Sorted(maps.Keys(readLost)), slices.Sorted(maps.Keys(listed))
	t.Logf("%s: groups that read lost records %v; committed past them in the new leader's epoch only %v; consumers lists %v",
		truth.Scenario, want, newOnly, got)
	if !slices.Equal(got, want) {
		t.Errorf("consumers lists %v for the records lost by divergence, the truth says %v read them", got, want)
	}
	if len(want) == 0 || len(newOnly) == 0 {
		t.Errorf("%s: want a group that read lost records (%v) and one that committed past them in the new epoch only (%v)", truth.Scenario, want, newOnly)
	}
}
