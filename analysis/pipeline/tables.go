package pipeline

import (
	"context"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// TableOptions say where and how a run writes its tables (scan --out).
type TableOptions struct {
	// Out is the locked output dir whose set the run replaces.
	Out     *export.Out
	Version string
	// Meta goes into every table's footer; its ksleuth.run_end is set
	// when the run ends.
	Meta *export.Metadata
	// Records writes the records dataset; Payload with keys, values and
	// headers.
	Records, Payload bool
	// Also get the streamed rows and the duplicate groups (the report
	// page's collector), after the tables.
	Also           Sinks
	AlsoDuplicates func([]analysis.DuplicateRow) error
}

// Tables is a run that wrote its tables.
type Tables struct {
	*Result
	Set  *export.Set
	Dups dups.Stats
}

// WriteTables runs the analysis and writes every table of the set; the
// set replaces the output dir's previous one when the run completes, or
// the previous one stays.
// o.Detector must be set: duplicates.parquet is part of the set.
func WriteTables(ctx context.Context, inputs []*source.Input, o Options, t TableOptions) (*Tables, error) {
	holdHeap()
	ts := export.NewSet(t.Out, t.Version, t.Meta)
	defer ts.Abort()
	files := export.OpenTable[analysis.FileRow](ts, export.Files)
	// A row per batch of every segment: the columnar writer (a third of
	// the generic writer's cost a row, see export.ColumnarSink).
	batches := export.OpenTableWith(ts, export.Batches, export.NewBatches)
	anomalies := export.OpenTable[analysis.AnomalyRow](ts, export.Anomalies)
	gaps := export.OpenTable[analysis.GapRow](ts, export.Gaps)
	snapshots := export.OpenTable[analysis.SnapshotRow](ts, export.Snapshots)
	producerTab := export.OpenTable[analysis.ProducerRow](ts, export.Producers)
	dupTab := export.OpenTable[analysis.DuplicateRow](ts, export.Duplicates)
	txnTab := export.OpenTable[analysis.TransactionRow](ts, export.Transactions)
	blockTab := export.OpenTable[analysis.PIDBlockRow](ts, export.PIDBlocks)
	replicaTab := export.OpenTable[analysis.ReplicaRow](ts, export.Replicas)
	eventTab := export.OpenTable[analysis.ClusterEventRow](ts, export.Events)
	ptxnTab := export.OpenTable[analysis.PartitionTxnRow](ts, export.PartitionTxns)
	commitTab := export.OpenTable[analysis.CommitRow](ts, export.Commits)
	groupTab := export.OpenTable[analysis.GroupRow](ts, export.Groups)
	remoteTab := export.OpenTable[analysis.RemoteSegmentRow](ts, export.RemoteSegments)
	var records *export.DatasetTable[analysis.RecordRow]
	var payload *export.DatasetTable[analysis.PayloadRecordRow]
	switch {
	case t.Payload:
		payload = export.OpenDataset(ts, export.Records, func(r *analysis.PayloadRecordRow) string { return r.Topic })
	case t.Records:
		records = export.OpenDataset(ts, export.Records, func(r *analysis.RecordRow) string { return r.Topic })
	}
	if err := ts.Err(); err != nil {
		return nil, err
	}
	var recBuf []analysis.RecordRow
	sinks := Sinks{
		Batches: func(rows []analysis.BatchRow) error {
			if t.Also.Batches != nil {
				if err := t.Also.Batches(rows); err != nil {
					return err
				}
			}
			return batches.Write(rows)
		},
		Records: func(rows []analysis.PayloadRecordRow) error {
			if t.Also.Records != nil {
				if err := t.Also.Records(rows); err != nil {
					return err
				}
			}
			switch {
			case payload != nil:
				return payload.Write(rows)
			case records != nil:
				recBuf = recBuf[:0]
				for i := range rows {
					recBuf = append(recBuf, rows[i].RecordRow)
				}
				return records.Write(recBuf)
			}
			return nil
		},
	}
	res, err := Run(ctx, inputs, o, sinks)
	if err != nil {
		return nil, err
	}
	sc := res.Scan
	for _, err := range []error{files.Write(sc.Files), producerTab.Write(res.Sessions), txnTab.Write(res.Transactions()),
		blockTab.Write(res.PIDBlocks()), replicaTab.Write(res.Replicas.Rows),
		eventTab.Write(res.ClusterEvents()), ptxnTab.Write(res.Txns.Rows), commitTab.Write(res.Commits()),
		groupTab.Write(res.Groups())} {
		if err != nil {
			return nil, err
		}
	}
	dst, err := o.Detector.Finish(ctx, res.AnnotateDuplicates(func(g []analysis.DuplicateRow) error {
		if t.AlsoDuplicates != nil {
			if err := t.AlsoDuplicates(g); err != nil {
				return err
			}
		}
		return dupTab.Write(g)
	}))
	if err != nil {
		return nil, err
	}
	for _, err := range []error{anomalies.Write(sc.Anomalies), gaps.Write(res.Check.Gaps), snapshots.Write(sc.Snapshots),
		remoteTab.Write(res.RemoteSegments)} {
		if err != nil {
			return nil, err
		}
	}
	t.Meta.SetRunEnd()
	if err := ts.Commit(); err != nil {
		return nil, err
	}
	return &Tables{Result: res, Set: ts, Dups: dst}, nil
}
