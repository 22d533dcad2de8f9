package text

import (
	"fmt"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
)

// OpenTxns prints the transactions open at the end of the input (with
// the last stable offsets of their partitions), before the sessions: they
// are what keeps read_committed consumers stuck.
func OpenTxns(w io.Writer, open []analysis.OpenTxn, parts []analysis.PartitionLSO, multi bool) error {
	if len(open) == 0 {
		return nil
	}
	ew := &ErrWriter{W: w}
	hanging := 0
	for _, h := range open {
		if h.CoordinatorState != analysis.CoordinatorOngoing {
			hanging++
		}
	}
	fmt.Fprintf(ew, "OPEN TRANSACTIONS: %d at the end of the input, %d not known to be in progress (hanging or unknown)\n", len(open), hanging)
	for _, p := range parts {
		if p.OpenTransactions == 0 {
			continue
		}
		where := fmt.Sprintf("%s-%d", p.Topic, p.Partition)
		if multi {
			where += fmt.Sprintf(" (#%d %s)", p.Input, p.Source)
		}
		hw := "unknown"
		if p.HighWatermark >= 0 {
			hw = fmt.Sprint(p.HighWatermark)
		}
		fmt.Fprintf(ew, "\n%s: last stable offset %d (%s); high watermark %s, log end %d: %d offsets invisible to read_committed consumers\n",
			where, p.LastStableOffset, p.LSOFrom, hw, p.LogEndOffset, p.Invisible)
		for _, h := range open {
			if h.Input != p.Input || h.Dir != p.Dir {
				continue
			}
			open := "unknown"
			if h.OpenForMillis != nil {
				open = fmt.Sprintf("%d ms", *h.OpenForMillis)
			}
			tid := "-"
			if h.TransactionalID != "" {
				tid = h.TransactionalID
			}
			holds := ""
			if h.HoldsLSO {
				holds = ", holds the LSO"
			}
			fmt.Fprintf(ew, "  %s producer %d epoch %d, transactional id %s: offsets %d..%d, %d records, open %s at the last write%s\n",
				h.CoordinatorState, h.ProducerID, h.ProducerEpoch, tid, h.FirstOffset, h.LastDataOffset, h.Records, open, holds)
			fmt.Fprintf(ew, "    why: %s\n", h.Why)
			if h.CoordinatorPartition != nil {
				note := ""
				if h.PartitionCountFrom == analysis.CountFromDefault {
					note = ", assuming the default transaction.state.log.num.partitions: the input does not tell the count"
				}
				fmt.Fprintf(ew, "    coordinator: __transaction_state-%d (of %d partitions, from %s%s)\n",
					*h.CoordinatorPartition, h.TxnStatePartitions, h.PartitionCountFrom, note)
			}
			fmt.Fprintf(ew, "    coordinator epoch %d: %s\n", h.CoordinatorEpoch, h.EpochFrom)
			fmt.Fprintf(ew, "    check:  %s\n", h.FindHanging)
			fmt.Fprintf(ew, "    abort:  %s\n", h.Abort)
		}
	}
	fmt.Fprintln(ew, "\n(ksleuth never runs these commands; abort only a transaction find-hanging lists on the live cluster.)")
	fmt.Fprintln(ew)
	return ew.Err
}
