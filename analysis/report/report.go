// Package report holds what the outputs below it share: the summary of
// a scan that both its text and its JSON line say, and how a file of the
// inputs is named to the user. The outputs themselves are html (the page),
// text and json.
package report

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// DisplayPath names a finding's file the way the user can find it: below
// the input as given, or inside the archive.
func DisplayPath(inputs []*source.Input, input int32, file string) string {
	if int(input) >= len(inputs) || file == "" {
		return file
	}
	in := inputs[input]
	switch in.Kind {
	case source.Dir, source.Remote:
		return filepath.ToSlash(filepath.Join(in.Path, file))
	case source.Archive:
		return in.Path + ":" + file
	}
	return in.Path
}

// ScanSummary is what scan says of its run: the JSON line of type
// "summary", and what the text prints.
type ScanSummary struct {
	Type    string      `json:"type"` // "summary": --json is JSON lines on every command
	Inputs  []ScanInput `json:"inputs"`
	Jobs    int         `json:"jobs"`
	Seconds float64     `json:"seconds"`
	Files   int         `json:"files"`
	Bytes   int64       `json:"bytes"`
	Batches int64       `json:"batches"`
	Records int64       `json:"records"`
	// RecordsElsewhere: those of Records that are no rows of the records
	// table (pipeline.Summary).
	RecordsElsewhere int64                       `json:"records_in_snapshots_and_transit"`
	Partitions       []analysis.PartitionSummary `json:"partitions"`
	Findings         []analysis.FindingCount     `json:"findings"`
	Errors           int64                       `json:"errors"`
	Warnings         int64                       `json:"warnings"`
	Unreadable       int64                       `json:"unreadable"`
	Out              string                      `json:"out"`
	// The loss ledger: partition copies intact, and the verdicts of
	// those that are not; Unread counts those of them whose every range
	// is unread (the archive ended before their data); Gaps counts the
	// rows of gaps.parquet.
	Intact int                `json:"partitions_intact"`
	Losses []analysis.Verdict `json:"losses"`
	Unread int                `json:"partitions_unread"`
	Gaps   int                `json:"gaps"`
	// Skipped counts the files that are not Kafka files, a few named.
	Skipped      int                    `json:"skipped_files"`
	SkippedFiles []string               `json:"skipped_examples"`
	Checked      []analysis.CheckedKind `json:"checked"`
	Notes        int64                  `json:"-"` // the findings' count of severity note
	// Producer sessions and duplicates (ksleuth producers / dups report
	// them in full).
	ProducerSessions int `json:"producer_sessions"`
	// OpenTransactions counts sessions whose transaction has no marker in
	// the input: a hanging transaction holds back read_committed
	// consumers (its records are txn_state open).
	OpenTransactions int   `json:"open_transactions"`
	DuplicateGroups  int64 `json:"duplicate_groups"`
	Duplicates       int64 `json:"duplicates"`
	// Replicas counts the copies of partitions held by several log dirs
	// by verdict (replicas.parquet); ClusterEvents the rows of
	// cluster_events.parquet, BrokerLogs the broker log files read.
	Replicas      map[string]int          `json:"replicas"`
	ClusterEvents int                     `json:"cluster_events"`
	BrokerLogs    pipeline.BrokerLogStats `json:"broker_logs"`
	Tables        []ScanTable             `json:"tables"`
	analysis.CrashedCopies
	// Clusters are the verdicts across brokers of the partitions held by
	// several log dirs, as verify prints them (JSON: cluster_verdicts).
	Clusters []analysis.ClusterVerdict `json:"cluster_verdicts"`
}

// ScanInput is one input as given.
type ScanInput struct {
	Index int    `json:"index"`
	Path  string `json:"path"`
	Kind  string `json:"kind"`
}

// ScanTable is one table written.
type ScanTable struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Rows int64  `json:"rows"`
}

// NewScanSummary sums up a scan of inputs with jobs workers that wrote
// the table set ts into out in d, finding dst's duplicates.
func NewScanSummary(inputs []*source.Input, jobs int, out string, pres *pipeline.Result, ts *export.Set, d time.Duration, dst dups.Stats) *ScanSummary {
	sum := pres.Summarize()
	s := &ScanSummary{Type: "summary", Jobs: jobs, Seconds: d.Seconds(), Files: sum.Files, Bytes: sum.Bytes,
		Batches: sum.Batches, Records: sum.Records, RecordsElsewhere: sum.RecordsElsewhere, Partitions: sum.Partitions, Findings: sum.Findings,
		Errors: sum.Errors, Warnings: sum.Warnings, Unreadable: sum.Unreadable, Out: out, Unread: sum.UnreadCopies, Gaps: sum.Gaps,
		ProducerSessions: sum.Sessions, Skipped: len(sum.Skipped), Checked: sum.Checked, Notes: sum.Notes,
		OpenTransactions: sum.OpenSessions, Intact: sum.Intact, Losses: sum.Losses, Replicas: sum.Replicas,
		ClusterEvents: sum.ClusterEvents, BrokerLogs: sum.BrokerLogs, DuplicateGroups: dst.Groups, Duplicates: dst.Duplicates,
		CrashedCopies: sum.Crashed, Clusters: sum.Clusters}
	if s.Clusters == nil {
		s.Clusters = []analysis.ClusterVerdict{}
	}
	for _, sk := range sum.Skipped[:min(len(sum.Skipped), 5)] {
		s.SkippedFiles = append(s.SkippedFiles, DisplayPath(inputs, sk.Input, sk.Path))
	}
	for _, in := range inputs {
		s.Inputs = append(s.Inputs, ScanInput{in.Index, in.Path, in.Kind.String()})
	}
	for _, n := range ts.Names() {
		s.Tables = append(s.Tables, ScanTable{Name: strings.TrimSuffix(n, ".parquet"), Path: filepath.Join(out, n), Rows: ts.Rows(n)})
	}
	return s
}
