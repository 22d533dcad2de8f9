package text

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/report"
)

// ScreenRows is how many partition lines scan prints before it rolls them
// up by topic: past a screen, one line per partition hides the few that
// need action.
const ScreenRows = 40

// writePartitions prints scan's partition table: one line per partition
// with batches or findings, or, when they would not fit a screen and not
// all, the partitions that need action one by one and the rest rolled up
// by topic.
func writePartitions(ew *ErrWriter, s *report.ScanSummary, wide, all bool) error {
	var shown []analysis.PartitionSummary
	empty := map[string]int{}
	for _, p := range s.Partitions {
		if p.Batches == 0 && p.Findings == 0 {
			empty[p.Topic]++
			continue
		}
		shown = append(shown, p)
	}
	if all || len(shown) <= ScreenRows {
		if err := partitionTable(ew, s, shown, wide); err != nil {
			return err
		}
		writeEmpty(ew, empty)
		return nil
	}
	lost := map[analysis.PartitionKey]bool{}
	for _, v := range s.Losses {
		lost[analysis.PartitionKey{Input: v.Input, Dir: v.Dir}] = true
	}
	// Notes need no action: a partition with notes alone is rolled up.
	action := slices.DeleteFunc(slices.Clone(shown), func(p analysis.PartitionSummary) bool {
		return p.Findings == p.Notes && !lost[analysis.PartitionKey{Input: p.Input, Dir: p.Dir}]
	})
	if len(action) > 0 {
		fmt.Fprintf(ew, "%d partition%s that %s action:\n", len(action), Plural(int64(len(action)), "", "s"), Plural(int64(len(action)), "needs", "need"))
		if err := partitionTable(ew, s, action, wide); err != nil {
			return err
		}
		fmt.Fprintln(ew)
	}
	fmt.Fprintf(ew, "%d partitions by topic%s:\n", len(s.Partitions), AllHint)
	return topicTable(ew, s.Partitions, wide)
}

// topicTable rolls partitions up by topic: how many, their batches,
// records, codecs, producer ids (summed over the partitions, so a producer
// writing to several counts once in each) and findings.
func topicTable(ew *ErrWriter, parts []analysis.PartitionSummary, wide bool) error {
	type topic struct {
		parts, producers        int
		batches, records, finds int64
		codecs                  []string
	}
	byTopic := map[string]*topic{}
	var names []string
	for _, p := range parts {
		t := byTopic[p.Topic]
		if t == nil {
			t = &topic{}
			byTopic[p.Topic] = t
			names = append(names, p.Topic)
		}
		t.parts++
		t.producers += p.Producers
		t.batches += p.Batches
		t.records += p.Records
		t.finds += p.Findings
		for _, c := range p.Codecs {
			if !slices.Contains(t.codecs, c) {
				t.codecs = append(t.codecs, c)
			}
		}
	}
	sort.Strings(names)
	tt := &Table{Cols: []Column{{Head: "TOPIC", Cut: CutMiddle}, {Head: "PARTITIONS"}, {Head: "BATCHES"}, {Head: "RECORDS"},
		{Head: "CODECS"}, {Head: "PRODUCERS", Drop: 1}, {Head: "FINDINGS"}}}
	for _, n := range names {
		t := byTopic[n]
		slices.Sort(t.codecs)
		codecs := strings.Join(t.codecs, ",")
		if codecs == "" {
			codecs = "-"
		}
		tt.Add(n, Itoa(int64(t.parts)), Itoa(t.batches), Itoa(t.records), codecs, Itoa(int64(t.producers)), Itoa(t.finds))
	}
	return tt.Write(ew, wide)
}

// partitionTable prints one line per partition of parts.
func partitionTable(ew *ErrWriter, s *report.ScanSummary, parts []analysis.PartitionSummary, wide bool) error {
	multi := len(s.Inputs) > 1
	// DIR says something only when a partition dir is not named
	// TOPIC-PART (several inputs, a dir state, a renamed copy); without
	// --wide it is left out otherwise.
	showDir := wide
	for _, p := range s.Partitions {
		showDir = showDir || multi || p.DirState != "" || p.Dir != fmt.Sprintf("%s-%d", p.Topic, p.Partition)
	}
	tt := &Table{Cols: []Column{{Head: "TOPIC", Cut: CutMiddle}, {Head: "PART"}, {Head: "DIR", Cut: CutMiddle}, {Head: "BROKER"},
		{Head: "SEGMENTS", Drop: 3}, {Head: "BYTES", Drop: 4}, {Head: "BATCHES"}, {Head: "RECORDS"}, {Head: "OFFSETS"}, {Head: "TIME (UTC)", Dates: true},
		{Head: "CODECS"}, {Head: "PRODUCERS", Drop: 1}, {Head: "FINDINGS"}}}
	if !showDir {
		tt.Cols = slices.Delete(tt.Cols, 2, 3)
	}
	for _, p := range parts {
		dir := p.Dir
		if multi {
			dir = fmt.Sprintf("#%d:%s", p.Input, dir)
		}
		broker := "-"
		if p.BrokerID != nil {
			broker = strconv.Itoa(int(*p.BrokerID))
		}
		if p.DirState != "" {
			dir += " (" + p.DirState + ")"
		}
		codecs := strings.Join(p.Codecs, ",")
		if codecs == "" {
			codecs = "-"
		}
		row := []string{p.Topic, Itoa(int64(p.Partition)), dir, broker, Itoa(int64(p.Segments)), Itoa(p.Bytes), Itoa(p.Batches), Itoa(p.Records),
			Range(p.First, p.Last), TimeRange(p.FirstTime, p.LastTime, wide), codecs, Itoa(int64(p.Producers)), Itoa(int64(p.Findings))}
		if !showDir {
			row = slices.Delete(row, 2, 3)
		}
		tt.Add(row...)
	}
	// BROKER may go when it says the same on every line.
	brokerCol := slices.IndexFunc(tt.Cols, func(c Column) bool { return c.Head == "BROKER" })
	if same := len(tt.Rows) > 0; brokerCol >= 0 {
		for _, r := range tt.Rows {
			same = same && r[brokerCol] == tt.Rows[0][brokerCol]
		}
		if same {
			tt.Cols[brokerCol].Drop = 2
		}
	}
	return tt.Write(ew, wide)
}

// writeEmpty counts the partitions with no batches on one line: their
// topics by name while they fit TerminalWidth, then how many more.
func writeEmpty(ew *ErrWriter, empty map[string]int) {
	if len(empty) == 0 {
		return
	}
	n, topics := 0, make([]string, 0, len(empty))
	for t, c := range empty {
		n += c
		topics = append(topics, t)
	}
	sort.Strings(topics)
	head := fmt.Sprintf("(%s with no batches: ", Count(int64(n), "more partition"))
	named := len(topics)
	line := func() string {
		s := head + strings.Join(topics[:named], ", ")
		if rest := len(topics) - named; rest > 0 {
			if named > 0 {
				s += ", "
			}
			s += fmt.Sprintf("and %s", Count(int64(rest), "more topic"))
		}
		return s + ")"
	}
	for named > 0 && width(line()) > TerminalWidth {
		named--
	}
	fmt.Fprintln(ew, line())
}
