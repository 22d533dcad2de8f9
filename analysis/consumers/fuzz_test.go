package consumers

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// FuzzCollector feeds __consumer_offsets records of any key and value
// bytes through the collector and the index built from it: no panic, a
// finding for every record that makes no row, and no commit that the
// index may not count (damaged, aborted, open, tombstone) ever counts.
func FuzzCollector(f *testing.F) {
	v3 := be64(str(be32(be64(be16(nil, 3), 1234), 5), "m"), 1700000001000)
	gm := str(be16(nil, 0), "consumer")
	gm = be32(str(str(be32(gm, 4), "range"), "m-1"), 0)
	f.Add(commitKey(1, "billing", "orders", 3), v3, false, uint8(0))
	f.Add(commitKey(0, "g", "t", 0), v3[:9], true, uint8(1))
	f.Add(str(be16(nil, 2), "billing"), gm, false, uint8(2))
	f.Add(str(be16(nil, 5), "g"), []byte(nil), false, uint8(3))
	f.Add([]byte{0xff, 0xff}, []byte{0, 4, 0x80}, false, uint8(0))
	states := []string{"none", "committed", "aborted", "open"}
	f.Fuzz(func(t *testing.T, key, value []byte, damaged bool, state uint8) {
		r := row("__consumer_offsets", 7, 0, key, value)
		r.Damaged, r.TxnState = damaged, states[int(state)%len(states)]
		c := New()
		c.Add([]analysis.PayloadRecordRow{r})
		commits, groups, fs := c.Commits([]string{"b"}), c.Groups([]string{"b"}), c.Findings()
		if len(commits)+len(groups) > 1 {
			t.Fatalf("one record made %d commit and %d group rows", len(commits), len(groups))
		}
		if len(commits)+len(groups) == 0 && len(fs) == 0 && key != nil && len(key) >= 2 && int16(uint16(key[0])<<8|uint16(key[1])) <= 2 {
			t.Fatalf("a commit or group key made no row and no finding")
		}
		for _, a := range fs {
			if a.File == "" || a.Position == nil || a.Offset == nil || a.Message == "" {
				t.Fatalf("finding without its place: %+v", a)
			}
		}
		for _, cr := range commits {
			if cr.Tombstone != (cr.CommittedOffset == nil) || cr.Damaged != damaged {
				t.Fatalf("commit row: %+v", cr)
			}
		}
		x := c.Index(nil)
		counts := len(commits) == 1 && !commits[0].Tombstone && !damaged && (r.TxnState == "none" || r.TxnState == "committed")
		for _, tl := range x.Timelines() {
			if len(tl.Commits) > 0 && !counts {
				t.Fatalf("a commit that may not count is in the timeline: %+v of %+v", tl.Commits, commits)
			}
			for _, cm := range tl.Commits {
				if cm.Offset > 0 {
					if past := x.ConsumedPast(0, "", tl.Topic, tl.Partition, cm.Offset-1); len(past) != 1 {
						t.Fatalf("commit %d not past %d: %+v", cm.Offset, cm.Offset-1, past)
					}
				}
				if past := x.ConsumedPast(0, "", tl.Topic, tl.Partition, cm.Offset); len(past) != 0 {
					t.Fatalf("a commit of %d counts as past %d: %+v", cm.Offset, cm.Offset, past)
				}
				_ = x.Text(0, "", tl.Topic, tl.Partition, 0, cm.Offset)
				_ = x.Impacts([]Flagged{{Topic: tl.Topic, Partition: tl.Partition, First: cm.Offset - 1, Last: cm.Offset}})
			}
		}
	})
}
