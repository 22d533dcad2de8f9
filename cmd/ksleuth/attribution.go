package main

import (
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// Tables of the producer-id attribution (issue 8), written by scan.
const (
	tableTransactions = "transactions.parquet"
	tablePIDBlocks    = "pid_blocks.parquet"
)

func init() {
	// So that scan refuses to overwrite them without --force, and --force
	// clears stale ones.
	scanTables = append(scanTables, tableTransactions, tablePIDBlocks)
}

// attributor gathers the records of __transaction_state and
// __cluster_metadata of a scan and, once finished, fills transactional_id
// and allocated_by_broker of the producer and duplicate rows (and of a
// later copy's earlier PID, with the PID change between them). scan, dups
// and producers share it: call records first in Output.Records, finish
// after scan.Run, then annotate the producer rows and wrap the duplicates
// writer.
type attributor struct {
	a         *topics.Attribution
	anomalies []analysis.AnomalyRow
	// lastTopic caches whether the topic of the previous row is one the
	// attribution reads: rows come in runs of one topic.
	lastTopic string
	lastRead  bool
}

func newAttributor() *attributor { return &attributor{a: topics.NewAttribution()} }

// records takes streamed record rows; rows of the two internal topics carry
// their key and value (package scan fills them for these topics).
func (t *attributor) records(rows []analysis.PayloadRecordRow) {
	for i := range rows {
		r := &rows[i]
		if r.IsControl {
			continue
		}
		if r.Topic != t.lastTopic {
			k := topics.TopicOf(r.Topic)
			t.lastTopic, t.lastRead = r.Topic, k == topics.TransactionState || k == topics.ClusterMetadata
		}
		if !t.lastRead {
			continue
		}
		n := len(t.a.Findings)
		t.a.Add(r.Input, r.Topic, r.Partition, r.Segment, r.BatchPosition, r.Offset, r.Timestamp, r.IsControl, r.Key, r.Value)
		for _, f := range t.a.Findings[n:] {
			kind := f.Kind()
			sev := "error"
			if kind == "unknown-version" || kind == "unknown-type" {
				sev = "warning"
			}
			topic, part := r.Topic, r.Partition
			t.anomalies = append(t.anomalies, analysis.AnomalyRow{Input: r.Input, Topic: &topic, Partition: &part,
				Kind: kind, Severity: sev, File: r.Segment, Position: &f.Position, Offset: &f.Offset, Message: f.Err.Error()})
		}
	}
}

// finish orders the attribution and returns the decode findings as
// anomalies.
func (t *attributor) finish() []analysis.AnomalyRow {
	t.a.Finish()
	return t.anomalies
}

// producers fills the attribution columns of producer sessions.
func (t *attributor) producers(rows []analysis.ProducerRow) {
	for i := range rows {
		t.a.AnnotateProducer(&rows[i])
	}
}

// duplicates wraps the duplicates writer to fill the attribution columns
// and add what they say to the explanations of later copies, in the words
// of the dups report line.
func (t *attributor) duplicates(write func([]analysis.DuplicateRow) error) func([]analysis.DuplicateRow) error {
	return func(rows []analysis.DuplicateRow) error {
		for i := range rows {
			r := &rows[i]
			t.a.AnnotateDuplicate(r)
			if r.PIDChange == analysis.PIDChangeIdempotentRestart && r.Class != dups.ClassRestartResend {
				r.PIDChange = "" // no restart, whatever the PIDs
			}
			if r.Explanation != "" { // none under dups.Options.NoExplanations
				r.Explanation += dups.AttributionNote(r)
			}
		}
		return write(rows)
	}
}

// attribution is the attributor of scan, which also writes
// transactions.parquet and pid_blocks.parquet.
type attribution struct {
	*attributor
	txns   *table[analysis.TransactionRow]
	blocks *table[analysis.PIDBlockRow]
}

func openAttribution(ts *tableSet) *attribution {
	return &attribution{
		attributor: newAttributor(),
		txns:       openTable[analysis.TransactionRow](ts, tableTransactions),
		blocks:     openTable[analysis.PIDBlockRow](ts, tablePIDBlocks),
	}
}

// finish orders the attribution, writes its two tables and returns the
// decode findings as anomalies.
func (t *attribution) finish() ([]analysis.AnomalyRow, error) {
	anomalies := t.attributor.finish()
	if err := t.txns.write(t.a.Transactions()); err != nil {
		return nil, err
	}
	if err := t.blocks.write(t.a.PIDBlocks()); err != nil {
		return nil, err
	}
	return anomalies, nil
}
