package main

import "github.com/ksleuth/ksleuth/analysis/export"

// Table file names written by scan, owned by package export, as the
// tests of the commands name them.
const (
	tableFiles        = export.Files
	tableBatches      = export.Batches
	tableRecords      = export.Records
	tableRecordsV1    = export.RecordsV1
	tableAnomalies    = export.Anomalies
	tableSnapshots    = export.Snapshots
	tableProducers    = export.Producers
	tableDups         = export.Duplicates
	tableGaps         = export.Gaps
	tableTransactions = export.Transactions
	tablePIDBlocks    = export.PIDBlocks
	tableEvents       = export.Events
	metaSources       = export.MetaSources
	metaFingerprint   = export.MetaFingerprint
)
