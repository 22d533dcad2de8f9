package main

// Tables of the producer-id attribution, written by scan from
// __transaction_state and __cluster_metadata.
const (
	tableTransactions = "transactions.parquet"
	tablePIDBlocks    = "pid_blocks.parquet"
)
