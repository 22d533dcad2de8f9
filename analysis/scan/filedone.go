package scan

import (
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// fileDone is what a worker found in one file, handed to the scanner
// with the file's last chunk. The scanner keeps of it, to the end of the
// run, only the row and the index of its log dir: nothing a row keeps
// points back into it (TestEmptyFilesHeap).
type fileDone struct {
	row       analysis.FileRow
	logDir    string                // log dir key: input + "\x00" + LogDir
	partKey   analysis.PartitionKey // zero outside partition dirs
	partDir   string
	dirState  string
	segment   bool
	anomalies []analysis.AnomalyRow
	snapshots []analysis.SnapshotRow
	brokerID  *int32
	// omitted counts findings past MaxFileAnomalies by kind and
	// severity; omitAt holds, by severity, the first and last byte
	// positions of those with one.
	omitted finding.Tally
	omitAt  map[finding.Severity][2]int64
	agg     segAgg
	entry   *source.Entry
	data    []byte // index, snapshot and state files: the bytes read
	// events and logStats are a broker log's (KindBrokerLog).
	events   []analysis.ClusterEventRow
	logStats analysis.LogLineStats
}

// KindBrokerLog is the files.parquet kind of a broker's own log file
// (server.log, state-change.log, ...), read for the cluster timeline.
const KindBrokerLog = "broker-log"

// segAgg aggregates a segment's batches for the summary.
type segAgg struct {
	minTs, maxTs int64
	codecs       map[string]bool
	producers    map[int64]bool
	lastCodec    string // the last batch's, already in codecs
	lastPID      int64  // the last data batch's, already in producers
}

// logDir interns the log dir key of f: it returns its index in dirKeys,
// and f's key becomes the one string kept for every file of the dir.
func (s *scanner) logDir(f *fileDone) int32 {
	d, ok := s.dirIndex[f.logDir]
	if !ok {
		d = int32(len(s.dirKeys))
		s.dirKeys = append(s.dirKeys, f.logDir)
		s.dirIndex[f.logDir] = d
	}
	f.logDir = s.dirKeys[d]
	return d
}
