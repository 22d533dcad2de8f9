package text

import (
	"fmt"
	"io"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Verify writes verify's report: the findings grouped by file (notes too
// unless noNotes), a verdict per partition copy, what the checks read and
// one summary line.
func Verify(out io.Writer, inputs []*source.Input, res *pipeline.Result, sum *pipeline.Summary, noNotes bool) error {
	last := ""
	for i := range res.Scan.Anomalies {
		a := &res.Scan.Anomalies[i]
		if noNotes && !finding.Counts(a.Severity) {
			continue
		}
		if p := report.DisplayPath(inputs, a.Input, a.File); p != last {
			fmt.Fprintf(out, "%s\n", p)
			last = p
		}
		fmt.Fprintf(out, "  %s\n", finding.Text(a))
	}
	if len(sum.Verdicts) > 0 {
		fmt.Fprintln(out, "partitions:")
		for _, v := range sum.Verdicts {
			fmt.Fprintf(out, "  %s: %s\n", report.DisplayPath(inputs, v.Input, v.Dir), v.Text)
		}
	}
	Checked(out, sum.Checked)
	writeSkipped(out, inputs, sum.Skipped)
	status := ""
	if s := LossStatus(sum); s != "" {
		status = "; " + s
	}
	if sum.Incomplete {
		status += " (INCOMPLETE: some input could not be read in full)"
	}
	// Segments are the live segments read, as the "checked:" line counts
	// them: also a segment given on its own, outside a partition dir.
	_, err := fmt.Fprintf(out, "verified %d files, %d segments, %d batches, %d records: %d findings%s, %d notes%s%s\n",
		sum.CheckedFiles, sum.Segments, sum.Batches, sum.Records, sum.Counted, ByKind(sum.CountedByKind), sum.Notes, ByKind(sum.NotesByKind), status)
	return err
}

// LossStatus says how many partition copies lost offsets and, apart, how
// many are only unread (an archive that ended before their data says
// nothing of whether the broker lost them); "" for none.
func LossStatus(sum *pipeline.Summary) string {
	unread := sum.UnreadCopies
	lost := sum.LossCopies - unread
	switch {
	case unread == 0 && lost == 0:
		return ""
	case unread == 0:
		return fmt.Sprintf("%d partition copy(ies) lost offsets", lost)
	case lost == 0:
		return fmt.Sprintf("%d partition copy(ies) unread: %s", unread, UnreadWhy(unread))
	}
	return fmt.Sprintf("%d partition copy(ies) lost offsets, %d unread: %s", lost, unread, UnreadWhy(unread))
}

// UnreadWhy says why n partition copies are unread.
func UnreadWhy(n int) string {
	return "the archive ended before " + Plural(int64(n), "its", "their") + " data"
}

// Checked says what the checks read (pipeline.Checked), so that no
// check is claimed that had nothing to run on, and which files were read
// only in part.
func Checked(out io.Writer, kinds []analysis.CheckedKind) {
	var parts []string
	for _, c := range kinds {
		if c.What == analysis.CheckedOther {
			continue
		}
		part := fmt.Sprintf("%d %s", c.Files, c.What)
		if c.Partial > 0 {
			part += fmt.Sprintf(" (%d read only in part: the input failed inside it)", c.Partial)
			if c.Partial > 1 {
				part = strings.Replace(part, "inside it)", "inside them)", 1)
			}
		}
		parts = append(parts, part)
	}
	fmt.Fprintf(out, "checked: %s\n", strings.Join(parts, ", "))
}

// writeSkipped lists the files that are not Kafka files, a few by name.
func writeSkipped(out io.Writer, inputs []*source.Input, sk []analysis.SkippedFile) {
	if len(sk) == 0 {
		return
	}
	names := make([]string, 0, 5)
	for _, s := range sk[:min(len(sk), 5)] {
		names = append(names, report.DisplayPath(inputs, s.Input, s.Path))
	}
	more := ""
	if len(sk) > 5 {
		more = fmt.Sprintf(", … (%d in all)", len(sk))
	}
	fmt.Fprintf(out, "skipped %d file(s) that are not Kafka files: %s%s\n", len(sk), strings.Join(names, ", "), more)
}
