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

// Dups prints the summary and the runs; idx (nil when unknown)
// says under each run which consumer groups committed past its copies.
func Dups(ctx context.Context, w io.Writer, s *pipeline.DupSummary, rb *dups.RunBuilder, idx pipeline.Consumed, limit, inputs int, wide bool) error {
	ew := &ErrWriter{W: w}
	fmt.Fprintf(ew, "%d records in %d input(s): %d duplicate group(s), %d later cop%s in %d run(s)\n",
		s.Records, inputs, s.Groups, s.Duplicates, Plural(s.Duplicates, "y", "ies"), s.Runs)
	Crashed(ew, s.CrashedCopies)
	var strong, possible int64
	for _, c := range s.ByClass {
		strong, possible = strong+c.Strong, possible+c.Possible
	}
	if strong+possible > 0 {
		fmt.Fprintf(ew, "resends and retries: %d with strong evidence, %d possible (a new session repeated content, but the bytes do not show a resend)\n",
			strong, possible)
	}
	if s.Findings > 0 {
		fmt.Fprintf(ew, "note: the inputs hold %d finding(s) of severity error or warning; "+
			"records of damaged batches are marked \"damaged\" (ksleuth verify PATH for details)\n", s.Findings)
	}
	if s.Runs > 0 {
		fmt.Fprintln(ew)
		n := 0
		err := rb.Each(ctx, limit, func(r *dups.Run) error {
			n++
			fmt.Fprintln(ew, r.String())
			if c := idx.Text(r.Input, r.Dir, r.Topic, r.Partition, r.First, r.Last); c != "" {
				fmt.Fprintln(ew, "  "+c)
			}
			return ew.Err
		})
		if err != nil {
			return err
		}
		if n < s.Runs {
			fmt.Fprintf(ew, "... %d more run(s)%s\n", s.Runs-n, RunsHint)
		}
	}
	fmt.Fprintln(ew)
	// A group counts once, under its most telling copy: the groups add
	// up to the header's, the records to its later copies.
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
	if s.SpillFiles > 0 {
		fmt.Fprintf(ew, "\n(spilled %d bytes to %d temporary file(s), since removed)\n", s.SpillBytes, s.SpillFiles)
	}
	return ew.Err
}
