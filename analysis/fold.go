package analysis

import (
	"fmt"
	"slices"
	"strings"
)

// FindingRef names a finding for the caused_by column: its kind, file and
// byte position (or line), unique among the findings of one input.
func FindingRef(a *AnomalyRow) string {
	ref := string(a.Kind) + " " + a.File
	switch {
	case a.Position != nil:
		ref += fmt.Sprintf("@%d", *a.Position)
	case a.Line != nil:
		ref += fmt.Sprintf(":%d", *a.Line)
	}
	return ref
}

// FindingCause is a finding that follows from no other, with the findings
// that follow from it, counted by kind.
type FindingCause struct {
	Finding AnomalyRow
	// Followers counts the findings that name it in caused_by, by kind;
	// each counts as many as it stands for (AnomalyRow.Stands).
	Followers map[FindingKind]int64
	// Rows are those findings, in the order given, for a listing that
	// shows each one under its cause.
	Rows []AnomalyRow
}

// Total is the number of findings that follow from the cause.
func (c *FindingCause) Total() int64 {
	var n int64
	for _, k := range c.Followers {
		n += k
	}
	return n
}

// FollowerText is "+29 index-mismatch, +2 snapshot-ahead", by kind name;
// empty without followers.
func (c *FindingCause) FollowerText() string {
	kinds := make([]FindingKind, 0, len(c.Followers))
	for k := range c.Followers {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("+%d %s", c.Followers[k], k)
	}
	return strings.Join(parts, ", ")
}

// FoldFindings folds findings under their causes: one FindingCause per
// finding that follows from none in the list (in the order given), with
// the counts of those that follow from it. A follower whose cause is not
// in the list stands as a cause of its own, so no finding is lost.
func FoldFindings(rows []AnomalyRow) []FindingCause {
	type key struct {
		input int32
		ref   string
	}
	at := map[key]int{}
	var out []FindingCause
	for i := range rows {
		if rows[i].CausedBy == nil {
			at[key{rows[i].Input, FindingRef(&rows[i])}] = len(out)
			out = append(out, FindingCause{Finding: rows[i], Followers: map[FindingKind]int64{}})
		}
	}
	for i := range rows {
		a := &rows[i]
		if a.CausedBy == nil {
			continue
		}
		if j, ok := at[key{a.Input, *a.CausedBy}]; ok {
			out[j].Followers[a.Kind] += a.Stands()
			out[j].Rows = append(out[j].Rows, *a)
			continue
		}
		out = append(out, FindingCause{Finding: *a, Followers: map[FindingKind]int64{}})
	}
	return out
}
