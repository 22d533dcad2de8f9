package analysis

import "fmt"

// LogLineStats count the lines of one broker log file (server.log, ...):
// the scan passes them on from the broker-log reader it is given.
type LogLineStats struct {
	Lines, Entries, Continuations, Unparsed int64
	// Long counts lines longer than the reader keeps (their rest is
	// skipped).
	Long int64
}

// String sums the stats up.
func (s LogLineStats) String() string {
	return fmt.Sprintf("%d lines: %d entries, %d continuation lines, %d unparsed", s.Lines, s.Entries, s.Continuations, s.Unparsed)
}
