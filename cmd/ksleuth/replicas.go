package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/spf13/cobra"
)

func newReplicasCmd(set *settings) *cobra.Command {
	o := commonOptions{set: set}
	cmd := &cobra.Command{
		Use:   "replicas PATH...",
		Short: "Compare the copies of each partition held by several brokers",
		Long: `replicas compares the copies of every partition that two or more of the
inputs hold (typically one log dir per broker), the way the brokers reconcile
them: by leader epoch. The copy with the highest last leader epoch (on a tie,
the highest log end offset) is the reference. Every other copy is

  in-sync   the same batches up to the same end;
  damaged   the same batches, but some are damaged in this copy (they
            fail their CRC, or, where records are decoded, do not decode)
            while the reference's are intact;
  lagging   a prefix of the reference (a follower behind, or copied earlier);
  unread    a prefix of the reference read from an archive that ended
            inside it: the rest was not read, which says nothing of the
            broker;
  diverged  it holds offsets outside the reference's leader-epoch history
            (an unclean election, a leader that lost its tail): the broker
            truncates them when it follows again, and their records are lost;
  ahead     it goes on past the reference's end in the reference's own
            last epoch.

Each copy shows its log start and end offsets, its high watermark
(replication-offset-checkpoint), recovery point and leader-epoch history
(leader-epoch-checkpoint and the batches' partitionLeaderEpoch). Batches
are compared by base offset, last offset, CRC and leader epoch, and every
CRC is checked; no data batch's records are decoded (verify decodes them).
--json gives one object per copy (type "replica") and per comparison (type
"divergence"). Diverged copies are findings (replica-divergence), and their
lost offsets are in scan's gaps.parquet; --fail-on-findings exits 3 for
them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplicas(cmd, args, &o)
		},
	}
	addCommonFlags(cmd, &o)
	return cmd
}

// replicaLine is a copy's own columns (JSON type "replica").
type replicaLine struct {
	Type           string                `json:"type"`
	Topic          string                `json:"topic"`
	Partition      int32                 `json:"partition"`
	Broker         *int32                `json:"broker"`
	Source         string                `json:"source"`
	Dir            string                `json:"dir"`
	LogStartOffset int64                 `json:"log_start_offset"`
	LogEndOffset   int64                 `json:"log_end_offset"`
	HighWatermark  *int64                `json:"high_watermark"`
	RecoveryPoint  *int64                `json:"recovery_point"`
	AboveHW        int64                 `json:"above_high_watermark"`
	LeaderEpochs   []analysis.EpochStart `json:"leader_epochs"`
	LastEpoch      int32                 `json:"last_epoch"`
	Verdict        string                `json:"verdict"`
	Reference      bool                  `json:"reference"`
}

// divergenceLine is a copy against its reference (JSON type "divergence").
type divergenceLine struct {
	Type                 string                 `json:"type"`
	Topic                string                 `json:"topic"`
	Partition            int32                  `json:"partition"`
	Broker               *int32                 `json:"broker"`
	Source               string                 `json:"source"`
	Dir                  string                 `json:"dir"`
	ReferenceBroker      *int32                 `json:"reference_broker"`
	ReferenceSource      string                 `json:"reference_source"`
	ReferenceDir         string                 `json:"reference_dir"`
	FirstDivergentOffset *int64                 `json:"first_divergent_offset"`
	Epoch                *int32                 `json:"epoch"`
	ReferenceEpoch       *int32                 `json:"reference_epoch"`
	MissingRanges        []analysis.OffsetRange `json:"missing_ranges"`
	ExtraRanges          []analysis.OffsetRange `json:"extra_ranges"`
	CleanerDifferences   int64                  `json:"cleaner_differences"`
	Verdict              string                 `json:"verdict"`
	Explanation          string                 `json:"explanation"`
}

func runReplicas(cmd *cobra.Command, args []string, o *commonOptions) error {
	topic, inputs, err := o.prepare("replicas", args)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	// Batches are compared, not records: each batch's framing and CRC
	// are checked and its header read, and no data batch is decoded
	// (verify decodes them); batches the log cleaner rewrote are judged
	// by offsets and epoch, and scan compares their records.
	res, err := analyze(ctx, cmd, "replicas", o, inputs, pipeline.Options{
		Scan: scan.Config{Topic: topic, DecodeOnce: true, HeadersOnly: true}, OneCluster: true,
	}, pipeline.Sinks{})
	if err != nil {
		return err
	}
	rows := res.Replicas.Rows
	w := cmd.OutOrStdout()
	if o.json {
		err = writeReplicasJSON(w, rows)
	} else {
		nf, _ := res.FindingTotals()
		err = writeReplicasText(w, rows, res.Scan.NotDecoded, nf, res.LossCopies()-res.UnreadCopies(), res.UnreadCopies())
	}
	if err != nil {
		return err
	}
	return exitStatus(res, o.failOnFindings)
}

func writeReplicasJSON(w io.Writer, rows []analysis.ReplicaRow) error {
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(replicaLine{Type: "replica", Topic: r.Topic, Partition: r.Partition, Broker: r.Broker, Source: r.Source, Dir: r.Dir,
			LogStartOffset: r.LogStartOffset, LogEndOffset: r.LogEndOffset, HighWatermark: r.HighWatermark, RecoveryPoint: r.RecoveryPoint,
			AboveHW: r.AboveHighWatermark, LeaderEpochs: r.LeaderEpochs, LastEpoch: r.LastEpoch, Verdict: r.Verdict,
			Reference: r.Verdict == replicas.VerdictReference}); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if r.Verdict == replicas.VerdictReference {
			continue
		}
		if err := enc.Encode(divergenceLine{Type: "divergence", Topic: r.Topic, Partition: r.Partition, Broker: r.Broker, Source: r.Source, Dir: r.Dir,
			ReferenceBroker: r.ReferenceBroker, ReferenceSource: r.ReferenceSource, ReferenceDir: r.ReferenceDir,
			FirstDivergentOffset: r.FirstDivergentOffset, Epoch: r.Epoch, ReferenceEpoch: r.ReferenceEpoch,
			MissingRanges: r.MissingRanges, ExtraRanges: r.ExtraRanges, CleanerDifferences: r.CleanerDifferences, Verdict: r.Verdict, Explanation: r.Explanation}); err != nil {
			return err
		}
	}
	return nil
}

// writeReplicasText prints, per partition, one line per copy and one
// sentence per verdict, and what was not checked. The closing notes come
// also when there is nothing to compare: the findings they count are what
// --fail-on-findings exits 3 on.
func writeReplicasText(w io.Writer, rows []analysis.ReplicaRow, notDecoded, findings int64, losses, unread int) error {
	ew := &errWriter{w: w}
	if len(rows) == 0 {
		fmt.Fprintln(ew, "no partition is held by two or more of the inputs: nothing to compare")
	} else {
		writeReplicaCopies(ew, rows)
	}
	if findings > 0 || losses > 0 || unread > 0 {
		lost := ""
		if losses > 0 {
			lost = fmt.Sprintf(", and %d partition cop%s lost offsets", losses, pluralS(int64(losses), "y", "ies"))
		}
		switch {
		case unread > 0 && losses > 0:
			lost += fmt.Sprintf(", %d unread (%s)", unread, unreadWhy(unread))
		case unread > 0:
			lost = fmt.Sprintf(", and %d partition cop%s unread (%s)", unread, pluralS(int64(unread), "y", "ies"), unreadWhy(unread))
		}
		fmt.Fprintf(ew, "note: the inputs hold %d finding(s) of severity error or warning%s (ksleuth verify PATH for details)\n", findings, lost)
	}
	switch {
	case notDecoded > 0 && len(rows) > 0:
		fmt.Fprintf(ew, "batches compared by offsets, leader epoch and CRC (each CRC checked); the records of %d batch(es) not decoded: ksleuth verify decodes them\n", notDecoded)
	case notDecoded > 0:
		fmt.Fprintf(ew, "batch headers and CRCs checked; the records of %d batch(es) not decoded: ksleuth verify decodes them\n", notDecoded)
	}
	return ew.err
}

// writeReplicaCopies prints the copies of each partition held by several
// inputs, their verdicts, and a count of each verdict.
func writeReplicaCopies(ew *errWriter, rows []analysis.ReplicaRow) {
	counts := map[string]int{}
	for i := 0; i < len(rows); {
		j := i + 1
		// One partition of one cluster: the copies share their reference.
		for j < len(rows) && rows[j].Topic == rows[i].Topic && rows[j].Partition == rows[i].Partition &&
			rows[j].ReferenceSource == rows[i].ReferenceSource && rows[j].ReferenceDir == rows[i].ReferenceDir {
			j++
		}
		fmt.Fprintf(ew, "%s-%d: %d copies\n", rows[i].Topic, rows[i].Partition, j-i)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  BROKER\tCOPY\tLOG START\tLOG END\tHIGH WATERMARK\tRECOVERY POINT\tLEADER EPOCHS (epoch@offset)\tVERDICT")
		for _, r := range rows[i:j] {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", brokerName(r.Broker), r.Source+":"+r.Dir, r.LogStartOffset, r.LogEndOffset,
				optOffset(r.HighWatermark), optOffset(r.RecoveryPoint), epochList(r.LeaderEpochs), r.Verdict)
			counts[r.Verdict]++
		}
		tw.Flush()
		for _, r := range rows[i:j] {
			fmt.Fprintf(ew, "  %s\n", r.Explanation)
		}
		fmt.Fprintln(ew)
		i = j
	}
	var parts []string
	for _, v := range []string{replicas.VerdictInSync, replicas.VerdictDamaged, replicas.VerdictLagging, replicas.VerdictDiverged, replicas.VerdictAhead, replicas.VerdictUnread} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	fmt.Fprintf(ew, "%d partition(s) compared: %s\n", counts[replicas.VerdictReference], strings.Join(parts, ", "))
}

func brokerName(b *int32) string {
	if b == nil {
		return "?"
	}
	return strconv.Itoa(int(*b))
}

func optOffset(o *int64) string {
	if o == nil {
		return "-"
	}
	return strconv.FormatInt(*o, 10)
}

func epochList(es []analysis.EpochStart) string {
	if len(es) == 0 {
		return "-"
	}
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = fmt.Sprintf("%d@%d", e.Epoch, e.StartOffset)
	}
	return strings.Join(s, " ")
}
