package export

import "github.com/ksleuth/ksleuth/analysis"

// NewBatches starts writing the batches table (batches.parquet) with a
// ColumnarSink: it has a row per batch of every segment, by far the most
// rows of the tables a scan writes without --records.
func NewBatches(path, version string, meta *Metadata) (*ColumnarSink[analysis.BatchRow], error) {
	return NewColumnar[analysis.BatchRow](path, version, meta, 0, 0)
}
