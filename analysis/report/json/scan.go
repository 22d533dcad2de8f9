package json

import (
	stdjson "encoding/json"
	"io"

	"github.com/ksleuth/ksleuth/analysis/report"
)

// Scan writes scan's summary, one line of type "summary".
func Scan(w io.Writer, s *report.ScanSummary) error { return stdjson.NewEncoder(w).Encode(s) }
