package realcheck

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// groupCommit is one partition's committed offset as the application
// sent it or as __consumer_offsets holds it.
type groupCommit struct {
	offset   int64
	epoch    int32
	metadata string
}

type groupPartition struct {
	group, topic string
	partition    int32
}

// offsetsRecord is the part of ksleuth dump's decode of a
// __consumer_offsets record that the groups check reads.
type offsetsRecord struct {
	RecordType string `json:"recordType"`
	Tombstone  bool   `json:"tombstone"`
	GroupKey   struct {
		Group     string  `json:"group"`
		Topic     *string `json:"topic"`
		Partition *int32  `json:"partition"`
	} `json:"groupKey"`
	OffsetCommit *struct {
		Offset      int64  `json:"offset"`
		LeaderEpoch int32  `json:"leaderEpoch"`
		Metadata    string `json:"metadata"`
	} `json:"offsetCommit"`
}

// checkGroups holds ksleuth dump's decode of __consumer_offsets, on each
// broker, to the groups' side of the truth: per group and partition, the
// commit records in log order are the commits the coordinator
// acknowledged, in the order they were sent, with their offset, leader
// epoch and metadata; the tombstones are the offset deletes. With
// several brokers each copy holds some of those commits, in order, and
// every one is in some copy. It also checks the truth itself: every
// record a group processed is in the log, unless the truth says it is
// gone.
func checkGroups(t *testing.T, truth *realkafka.Truth, logDirs []string) {
	want := map[groupPartition][]groupCommit{}
	acked := 0
	for _, c := range truth.Commits {
		if c.Acked {
			acked++
			gp := groupPartition{c.Group, c.Topic, c.Partition}
			want[gp] = append(want[gp], groupCommit{c.Offset, c.LeaderEpoch, c.Metadata})
		}
	}
	wantDeletes := map[groupPartition]int{}
	for _, d := range truth.OffsetDeletes {
		wantDeletes[groupPartition{d.Group, d.Topic, d.Partition}]++
	}
	held := map[groupPartition][]groupCommit{} // by any copy, with several brokers
	for _, dir := range logDirs {
		var files []string
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".log") &&
				strings.HasPrefix(filepath.Base(filepath.Dir(path)), "__consumer_offsets-") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(files) // by partition, then base offset: log order within a group
		got := map[groupPartition][]groupCommit{}
		gotDeletes := map[groupPartition]int{}
		records := 0
		if len(files) > 0 {
			dumped := ksleuthDump(t, files)
			for _, f := range files {
				for _, m := range dumped[f] {
					raw, ok := m["decoded"]
					if m["type"] != "record" || !ok {
						continue
					}
					b, _ := json.Marshal(raw)
					var r offsetsRecord
					if err := json.Unmarshal(b, &r); err != nil {
						t.Fatalf("%s: decoded record: %v", f, err)
					}
					if r.RecordType != "OffsetCommit" || r.GroupKey.Topic == nil || r.GroupKey.Partition == nil {
						continue
					}
					gp := groupPartition{r.GroupKey.Group, *r.GroupKey.Topic, *r.GroupKey.Partition}
					switch {
					case r.Tombstone:
						gotDeletes[gp]++
					case r.OffsetCommit == nil:
						t.Errorf("%s offset %v: an offset commit record of %v with no decoded value", f, m["offset"], gp)
					default:
						records++
						got[gp] = append(got[gp], groupCommit{r.OffsetCommit.Offset, r.OffsetCommit.LeaderEpoch, r.OffsetCommit.Metadata})
					}
				}
			}
		}
		t.Logf("groups on %s (%s): %d offset commit records in __consumer_offsets, %d acknowledged commits in the truth (%d sent); %d tombstones, %d offset deletes",
			truth.Scenario, filepath.Base(filepath.Dir(dir)), records, acked, len(truth.Commits), sumValues(gotDeletes), len(truth.OffsetDeletes))
		for gp := range got {
			if _, ok := want[gp]; !ok {
				t.Errorf("%s: %v: %d commit records, and no acknowledged commit in the truth", dir, gp, len(got[gp]))
			}
		}
		if len(logDirs) > 1 {
			// Replicas: a copy of a __consumer_offsets partition holds the
			// acknowledged commits of the time its broker followed, in
			// order; one that stopped early, or was truncated by an
			// unclean election, lacks the later ones.
			for gp, g := range got {
				if !isSubsequence(g, want[gp]) {
					t.Errorf("%s: %v: commits {offset epoch metadata} %v in __consumer_offsets, not in order among the acknowledged %v", dir, gp, g, want[gp])
				}
				for _, c := range g {
					held[gp] = appendNew(held[gp], c)
				}
			}
			continue
		}
		if records != acked {
			t.Errorf("%s: %d offset commit records, the truth has %d acknowledged commits", dir, records, acked)
		}
		for _, gp := range slices.SortedFunc(maps.Keys(want), cmpGroupPartition) {
			if w, g := fmt.Sprint(want[gp]), fmt.Sprint(got[gp]); w != g {
				t.Errorf("%s: %v: commits {offset epoch metadata} acknowledged %s, in __consumer_offsets %s", dir, gp, w, g)
			}
		}
		if !maps.Equal(gotDeletes, wantDeletes) {
			t.Errorf("%s: offset commit tombstones %v, the truth's offset deletes %v", dir, gotDeletes, wantDeletes)
		}
	}
	if len(logDirs) > 1 {
		// Every acknowledged commit is in some broker's copy.
		for gp, w := range want {
			for _, c := range w {
				if !slices.Contains(held[gp], c) {
					t.Errorf("%v: acknowledged commit %v is in no broker's __consumer_offsets", gp, c)
				}
			}
		}
		if len(truth.OffsetDeletes) > 0 {
			t.Errorf("%s: offset deletes are checked on one broker only", truth.Scenario)
		}
	}
	inLog := map[locKey]bool{}
	for _, r := range truth.Records {
		inLog[locKey{r.Topic, r.Partition, r.Offset}] = true
	}
	byGroup, gone := map[string]int{}, 0
	for _, c := range truth.Consumed {
		byGroup[c.Group]++
		if c.Gone {
			// Replaced by an unclean election: checkConsumedLost.
			gone++
			continue
		}
		if !inLog[locKey{c.Topic, c.Partition, c.Offset}] {
			t.Errorf("truth: group %s processed %s-%d@%d, which is no record in the log", c.Group, c.Topic, c.Partition, c.Offset)
		}
	}
	if len(truth.Consumed) > 0 {
		t.Logf("groups on %s: records processed per group %v, %d of them gone from the log", truth.Scenario, byGroup, gone)
	}
}

func sumValues(m map[groupPartition]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func cmpGroupPartition(a, b groupPartition) int {
	return strings.Compare(fmt.Sprintf("%s\x00%s\x00%010d", a.group, a.topic, a.partition), fmt.Sprintf("%s\x00%s\x00%010d", b.group, b.topic, b.partition))
}

// isSubsequence reports whether sub is seq with some elements left out.
func isSubsequence[T comparable](sub, seq []T) bool {
	i := 0
	for _, x := range seq {
		if i < len(sub) && sub[i] == x {
			i++
		}
	}
	return i == len(sub)
}

func appendNew[T comparable](s []T, x T) []T {
	if slices.Contains(s, x) {
		return s
	}
	return append(s, x)
}
