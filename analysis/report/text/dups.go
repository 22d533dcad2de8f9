package text

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// RunsHint follows the count of runs not shown: how to have them all, in
// the words of the command line ("; --limit 0 shows all, --json every
// group").
var RunsHint = ""

// Dups prints the summary, its tables by class and by topic, and the
// runs of resends and retries, the largest first (at most limit, 0: all),
// and counts the runs of repeats; with all, the runs of every class. idx
// (nil when unknown) says under each run which consumer groups committed
// past its copies.
func Dups(ctx context.Context, w io.Writer, s *pipeline.DupSummary, rb *dups.RunBuilder, idx pipeline.Consumed, limit, inputs int,
	wide, all bool) error {
	ew := &ErrWriter{W: w}
	fmt.Fprintf(ew, "%s in %s: %s, %s in %s\n", Count(s.Records, "record"), Count(int64(inputs), "input"), Count(s.Groups, "duplicate group"),
		Count(s.Duplicates, "later copy"), Count(int64(s.Runs), "run"))
	Crashed(ew, s.CrashedCopies)
	var strong, possible int64
	for _, c := range s.ByClass {
		strong, possible = strong+c.Strong, possible+c.Possible
	}
	if strong+possible > 0 {
		Wrap(ew, fmt.Sprintf("resends and retries: %d with strong evidence, %d possible (a new session repeated content, but the bytes do not show a resend)",
			strong, possible), "", "    ")
	}
	if s.Findings > 0 {
		Wrap(ew, fmt.Sprintf("note: the inputs hold %s of severity error or warning; "+
			"records of damaged batches are marked \"damaged\" (ksleuth verify PATH for details)", Count(s.Findings, "finding")), "", "    ")
	}
	if err := writeDupTables(ew, s, wide); err != nil {
		return err
	}
	if s.Runs > 0 {
		if err := writeRuns(ctx, ew, s, rb, idx, limit, all); err != nil {
			return err
		}
	}
	if s.SpillFiles > 0 {
		fmt.Fprintf(ew, "\n(spilled %d bytes to %s, since removed)\n", s.SpillBytes, Count(int64(s.SpillFiles), "temporary file"))
	}
	return ew.Err
}

// writeRuns prints the runs, the largest first: of resends and retries
// (every class with all), at most limit of them (0: all), each with the
// groups that consumed it; then it counts those not printed.
func writeRuns(ctx context.Context, ew *ErrWriter, s *pipeline.DupSummary, rb *dups.RunBuilder, idx pipeline.Consumed, limit int, all bool) error {
	fmt.Fprintln(ew)
	if all {
		fmt.Fprintf(ew, "%s, the largest first:\n", Count(int64(s.Runs), "run"))
	} else {
		fmt.Fprintln(ew, "runs of resends and retries, the largest first:")
	}
	shown, more, repeats := 0, 0, 0
	err := rb.Each(ctx, 0, func(r *dups.Run) error {
		switch {
		case !all && r.Class == dups.ClassRepeat:
			repeats++
			return nil
		case limit > 0 && shown >= limit:
			more++
			return nil
		}
		shown++
		Wrap(ew, r.String(), "", "    ")
		if c := idx.Text(r.Input, r.Dir, r.Topic, r.Partition, r.First, r.Last); c != "" {
			Wrap(ew, c, "  ", "      ")
		}
		return ew.Err
	})
	if err != nil {
		return err
	}
	if shown == 0 {
		fmt.Fprintln(ew, "  none")
	}
	if more > 0 {
		fmt.Fprintf(ew, "... %s%s\n", Count(int64(more), "more run"), RunsHint)
	}
	if repeats > 0 {
		var copies int64
		for _, c := range s.ByClass {
			if c.Class == dups.ClassRepeat {
				copies = c.Records
			}
		}
		fmt.Fprintf(ew, "%s of repeats (%s; content written again, no resend) not listed%s\n", Count(int64(repeats), "run"),
			Count(copies, "later copy"), AllHint)
	}
	return ew.Err
}

// writeDupTables prints the later copies by class and by topic. A group
// counts once, under its most telling copy: the groups add up to the
// header's, the records to its later copies.
func writeDupTables(ew *ErrWriter, s *pipeline.DupSummary, wide bool) error {
	fmt.Fprintln(ew)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CLASS\tGROUPS\tRECORDS\tSTRONG\tPOSSIBLE\t")
	var total pipeline.ClassTotal
	for _, c := range s.ByClass {
		if c.Class == dups.ClassRepeat {
			fmt.Fprintf(tw, "%s\t%d\t%d\t-\t-\t\n", c.Class, c.Groups, c.Records)
		} else {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", c.Class, c.Groups, c.Records, c.Strong, c.Possible)
		}
		total.Groups, total.Records, total.Strong, total.Possible = total.Groups+c.Groups, total.Records+c.Records, total.Strong+c.Strong, total.Possible+c.Possible
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t\n", total.Groups, total.Records, total.Strong, total.Possible)
	tw.Flush()
	if len(s.ByTopic) > 0 {
		fmt.Fprintln(ew)
		tt := &Table{Indent: "  "}
		heads := append(append([]string{"TOPIC", "RECORDS"}, pipeline.DupClasses...), "STRONG", "POSSIBLE")
		for _, h := range heads {
			tt.Cols = append(tt.Cols, Column{Head: h, Right: true})
		}
		tt.Cols[0].Cut = CutMiddle
		for i, c := range pipeline.DupClasses {
			// A class no topic has is the least needed column: it goes
			// first when names whole would not fit (Table.fit).
			if !anyOfClass(s.ByTopic, c) {
				tt.Cols[2+i].Drop = len(pipeline.DupClasses) - i
			}
		}
		for _, t := range s.ByTopic {
			cells := []string{t.Topic, Itoa(t.Records)}
			for _, c := range pipeline.DupClasses {
				cells = append(cells, Itoa(t.ByClass[c]))
			}
			tt.Add(append(cells, Itoa(t.Strong), Itoa(t.Possible))...)
		}
		if err := tt.Write(ew, wide); err != nil {
			return err
		}
	}
	return ew.Err
}

// anyOfClass reports whether a topic has records of class c.
func anyOfClass(topics []pipeline.TopicTotal, c string) bool {
	for _, t := range topics {
		if t.ByClass[c] > 0 {
			return true
		}
	}
	return false
}
