package html

import (
	"io"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// WriteFile writes the page of m to path under a temporary name, renamed
// over path when it is complete: a page cut short never looks whole.
func WriteFile(path string, m *Model) error {
	return export.WriteFileAtomic(path, func(w io.Writer) error { return Write(w, m) })
}

// Sinks hand the rows a run streams to the collector, for a run that
// draws the page (pipeline.Run's sinks, or the tables' Also).
func (c *Collector) Sinks() pipeline.Sinks {
	return pipeline.Sinks{
		Batches: func(rows []analysis.BatchRow) error { c.Batches(rows); return nil },
		Records: func(rows []analysis.PayloadRecordRow) error { c.Records(rows); return nil },
	}
}
