package text

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/report"
)

// Scan prints scan's summary: a line per partition (rolled up by topic
// when they would not fit a screen, unless all), the losses, what was
// checked, the findings by kind and the tables written.
func Scan(w io.Writer, s *report.ScanSummary, wide, all bool) error {
	ew := &ErrWriter{W: w}
	fmt.Fprintf(ew, "scanned %s: %s, %d bytes, %s, %s%s in %.2fs (jobs %d)\n\n", Count(int64(len(s.Inputs)), "input"), Count(int64(s.Files), "file"),
		s.Bytes, Count(s.Batches, "batch"), Count(s.Records, "record"), RecordsElsewhere(s.RecordsElsewhere), s.Seconds, s.Jobs)
	if l := s.CrashedCopies.Line(); l != "" {
		fmt.Fprintf(ew, "%s\n\n", l)
	}
	// Several brokers' copies: first whether any offset is lost
	// cluster-wide, in verify's words.
	if len(s.Clusters) > 0 {
		clusterVerdicts(ew, s.Clusters, all)
		fmt.Fprintln(ew)
	}
	if err := writePartitions(ew, s, wide, all); err != nil {
		return err
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
			Wrap(ew, copyName(s, &v)+": "+v.Text, "  ", "      ")
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
		fmt.Fprintf(ew, "findings: %s, %s; %s\n", Count(s.Errors, "error"), Count(s.Warnings, "warning"), Count(s.Notes, "note"))
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

// copyName names a partition copy in scan's losses: by its dir in the
// input, or, when several inputs may hold copies of one partition, by
// its path as verify names it (the input, then the dir in it).
func copyName(s *report.ScanSummary, v *analysis.Verdict) string {
	if len(s.Inputs) < 2 {
		return v.Dir
	}
	for _, in := range s.Inputs {
		if in.Index != int(v.Input) {
			continue
		}
		switch in.Kind {
		case "dir":
			return path.Join(filepath.ToSlash(in.Path), v.Dir)
		case "archive":
			return in.Path + ":" + v.Dir
		}
		return in.Path
	}
	return v.Dir
}

// RecordsElsewhere says what a record count includes besides the rows of
// the records table: the records of KRaft snapshots and of segments in
// transit, which repeat or precede a live log's.
func RecordsElsewhere(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of them in KRaft snapshots or segments in transit, not rows of the records table)", n)
}
