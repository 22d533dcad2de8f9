package text

import (
	"fmt"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// FindingLine is the one line a finding prints as in every text output
// (verify's report, dump's and records' error stream): the file as the
// output names it, then "severity kind at byte N (offset O): message",
// so that a finding reads the same whichever command found it. Printers
// wrap it (Wrap) to fit TerminalWidth.
func FindingLine(file string, a *analysis.AnomalyRow) string {
	return file + ": " + finding.Text(a)
}

// FollowersLine says what follows from a cause, counted by kind:
// "+2 index-mismatch, +1 snapshot-ahead that follow from it"; "" for a
// finding nothing follows from.
func FollowersLine(c *analysis.FindingCause) string {
	n := c.Total()
	if n == 0 {
		return ""
	}
	return c.FollowerText() + " " + Plural(n, "that follows", "that follow") + " from it"
}

// Findings lists findings with each follower folded under the finding it
// follows from (caused_by): the cause on one line, then one line counting
// its followers by kind, or, with all, each of them on a line of its own.
// Notes are left out with noNotes; path names a finding's file. It
// writes nothing for no findings.
func Findings(out io.Writer, rows []analysis.AnomalyRow, path func(*analysis.AnomalyRow) string, noNotes, all bool) {
	kept := rows
	if noNotes {
		kept = make([]analysis.AnomalyRow, 0, len(rows))
		for i := range rows {
			if finding.Counts(rows[i].Severity) {
				kept = append(kept, rows[i])
			}
		}
	}
	if len(kept) == 0 {
		return
	}
	fmt.Fprintln(out, "findings:")
	for _, c := range analysis.FoldFindings(kept) {
		Wrap(out, FindingLine(path(&c.Finding), &c.Finding), "  ", "      ")
		if len(c.Rows) == 0 {
			continue
		}
		if !all {
			Wrap(out, FollowersLine(&c)+AllHint, "    ", "        ")
			continue
		}
		for i := range c.Rows {
			Wrap(out, "+ "+FindingLine(path(&c.Rows[i]), &c.Rows[i]), "    ", "        ")
		}
	}
}

// FindingCounts is the summary line's count of findings: the causes by
// kind first, then those that follow from them, so that the headline
// says what it includes: "3 findings (3 truncated-batch) and 29 that
// follow from them (9 index-mismatch, ...)".
func FindingCounts(counted int64, byKind map[finding.Kind]int64, followers int64, followersByKind map[finding.Kind]int64) string {
	if followers == 0 {
		return Count(counted, "finding") + ByKind(byKind)
	}
	causes := make(map[finding.Kind]int64, len(byKind))
	for k, n := range byKind {
		if n -= followersByKind[k]; n > 0 {
			causes[k] = n
		}
	}
	return fmt.Sprintf("%s%s and %d %s from %s%s", Count(counted-followers, "finding"), ByKind(causes),
		followers, Plural(followers, "that follows", "that follow"), Plural(counted-followers, "it", "them"), ByKind(followersByKind))
}
