package text

import (
	"fmt"
	"io"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// namesShown is how many partitions an event line names before counting
// the others.
const namesShown = 6

// ClusterEvents prints the cluster's history read from the metadata log
// and the broker logs: the events that bear on loss (unclean elections,
// leaders from the eligible leader replicas, truncations), then the
// others counted by kind; with all, every event in time order. Events of
// one kind, time and details that differ only by partition (a broker
// restart elects a leader for each) make one line naming the partitions.
func ClusterEvents(w io.Writer, events []analysis.ClusterEventRow, all bool) error {
	if len(events) == 0 {
		return nil
	}
	ew := &ErrWriter{W: w}
	var lead []analysis.ClusterEventRow
	rest := map[string]int64{}
	for _, e := range events {
		if all || pipeline.EventBearsOnLoss(&e) {
			lead = append(lead, e)
		} else {
			rest[e.Kind]++
		}
	}
	fmt.Fprintln(ew)
	switch {
	case all:
		fmt.Fprintf(ew, "%s (metadata log and broker logs):\n", Count(int64(len(events)), "cluster event"))
	case len(lead) == 0:
		fmt.Fprintln(ew, "no cluster event bears on loss (unclean elections, leaders from the ELR, truncations)")
	default:
		fmt.Fprintf(ew, "%s that bear%s on loss:\n", Count(int64(len(lead)), "cluster event"), Plural(int64(len(lead)), "s", ""))
	}
	for _, g := range groupEvents(lead) {
		writeEventGroup(ew, g)
	}
	if n := int64(len(events) - len(lead)); n > 0 {
		Wrap(ew, Count(n, "other cluster event")+ByKind(rest)+AllHint, "", "    ")
	}
	return ew.Err
}

// eventGroup is a run of events alike but for their partition.
type eventGroup struct {
	first, last analysis.ClusterEventRow
	what        string   // the details without the partition
	parts       []string // the partitions, in the events' order
}

// groupEvents folds consecutive events of one time, kind, source file and
// details (the partition left out) into one group.
func groupEvents(events []analysis.ClusterEventRow) []eventGroup {
	var out []eventGroup
	for _, e := range events {
		what, part := e.Details, ""
		if e.Topic != nil && e.Partition != nil && *e.Partition >= 0 {
			part = fmt.Sprintf("%s-%d", *e.Topic, *e.Partition)
			what = strings.TrimPrefix(what, part+": ")
		}
		if n := len(out); n > 0 {
			g := &out[n-1]
			if part != "" && len(g.parts) > 0 && g.what == what && g.first.Kind == e.Kind && g.first.File == e.File &&
				Time(g.first.Time) == Time(e.Time) {
				g.last = e
				g.parts = append(g.parts, part)
				continue
			}
		}
		g := eventGroup{first: e, last: e, what: what}
		if part != "" {
			g.parts = []string{part}
		}
		out = append(out, g)
	}
	return out
}

// writeEventGroup prints one group: its time, kind, partitions and
// details, and where the log holds it.
func writeEventGroup(w io.Writer, g eventGroup) {
	where := g.first.File
	switch {
	case g.first.Offset != nil && g.last.Offset != nil && *g.last.Offset != *g.first.Offset:
		where += fmt.Sprintf(" offsets %d..%d", *g.first.Offset, *g.last.Offset)
	case g.first.Offset != nil:
		where += fmt.Sprintf(" offset %d", *g.first.Offset)
	case g.first.Line != nil:
		where += fmt.Sprintf(" line %d", *g.first.Line)
	}
	parts := ":"
	switch n := len(g.parts); {
	case n == 1:
		parts = " " + g.parts[0] + ":"
	case n > namesShown:
		parts = fmt.Sprintf(" %d partitions (%s and %d more):", n, strings.Join(g.parts[:namesShown], ", "), n-namesShown)
	case n > 1:
		parts = fmt.Sprintf(" %d partitions (%s):", n, strings.Join(g.parts, ", "))
	}
	Wrap(w, fmt.Sprintf("%s %s%s %s (%s)", Time(g.first.Time), g.first.Kind, parts, g.what, where), "  ", "      ")
}
