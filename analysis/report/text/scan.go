package text

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ksleuth/ksleuth/analysis/report"
)

// Scan prints scan's summary: a line per partition, the losses, what was
// checked, the findings by kind and the tables written.
func Scan(w io.Writer, s *report.ScanSummary, wide bool) error {
	ew := &ErrWriter{W: w}
	fmt.Fprintf(ew, "scanned %d input(s): %d files, %d bytes, %d batches, %d records in %.2fs (jobs %d)\n\n",
		len(s.Inputs), s.Files, s.Bytes, s.Batches, s.Records, s.Seconds, s.Jobs)
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
	empty := map[string]int{}
	for _, p := range s.Partitions {
		if p.Batches == 0 && p.Findings == 0 {
			empty[p.Topic]++
			continue
		}
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
	if err := tt.Write(ew, wide); err != nil {
		return err
	}
	if len(empty) > 0 {
		n, topics := 0, make([]string, 0, len(empty))
		for t, c := range empty {
			n += c
			topics = append(topics, t)
		}
		sort.Strings(topics)
		if len(topics) > 8 {
			topics = append(topics[:8], "...")
		}
		fmt.Fprintf(ew, "(%d more partition(s) with no batches: %s)\n", n, strings.Join(topics, ", "))
	}
	fmt.Fprintln(ew)
	if len(s.Losses) == 0 {
		fmt.Fprintf(ew, "losses: none; %d partition cop%s intact\n", s.Intact, Plural(int64(s.Intact), "y", "ies"))
	} else {
		// Copies only unread are said apart: the archive ended before
		// their data, which says nothing of whether the broker lost it.
		lost := len(s.Losses) - s.Unread
		head := fmt.Sprintf("losses in %d partition cop%s", lost, Plural(int64(lost), "y", "ies"))
		switch {
		case s.Unread > 0 && lost == 0:
			head = fmt.Sprintf("unread in %d partition cop%s: %s", s.Unread, Plural(int64(s.Unread), "y", "ies"), UnreadWhy(s.Unread))
		case s.Unread > 0:
			head += fmt.Sprintf(", and %d unread: %s", s.Unread, UnreadWhy(s.Unread))
		}
		fmt.Fprintf(ew, "%s (%d intact; gaps.parquet has every range):\n", head, s.Intact)
		for _, v := range s.Losses {
			fmt.Fprintf(ew, "  %s: %s\n", v.Dir, v.Text)
		}
	}
	Checked(ew, s.Checked)
	if s.Skipped > 0 {
		more := ""
		if s.Skipped > len(s.SkippedFiles) {
			more = ", …"
		}
		fmt.Fprintf(ew, "skipped %d file(s) that are not Kafka files: %s%s\n", s.Skipped, strings.Join(s.SkippedFiles, ", "), more)
	}
	if len(s.Findings) == 0 {
		fmt.Fprintln(ew, "findings: none")
	} else {
		fmt.Fprintf(ew, "findings: %d error(s), %d warning(s); %d notes\n", s.Errors, s.Warnings, s.Notes)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, f := range s.Findings {
			fmt.Fprintf(tw, "  %s\t%s\t%d\n", f.Severity, f.Kind, f.Count)
		}
		tw.Flush()
	}
	if s.Unreadable > 0 {
		fmt.Fprintf(ew, "unreadable files: %d\n", s.Unreadable)
	}
	open := ""
	if s.OpenTransactions > 0 {
		open = fmt.Sprintf(", %d with a transaction still open at the end of the input (ksleuth producers)", s.OpenTransactions)
	}
	fmt.Fprintf(ew, "producer sessions: %d%s; duplicates: %d group(s), %d later cop%s (ksleuth dups for the report)\n",
		s.ProducerSessions, open, s.DuplicateGroups, s.Duplicates, Plural(s.Duplicates, "y", "ies"))
	if n := len(s.Replicas); n > 0 {
		var parts []string
		for _, v := range []string{"reference", "in-sync", "damaged", "lagging", "diverged", "ahead"} {
			if s.Replicas[v] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", s.Replicas[v], v))
			}
		}
		fmt.Fprintf(ew, "partition copies on several brokers: %s (ksleuth replicas for the comparison)\n", strings.Join(parts, ", "))
	}
	if s.ClusterEvents > 0 || s.BrokerLogs.Files > 0 {
		fmt.Fprintf(ew, "cluster events: %d", s.ClusterEvents)
		if b := s.BrokerLogs; b.Files > 0 {
			fmt.Fprintf(ew, " (%d from %d broker log file(s), %d lines, %d unparsed)", b.Events, b.Files, b.Lines, b.Unparsed)
		}
		fmt.Fprintln(ew)
	}
	fmt.Fprintf(ew, "\ntables in %s:\n", s.Out)
	tables := &Table{Cols: []Column{{Cut: CutMiddle}, {}}, Indent: "  ", NoHead: true}
	for _, t := range s.Tables {
		tables.Add(t.Path, fmt.Sprintf("%d rows", t.Rows))
	}
	if err := tables.Write(ew, wide); err != nil {
		return err
	}
	return ew.Err
}
