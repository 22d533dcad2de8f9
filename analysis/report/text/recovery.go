package text

import (
	"fmt"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/report"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Recovery prints the repair plan: per partition dir with work to do (every
// dir with all) how the broker starts, each step with the rule it follows,
// and the state after; then one line counting the dirs left as they are.
func Recovery(out io.Writer, inputs []*source.Input, ps []analysis.RecoveryPartition, all bool) error {
	changing := 0
	for _, p := range ps {
		if len(p.Actions) > 0 {
			changing++
		}
	}
	fmt.Fprintf(out, "recovery plan (read-only prediction of the broker's log loading): %d partition dir%s, %d with work to do\n", len(ps),
		Plural(int64(len(ps)), "", "s"), changing)
	for _, p := range ps {
		if !all && len(p.Actions) == 0 {
			continue
		}
		start := "unclean start (no .kafka_cleanshutdown in the log dir)"
		if p.Clean {
			start = "clean start (.kafka_cleanshutdown present: no recovery past the sanity checks)"
		}
		fmt.Fprintln(out)
		Wrap(out, fmt.Sprintf("%s: %s, recovery point %d, log start checkpoint %d", report.DisplayPath(inputs, p.Input, p.Dir), start,
			p.RecoveryPoint, p.LogStartCheckpoint), "", "    ")
		if len(p.Actions) == 0 {
			fmt.Fprintln(out, "  nothing to do")
		}
		for _, a := range p.Actions {
			what := a.Action
			if a.Action == analysis.ActTruncate {
				what = fmt.Sprintf("truncate %d bytes, log end %d", a.Bytes, a.Offset)
			}
			Wrap(out, what+" "+report.DisplayPath(inputs, p.Input, a.File), "  ", "      ")
			Wrap(out, "because "+a.Rule, "    ", "        ")
		}
		Wrap(out, fmt.Sprintf("after: log start %d, log end %d, high watermark %d, segments %v, snapshots %v",
			p.LogStartOffset, p.LogEndOffset, p.HighWatermark, p.Segments, p.Snapshots), "  ", "      ")
	}
	if n := len(ps) - changing; !all && n > 0 {
		_, err := fmt.Fprintf(out, "\n%d partition dir%s with nothing to do%s\n", n, Plural(int64(n), "", "s"), AllHint)
		return err
	}
	return nil
}
