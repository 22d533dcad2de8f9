package scan

import (
	"io"

	"github.com/ksleuth/ksleuth/analysis"
)

// BrokerLogReader reads a broker's own log files: the scan hands every
// file whose name IsName accepts to Parse, and passes on what it read in
// its FileEvent. It is a hook so that reading stays below the pass that
// understands those lines.
type BrokerLogReader struct {
	IsName func(base string) bool
	Parse  func(r io.Reader, input int32, file string) ([]analysis.ClusterEventRow, analysis.LogLineStats, error)
}
