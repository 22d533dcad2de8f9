package text

import (
	"fmt"
	"io"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Verify writes verify's report. It leads with what needs action: the
// partition copies that are not intact, then the findings with those that
// follow from another folded under it (notes too unless noNotes), then one line counting the intact copies,
// what the checks read and one summary line. With all, every copy's
// verdict is listed, in partition order, after the findings, and every
// finding that follows from another under it.
func Verify(out io.Writer, inputs []*source.Input, res *pipeline.Result, sum *pipeline.Summary, noNotes, all bool) error {
	clusterVerdicts(out, sum.Clusters, all)
	Crashed(out, sum.Crashed)
	if !all && len(sum.Losses) > 0 {
		fmt.Fprintf(out, "%s that %s action:\n", copies(len(sum.Losses)), Plural(int64(len(sum.Losses)), "needs", "need"))
		for _, v := range sum.Losses {
			Wrap(out, report.DisplayPath(inputs, v.Input, v.Dir)+": "+v.Text, "  ", "      ")
		}
	}
	Findings(out, res.Scan.Anomalies, func(a *analysis.AnomalyRow) string { return report.DisplayPath(inputs, a.Input, a.File) }, noNotes, all)
	switch {
	case all && len(sum.Verdicts) > 0:
		fmt.Fprintln(out, "partitions:")
		for _, v := range sum.Verdicts {
			Wrap(out, report.DisplayPath(inputs, v.Input, v.Dir)+": "+v.Text, "  ", "      ")
		}
	case sum.Intact > 0:
		fmt.Fprintln(out, IntactLine(sum.Verdicts)+AllHint)
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
	var line strings.Builder
	fmt.Fprintf(&line, "verified %s, %s, %s, %s: %s, %s%s%s",
		Count(int64(sum.CheckedFiles), "file"), Count(int64(sum.Segments), "segment"), Count(sum.Batches, "batch"),
		Count(sum.Records, "record"), FindingCounts(sum.Counted, sum.CountedByKind, sum.Followers, sum.FollowersByKind), Count(sum.Notes, "note"),
		ByKind(sum.NotesByKind), status)
	ew := &ErrWriter{W: out}
	Wrap(ew, line.String(), "", "    ")
	return ew.Err
}

// AllHint follows the count of intact partition copies: how to have
// them listed, in the words of the command line (" (--all lists them)").
var AllHint = ""

// IntactLine counts the intact partition copies of verdicts, and the
// empty ones among them: "158 partition copies intact, 147 of them empty".
// A -delete, -future or -stray dir lost nothing but is no live copy: it
// is counted apart, by its state ("; 1 deleted, awaiting removal").
func IntactLine(verdicts []analysis.Verdict) string {
	intact, empty := 0, 0
	transit := map[analysis.CopyState]int{}
	for _, v := range verdicts {
		switch {
		case !v.Intact:
		case v.State.RenamedDir():
			transit[v.State]++
		default:
			intact++
			if v.FirstOffset < 0 {
				empty++
			}
		}
	}
	line := copies(intact) + " intact"
	switch {
	case empty == 0:
	case empty == intact && intact == 1:
		line += ", empty"
	case empty == intact:
		line += ", all empty"
	default:
		line += fmt.Sprintf(", %d of them empty", empty)
	}
	for _, st := range []struct {
		s    analysis.CopyState
		what string
	}{{analysis.CopyDeleting, "deleted, awaiting removal"}, {analysis.CopyFuture, "future, being moved"}, {analysis.CopyStray, "stray"}} {
		if n := transit[st.s]; n > 0 {
			line += fmt.Sprintf("; %d %s", n, st.what)
		}
	}
	return line
}

// copies is "1 partition copy" or "n partition copies".
func copies(n int) string {
	return fmt.Sprintf("%d partition cop%s", n, Plural(int64(n), "y", "ies"))
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
		return copies(lost) + " lost offsets"
	case lost == 0:
		return fmt.Sprintf("%s unread: %s", copies(unread), UnreadWhy(unread))
	}
	return fmt.Sprintf("%s lost offsets, %d unread: %s", copies(lost), unread, UnreadWhy(unread))
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
		// What names the kind in the plural ("segments", "index files").
		what := c.What
		if c.Files == 1 {
			what = strings.TrimSuffix(what, "s")
		}
		part := fmt.Sprintf("%d %s", c.Files, what)
		if c.Partial > 0 {
			part += fmt.Sprintf(" (%d read only in part: the input failed inside it)", c.Partial)
			if c.Partial > 1 {
				part = strings.Replace(part, "inside it)", "inside them)", 1)
			}
		}
		parts = append(parts, part)
	}
	Wrap(out, "checked: "+strings.Join(parts, ", "), "", "    ")
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
	Wrap(out, fmt.Sprintf("skipped %s that %s: %s%s", Count(int64(len(sk)), "file"), Plural(int64(len(sk)), "is not a Kafka file", "are not Kafka files"),
		strings.Join(names, ", "), more), "", "    ")
}

// clusterVerdicts prints, when the inputs hold several copies of a
// partition, the verdict across them first: lost cluster-wide, or intact
// with the copies that are behind, damaged or diverged. A partition whose
// every copy is intact is counted, not listed, unless all.
func clusterVerdicts(out io.Writer, cvs []analysis.ClusterVerdict, all bool) {
	if len(cvs) == 0 {
		return
	}
	var act []analysis.ClusterVerdict
	for _, cv := range cvs {
		if all || cv.NeedsAction() {
			act = append(act, cv)
		}
	}
	if len(act) > 0 {
		fmt.Fprintln(out, "partitions across brokers:")
		for _, cv := range act {
			Wrap(out, fmt.Sprintf("%s-%d: %s", cv.Topic, cv.Partition, cv.Text), "  ", "      ")
		}
	}
	if rest := len(cvs) - len(act); rest > 0 {
		fmt.Fprintf(out, "%d partition%s held by several brokers intact on every copy%s\n", rest, Plural(int64(rest), "", "s"), AllHint)
	}
}

// Crashed prints the one line of the copies not shut down cleanly, if any.
func Crashed(w io.Writer, c analysis.CrashedCopies) {
	if l := c.Line(); l != "" {
		Wrap(w, l, "", "    ")
	}
}
