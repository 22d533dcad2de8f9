package pipeline

import (
	"fmt"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/producer"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Summary is what the outputs say of a run beside its rows, computed
// once so that the text, the JSON lines and the page count alike. Its
// types are tier-0 ones: an output reads it without importing a pass.
type Summary struct {
	// Files counts the file rows, Unreadable those that could not be read;
	// Bytes, Batches and Records are totals over all inputs.
	Files                               int
	Unreadable, Bytes, Batches, Records int64
	// RecordsElsewhere counts those of Records in KRaft snapshots and
	// segments in transit (.deleted, .cleaned, .swap, leftovers): the
	// batches table has their batches, the records table not their
	// records, which repeat or precede a live log's.
	RecordsElsewhere int64
	// Partitions sums up every partition dir of every input.
	Partitions []analysis.PartitionSummary
	// Findings counts the findings by kind and severity (capped listings
	// included); Errors and Warnings by severity. Counted are errors and
	// warnings (Counted, CountedByKind), notes apart (Notes, NotesByKind).
	Findings                   []analysis.FindingCount
	Errors, Warnings           int64
	Counted, Notes             int64
	CountedByKind, NotesByKind map[finding.Kind]int64
	// Followers counts, of the Counted, the findings that follow from
	// another one in the run (caused_by: an index entry past a cut, a
	// checkpoint ahead of a truncation), by kind in FollowersByKind: the
	// text leads with the rest, their causes.
	Followers       int64
	FollowersByKind map[finding.Kind]int64
	// Checked says what the checks read, by kind of file; CheckedFiles
	// counts the Kafka files among them and Segments the live segments.
	Checked      []analysis.CheckedKind
	CheckedFiles int
	Segments     int
	// Verdicts are the loss ledger's answers, one per partition copy;
	// Intact counts those with no loss and Losses are the others. Gaps
	// counts the ledger's ranges.
	Verdicts []analysis.Verdict
	Intact   int
	Losses   []analysis.Verdict
	Gaps     int
	// LossCopies counts the copies with a range of severity error or
	// warning in the ledger, UnreadCopies those of them whose every such
	// range is unread (the archive ended before their data).
	LossCopies, UnreadCopies int
	// Skipped are the files that are not Kafka files.
	Skipped []analysis.SkippedFile
	// Sessions counts the producer sessions, OpenSessions those whose
	// transaction has no marker in the input; OpenTxns are the
	// transactions open at the end of the input.
	Sessions, OpenSessions int
	OpenTxns               []analysis.OpenTxn
	// TxnPartitions are the last stable offsets of the partitions.
	TxnPartitions []analysis.PartitionLSO
	// Replicas counts the copies of partitions held by several log dirs
	// by verdict; ClusterEvents the cluster timeline's events.
	Replicas      map[string]int
	ClusterEvents int
	BrokerLogs    BrokerLogStats
	// NotDecoded counts the batches whose records were not decoded (the
	// replicas command compares batch headers).
	NotDecoded int64
	// Incomplete: some input could not be read in full.
	Incomplete bool
	// Crashed counts the copies not shut down cleanly, which every
	// command says in one line (analysis.CrashedCopies).
	Crashed analysis.CrashedCopies
	// Clusters are the verdicts of the partitions the inputs hold two or
	// more copies of (several brokers' log dirs), one per topic-partition
	// across its copies: lost only where no copy holds the offsets.
	Clusters []analysis.ClusterVerdict
}

// Summarize computes the run's Summary.
func (r *Result) Summarize() *Summary {
	res := r.Scan
	s := &Summary{Files: len(res.Files), Unreadable: res.Unreadable, Bytes: res.Bytes, Batches: res.Batches, Records: res.Records,
		Errors: res.Errors, Warnings: r.Warnings, Sessions: len(r.Sessions), Incomplete: r.Incomplete(), NotDecoded: res.NotDecoded,
		CountedByKind: map[finding.Kind]int64{}, NotesByKind: map[finding.Kind]int64{}, Replicas: map[string]int{},
		FollowersByKind: map[finding.Kind]int64{}}
	s.Partitions = make([]analysis.PartitionSummary, 0, len(res.Partitions))
	for _, p := range res.Partitions {
		s.Partitions = append(s.Partitions, partitionSummary(p))
	}
	slices.SortStableFunc(s.Partitions, func(a, b analysis.PartitionSummary) int {
		return analysis.CopyOrder{Input: a.Input, Topic: a.Topic, Partition: a.Partition, Dir: a.Dir}.ComparePartitionFirst(
			analysis.CopyOrder{Input: b.Input, Topic: b.Topic, Partition: b.Partition, Dir: b.Dir})
	})
	s.Findings = append([]analysis.FindingCount{}, res.Findings...)
	for _, c := range res.Findings {
		if finding.Counts(c.Severity) {
			s.CountedByKind[c.Kind] += c.Count
			s.Counted += c.Count
		} else {
			s.NotesByKind[c.Kind] += c.Count
			s.Notes += c.Count
		}
	}
	s.countFollowers(res.Anomalies)
	for i := range res.Files {
		if f := &res.Files[i]; f.Kind != "log" || f.Suffix != "" {
			s.RecordsElsewhere += f.Records
		}
	}
	s.Checked = Checked(res.Files, res.Anomalies)
	s.Segments = s.Checked[0].Files
	for _, c := range s.Checked {
		if c.What != analysis.CheckedOther {
			s.CheckedFiles += c.Files
		}
	}
	s.LossCopies, s.UnreadCopies = r.lossCopies()
	s.Verdicts, s.Losses = []analysis.Verdict{}, []analysis.Verdict{}
	if r.Check != nil {
		s.Gaps = len(r.Check.Gaps)
		for _, v := range r.Check.Partitions {
			pv := verdict(&v)
			s.Verdicts = append(s.Verdicts, pv)
			if pv.Intact {
				s.Intact++
			} else {
				s.Losses = append(s.Losses, pv)
			}
		}
		byPartition := func(a, b analysis.Verdict) int {
			return analysis.CopyOrder{Input: a.Input, Topic: a.Topic, Partition: a.Partition, Dir: a.Dir}.ComparePartitionFirst(
				analysis.CopyOrder{Input: b.Input, Topic: b.Topic, Partition: b.Partition, Dir: b.Dir})
		}
		slices.SortStableFunc(s.Verdicts, byPartition)
		s.Crashed = analysis.CountCrashed(s.Verdicts)
		slices.SortStableFunc(s.Losses, byPartition)
		for _, sk := range r.Check.Skipped {
			s.Skipped = append(s.Skipped, analysis.SkippedFile{Input: sk.Input, Path: sk.Path, Reason: sk.Reason})
		}
	}
	for i := range r.Sessions {
		if r.Sessions[i].OpenTxn {
			s.OpenSessions++
		}
	}
	s.OpenTxns = openTxns(r.Txns)
	if r.Txns != nil {
		for _, p := range r.Txns.Partitions {
			s.TxnPartitions = append(s.TxnPartitions, analysis.PartitionLSO(p))
		}
	}
	if r.Replicas != nil {
		for _, rp := range r.Replicas.Rows {
			s.Replicas[rp.Verdict]++
		}
	}
	s.ClusterEvents, s.BrokerLogs = len(r.ClusterEvents()), r.BrokerLogs
	if r.Check != nil {
		for _, cv := range r.ClusterVerdicts() {
			if len(cv.Copies) > 1 {
				s.Clusters = append(s.Clusters, cv)
			}
		}
	}
	return s
}

func partitionSummary(p *scan.PartitionSummary) analysis.PartitionSummary { return p.PartitionSummary }

func verdict(v *check.Verdict) analysis.Verdict { return v.Verdict }

// openTxns are the transactions open at the end of the input (none
// without the transactions' result).
func openTxns(r *producer.TxnResult) []analysis.OpenTxn {
	if r == nil {
		return nil
	}
	out := make([]analysis.OpenTxn, 0, len(r.Open))
	for _, h := range r.Open {
		out = append(out, analysis.OpenTxn{Type: h.Type, PartitionTxnRow: h.PartitionTxnRow, OpenForMillis: h.OpenForMillis,
			CoordinatorEpoch: h.CoordinatorEpoch, EpochFrom: h.EpochFrom, FindHanging: h.FindHanging, Abort: h.Abort, Why: h.Why})
	}
	return out
}

// Checked counts the files the checks read, by kind, from the run's file
// rows and findings. A segment read only in part counts among the
// segments read and says so: its batches before the failure are checked
// like any other's, and the batch count has them. It is one opened
// whose reading failed (an io-error with the byte where reading stopped)
// or one that delivered batches before it failed; a file never opened
// (no permission, a link to nothing) is not read at all.
func Checked(files []analysis.FileRow, findings []analysis.AnomalyRow) []analysis.CheckedKind {
	type fileKey struct {
		input int32
		path  string
	}
	stopped := map[fileKey]bool{}
	for _, a := range findings {
		if a.Kind == finding.KindIOError && a.Position != nil {
			stopped[fileKey{a.Input, a.File}] = true
		}
	}
	var seg, partial, transit, kraft, idx, snap, state, other int
	for _, f := range files {
		if f.Status == "unreadable" && f.Kind == "log" && f.Suffix == "" && (f.Batches > 0 || stopped[fileKey{f.Input, f.Path}]) {
			seg++
			partial++
			continue
		}
		if f.Status == "skipped" || f.Status == "unreadable" {
			continue // not read: listed as skipped, or an io-error finding
		}
		if f.Suffix != "" {
			transit++
			continue
		}
		switch f.Kind {
		case "log":
			seg++
		case "kraft-snapshot":
			kraft++
		case "index", "timeindex", "txnindex":
			idx++
		case "snapshot":
			snap++
		case "unknown":
			other++
		default:
			state++
		}
	}
	return checkedKinds(seg, partial, transit, kraft, idx, snap, state, other)
}

func checkedKinds(seg, partial, transit, kraft, idx, snap, state, other int) []analysis.CheckedKind {
	out := []analysis.CheckedKind{{What: "segments", Files: seg, Partial: partial,
		How: "framing, CRCs and every record decoded; offsets within and across segments"}}
	if partial > 0 {
		out[0].How += fmt.Sprintf("; %d of them only up to where the input failed inside them", partial)
	}
	if transit > 0 {
		out = append(out, analysis.CheckedKind{What: "files in transit", Files: transit,
			How: "read like files of their kind (.deleted, .cleaned, .swap, .tmp): what retention, the cleaner or a write in progress was replacing"})
	}
	if kraft > 0 {
		out = append(out, analysis.CheckedKind{What: "KRaft snapshots", Files: kraft, How: "framing, CRCs and every metadata record decoded"})
	}
	out = append(out,
		analysis.CheckedKind{What: "index files", Files: idx, How: "every entry against the batches of its segment"},
		analysis.CheckedKind{What: "producer snapshots", Files: snap, How: "against the producer state rebuilt from the log"},
		analysis.CheckedKind{What: "checkpoint and state files", Files: state, How: "parsed; offset checkpoints against the data on disk"})
	if other > 0 {
		out = append(out, analysis.CheckedKind{What: analysis.CheckedOther, Files: other, How: "not Kafka files: hashed and listed, not checked"})
	}
	return out
}

// SnapshotOnly are the producers that snapshots name but no batch on disk
// shows (see producer.SnapshotOnly). A snapshot given on its own has no
// log beside it in the input: its producers are not "known only from
// snapshots".
func (r *Result) SnapshotOnly(inputs []*source.Input) []analysis.SnapshotRow {
	var dirSnaps []analysis.SnapshotRow
	for _, sn := range r.Scan.Snapshots {
		if int(sn.Input) < len(inputs) && inputs[sn.Input].Kind != source.File {
			dirSnaps = append(dirSnaps, sn)
		}
	}
	return producer.SnapshotOnly(r.Sessions, dirSnaps)
}

// countFollowers counts the errors and warnings that follow from another
// finding of the run, as analysis.FoldFindings folds them.
func (s *Summary) countFollowers(rows []analysis.AnomalyRow) {
	for _, c := range analysis.FoldFindings(rows) {
		for i := range c.Rows {
			if f := &c.Rows[i]; finding.Counts(f.Severity) {
				s.Followers += f.Stands()
				s.FollowersByKind[f.Kind] += f.Stands()
			}
		}
	}
}

// Crashed counts the copies of the run not shut down cleanly, for the
// outputs fed no Summary (dups, consumers).
func (r *Result) Crashed() analysis.CrashedCopies {
	if r == nil || r.Check == nil {
		return analysis.CrashedCopies{}
	}
	vs := make([]analysis.Verdict, len(r.Check.Partitions))
	for i := range r.Check.Partitions {
		vs[i] = r.Check.Partitions[i].Verdict
	}
	return analysis.CountCrashed(vs)
}
