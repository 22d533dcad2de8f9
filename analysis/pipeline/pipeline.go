// Package pipeline runs ksleuth's one analysis for every command: the
// inputs are scanned (package scan), every partition is checked and its
// losses are classified (package check), producer sessions and
// transactions are rebuilt (package producer), producer ids are
// attributed from the internal topics (package cluster), and records are
// fed to the duplicate detector (package dups) when one is given. Commands
// differ only in what they ask for and what they print or write: verify is
// scan without tables.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/brokerlog"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/consumers"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/producer"
	"github.com/ksleuth/ksleuth/analysis/recovery"
	"github.com/ksleuth/ksleuth/analysis/replicas"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Options say what one run computes.
type Options struct {
	// Scan configures the reading; Records is forced on when the
	// detector or the attribution needs records.
	Scan  scan.Config
	Check check.Options
	// Detector, when set, gets every data record, fingerprinted over the
	// parts Hasher chooses.
	Detector *dups.Detector
	Hasher   *dups.Hasher
	// Attribution reads __transaction_state and __cluster_metadata to
	// name the owners of producer ids, and __consumer_offsets for the
	// commits and groups (package consumers).
	Attribution bool
	// Recovery predicts what a broker's log loader does with each
	// partition dir at startup (Result.Recovery).
	Recovery bool
	// RemoteMetadata, without Attribution, still reads the records of
	// __remote_log_metadata (remotemeta.go): the loss ledger needs the
	// remote segments to tell a tiered partition's remote-only offsets
	// from lost ones.
	RemoteMetadata bool
	// OneCluster takes log dirs that name no cluster.id as one cluster's
	// brokers, so that their copies of a partition are compared (the
	// replicas command, given the brokers to compare).
	OneCluster bool
	// Values, when set, decodes record values in the Confluent wire format
	// with its schemas into the payload rows' value_schema_id and
	// value_decoded (scan --payload --decode-values auto); its findings and
	// the values that did not decode are among the run's findings.
	Values *payload.Registry
}

// Sinks receive the streamed rows, after the engine has seen them.
type Sinks struct {
	Batches func([]analysis.BatchRow) error
	Records func([]analysis.PayloadRecordRow) error
}

// Result is one run's outcome.
type Result struct {
	// Scan holds the files, snapshots and per-partition summary. Its
	// Anomalies are every finding of the run, sorted, and its Findings
	// and Errors count them.
	Scan *scan.Result
	// Check holds the loss ledger, the verdicts and the skipped files.
	Check *check.Result
	// Sessions are the producer sessions.
	Sessions []analysis.ProducerRow
	// Replicas compares the copies of each partition held by two or more
	// log dirs; its losses are in Check's ledger and verdicts, its
	// findings among Scan's.
	Replicas *replicas.Result
	// RemoteSegments are the segments of tiered topics that
	// __remote_log_metadata names, one per remote segment id.
	RemoteSegments []analysis.RemoteSegmentRow
	// BrokerLogs counts the broker log files read for the cluster
	// timeline and their lines.
	BrokerLogs BrokerLogStats
	// Txns are the transactions per partition, the last stable offsets
	// and the transactions open at the end of the input.
	Txns *producer.TxnResult
	// Recovery is the log loader's predicted work per partition dir (with
	// Options.Recovery).
	Recovery []recovery.Partition
	// Warnings counts findings of severity warning (Scan.Errors the
	// errors).
	Warnings int64
	attr     *attributor
	events   []analysis.ClusterEventRow // from the broker logs
	cons     *consumers.Collector
	consIdx  *consumers.Index
	clusters *clusterMemo // ClusterOf
	sources  []string
}

// BrokerLogStats count the broker logs of a run.
type BrokerLogStats struct {
	Files    int64 `json:"files"`
	Lines    int64 `json:"lines"`
	Events   int64 `json:"events"`
	Unparsed int64 `json:"unparsed_lines"`
}

// ErrNoKafkaData is returned when no input holds a single Kafka file.
var ErrNoKafkaData = errors.New("no Kafka data")

// NeedPayload reports whether the options need keys, values and headers.
func (o *Options) NeedPayload() bool { return o.Detector != nil && !o.Hasher.Default() }

// Run runs the analysis over inputs.
func Run(ctx context.Context, inputs []*source.Input, o Options, sinks Sinks) (*Result, error) {
	holdHeap()
	sources := scan.Sources(inputs)
	copts := o.Check
	copts.NewProducerState = producer.NewProducerState
	chk := check.New(inputs, sources, copts)
	f := &feed{tracker: producer.New(), det: o.Detector, hasher: o.Hasher, lastIn: -1}
	// Producer sessions and transactions are rebuilt, and the copies of a
	// partition compared, in the checker's order: offset order within a
	// partition, archives included.
	reps := replicas.New(sources)
	reps.OneCluster = o.OneCluster
	var logs BrokerLogStats
	var logEvents []analysis.ClusterEventRow
	chk.OnBatch = func(b *analysis.BatchRow) {
		f.tracker.Batch(b)
		reps.Batch(b)
	}
	if o.Attribution {
		f.attr = newAttributor()
		f.cons = consumers.New()
	}
	cfg := o.Scan
	cfg.KeepPayload, cfg.Evidence = internalTopic, f.evidenceTopics()
	cfg.BrokerLogs = &scan.BrokerLogReader{IsName: brokerlog.IsLogName, Parse: brokerlog.Parse}
	cfg.Records = cfg.Records || o.Detector != nil || o.Attribution
	cfg.Payload = cfg.Payload || f.needPayload()
	if f.needPayload() {
		cfg.Compact = false
	}
	values := newValueDecoder(o.Values)
	if !cfg.Payload {
		values = nil
	}
	var sim *recovery.Simulator
	if o.Recovery {
		sim = recovery.New()
	}
	store := newRemoteStores()
	if err := store.readMetadata(ctx, inputs, &o); err != nil {
		return nil, err
	}
	out := scan.Output{
		Batches: func(rows []analysis.BatchRow) error {
			if sim != nil {
				for i := range rows {
					sim.Batch(&rows[i])
				}
			}
			store.scanned.Batches(rows)
			if err := chk.Batches(rows); err != nil {
				return err
			}
			if sinks.Batches != nil {
				return sinks.Batches(rows)
			}
			return nil
		},
		Evidence: f.evidence,
		Entries: func(bs []scan.EntryBatch) error {
			for i := range bs {
				reps.Entries(&bs[i])
			}
			return f.entries(bs)
		},
		Records: func(rows []analysis.PayloadRecordRow) error {
			reps.Records(rows)
			live := f.live.rows(rows)
			if values != nil {
				values.rows(live)
			}
			if err := f.records(rows, live); err != nil {
				return err
			}
			if sinks.Records != nil {
				return sinks.Records(live)
			}
			return nil
		},
		File: func(ev *scan.FileEvent) error {
			reps.File(ev)
			store.scanned.File(ev)
			if ev.Row.Kind == scan.KindBrokerLog {
				logs.Files++
				logs.Lines += ev.LogStats.Lines
				logs.Unparsed += ev.LogStats.Unparsed
				logs.Events += int64(len(ev.Events))
				logEvents = append(logEvents, ev.Events...)
			}
			return chk.File(ev)
		},
	}
	res, err := scan.Run(ctx, inputs, cfg, out)
	if err != nil {
		return nil, err
	}
	if err := store.finish(inputs, chk); err != nil {
		return nil, err
	}
	if f.attr != nil {
		chk.AddCompactedTopics(f.attr.configs.CompactedTopics())
		chk.AddTopicRetention(topicRetention(f.attr.configs))
		chk.AddRemoteSegments(f.attr.remote.Rows(nil))
		reps.AddCompactedTopics(f.attr.configs.CompactedTopics())
	}
	chk.EmptyDirs(res.EmptyDirs)
	chk.Unselected(res.Unselected)
	for _, a := range res.Anomalies {
		if a.Kind == finding.KindArchiveDamaged {
			chk.ArchiveEnded(a.Input, res.ArchiveLast[a.Input])
		}
	}
	cr := chk.Finish()
	reps.Unread = cr.UnreadCopy
	rep := reps.Compare()
	cr.AddLosses(rep.Gaps)
	r := &Result{Scan: res, Check: cr, Replicas: rep, attr: f.attr, BrokerLogs: logs, events: logEvents,
		cons: f.cons, sources: sources, clusters: newClusterMemo(reps.ClusterOf)}
	sessions, sessionFindings := f.tracker.Sessions(res.Snapshots)
	all := append(res.Anomalies, cr.Findings...)
	all = append(all, rep.Findings...)
	all = append(all, sessionFindings...)
	all = append(all, f.finishAttribution(r, sessions, sources)...)
	for i := range sessions {
		sessions[i].Source = sources[sessions[i].Input]
	}
	r.Txns = f.tracker.Transactions(txnContext(res, chk, f.attr, sources, r.ClusterOf))
	all = append(all, r.Txns.Findings...)
	all = append(all, store.found...)
	all = append(all, emptyInputs(inputs, res.Files)...)
	all = append(all, values.findings()...)
	all = reported(o.Scan.Topic, all, cr)
	for i := range all {
		all[i].Source = sources[all[i].Input]
	}
	check.SortFindings(all)
	res.Anomalies = all
	if sim != nil {
		r.Recovery = sim.Finish(recovery.Inputs{Files: res.Files, Findings: all, Checkpoint: chk.Checkpoint, IndexEnd: chk.OffsetIndexEnd,
			Source: func(in int32) string { return sources[in] }})
	}
	r.Sessions = sessions
	if f.attr != nil {
		r.RemoteSegments = f.attr.remote.Rows(func(in int32) string { return sources[in] })
		store.match(r.RemoteSegments)
	}
	r.prepareDetector(o.Detector, reps.ClusterOf)
	r.count(cr.Omitted)
	return r, nothingRead(inputs, o, res, cr.Kafka)
}

// prepareDetector hands det, when there is one, what it needs beside the
// records before it groups them: the cluster of each partition dir, and
// the groups' commits and generations, which explain the copies a
// consume-transform-produce application wrote twice.
func (r *Result) prepareDetector(det *dups.Detector, clusterOf func(input int32, dir string) string) {
	if det == nil {
		return
	}
	det.SetClusters(clusterOf)
	if r.cons != nil {
		det.SetConsumers(r.Commits(), r.Groups())
	}
}

// finishAttribution attributes the producer sessions and transactions once
// every input is read, and returns the findings of the attribution and of
// the consumer offsets; nothing without attribution.
func (f *feed) finishAttribution(r *Result, sessions []analysis.ProducerRow, sources []string) []analysis.AnomalyRow {
	if f.attr == nil {
		return nil
	}
	// A cluster's __transaction_state and metadata log usually lie on
	// other brokers than its data: facts read from one log dir attribute
	// the PIDs of the others of the same cluster, and of no other
	// cluster's, even in the same input.
	f.attr.a.Cluster = r.ClusterOf
	f.attr.a.Finish()
	txns := f.attr.a.Transactions()
	for i := range txns {
		txns[i].Source = sources[txns[i].Input]
	}
	r.consIdx = f.cons.Index(r.ClusterOf)
	for i := range sessions {
		f.attr.a.AnnotateProducer(&sessions[i])
	}
	return append(append([]analysis.AnomalyRow{}, f.attr.anomalies...), f.cons.Findings()...)
}

// nothingRead is the error of a run that read nothing to report on: a
// topic filter that kept no partition, or inputs without a Kafka file.
func nothingRead(inputs []*source.Input, o Options, res *scan.Result, kafka int64) error {
	if o.Scan.Topic != nil && len(res.Partitions) == 0 {
		return &NoTopicMatchError{Pattern: o.Scan.Topic.String()}
	}
	if kafka == 0 {
		return noKafkaData(inputs, res.Anomalies)
	}
	return nil
}

// NoTopicMatchError says that the topic filter kept no partition of the
// inputs: a run that read nothing would otherwise report "0 findings", as
// if it had checked something.
type NoTopicMatchError struct{ Pattern string }

func (e *NoTopicMatchError) Error() string {
	return fmt.Sprintf("no partition matches the topic filter %q", e.Pattern)
}

// txnContext is what the transactions are judged with: the attribution's
// transactional ids and __transaction_state records, that topic's
// partition count, the checkpointed high watermarks, the snapshots and the
// log dirs' broker ids.
func txnContext(res *scan.Result, chk *check.Checker, attr *attributor, sources []string, cluster func(int32, string) string) producer.TxnContext {
	c := producer.TxnContext{HighWatermark: chk.HighWatermark, Snapshots: res.Snapshots, Cluster: cluster,
		Source: func(in int32) string {
			if int(in) < len(sources) {
				return sources[in]
			}
			return ""
		}}
	// One input may hold several brokers' log dirs: a partition dir's
	// broker is its own log dir's.
	type logDir struct {
		input int32
		dir   string
	}
	brokers := map[logDir]int32{}
	var dirCount int32
	stateDirs := map[stateOrigin]map[int32]bool{} // __transaction_state partitions held
	// The partitions of __transaction_state read only as evidence count.
	for _, p := range slices.Concat(res.Partitions, res.Evidence) {
		if k := (logDir{p.Input, path.Dir(p.Dir)}); p.BrokerID != nil {
			if _, ok := brokers[k]; !ok {
				brokers[k] = *p.BrokerID
			}
		}
		if p.Topic == "__transaction_state" && p.DirState == "" {
			dirCount = max(dirCount, p.Partition+1)
			o := originOf(cluster, p.Input, p.Dir)
			if stateDirs[o] == nil {
				stateDirs[o] = map[int32]bool{}
			}
			stateDirs[o][p.Partition] = true
		}
	}
	c.Broker = func(in int32, dir string) int32 {
		if b, ok := brokers[logDir{in, path.Dir(dir)}]; ok {
			return b
		}
		return -1
	}
	if dirCount > 0 {
		c.TxnStatePartitions, c.CountFrom = dirCount, producer.CountFromDirs
	}
	if attr != nil {
		c.TransactionalID = attr.a.TransactionalID
		c.TxnState = attr.a.Transactions()
		if n := attr.configs.Partitions("__transaction_state"); n > 0 {
			c.TxnStatePartitions, c.CountFrom = n, producer.CountFromMetadata
			c.TxnStateComplete = txnStateComplete(stateDirs, cluster, n)
		}
	}
	return c
}

// stateOrigin is the cluster of a log dir, or, when it is unknown, the
// input: the log dirs of one known cluster hold its __transaction_state
// together, whatever their inputs; those of unknown cluster, with the
// others of unknown cluster in the same input.
type stateOrigin struct {
	input   int32 // -1 for a known cluster
	cluster string
}

func originOf(cluster func(int32, string) string, input int32, dir string) stateOrigin {
	if cl := cluster(input, dir); cl != "" {
		return stateOrigin{-1, cl}
	}
	return stateOrigin{input, ""}
}

// txnStateComplete tells, per partition dir, whether the log dirs of its
// cluster (see stateOrigin) hold all n partitions of __transaction_state
// (stateDirs: the partitions each holds), counted once for all.
func txnStateComplete(stateDirs map[stateOrigin]map[int32]bool, cluster func(int32, string) string, n int32) func(int32, string) bool {
	return func(in int32, dir string) bool {
		return int32(len(stateDirs[originOf(cluster, in, dir)])) == n
	}
}

// emptyInputs are findings for the inputs that hold no Kafka file while
// others do.
func emptyInputs(inputs []*source.Input, files []analysis.FileRow) []analysis.AnomalyRow {
	kafka := make([]int, len(inputs))
	for _, f := range files {
		if f.Kind != "unknown" && int(f.Input) < len(kafka) {
			kafka[f.Input]++
		}
	}
	var out []analysis.AnomalyRow
	for i, in := range inputs {
		if kafka[i] == 0 && len(files) > 0 && in.Kind != source.Remote {
			w := finding.Where{Input: int32(i), Partition: -1, File: path.Base(in.Path)}
			out = append(out, finding.New(w, finding.KindNotKafkaData, -1, -1, "%s holds no Kafka file: %s", in.Path, expected))
		}
	}
	return out
}

const expected = "expected a broker log dir, a partition dir (<topic>-<partition>), a segment, index, snapshot or checkpoint file, or a .tar, .tar.gz or .tar.zst of them"

// NoKafkaData is the error for inputs that hold no Kafka file, for the
// commands that read them without a pipeline run (records); findings may
// say what kept the files from being seen.
func NoKafkaData(inputs []*source.Input, findings []analysis.AnomalyRow) error {
	return noKafkaData(inputs, findings)
}

func noKafkaData(inputs []*source.Input, findings []analysis.AnomalyRow) error {
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.Path
	}
	why, n := "", 0
	for _, a := range findings {
		// What kept Kafka files from being seen: a damaged or mislabelled
		// archive, an unreadable dir.
		if (finding.AboutArchive(a.Kind) || a.Kind == finding.KindIOError) && n < 3 {
			why += "; " + a.File + ": " + a.Message
			n++
		}
	}
	return fmt.Errorf("%w in %s: %s%s", ErrNoKafkaData, strings.Join(names, ", "), expected, why)
}

// count recomputes the finding counts of the summary, the files and the
// partitions from the run's findings (plus those counted but not listed).
func (r *Result) count(omitted finding.Tally) {
	res := r.Scan
	type fileKey struct {
		input int32
		path  string
	}
	perFile := map[fileKey]int64{}
	worst := map[fileKey]finding.Severity{}
	perCopy, notes := map[*scan.PartitionSummary]int64{}, map[*scan.PartitionSummary]int64{}
	copies := newCopyFinder(res.Partitions)
	counts := finding.Tally{}
	for i, a := range res.Anomalies {
		if a.Kind != finding.KindFindingsOmitted {
			// The scan's omitted findings are counted by kind below; the
			// checks' own capped rows stand for their kind.
			counts[finding.KindSeverity{Kind: a.Kind, Severity: a.Severity}] += a.Stands()
		}
		k := fileKey{a.Input, a.File}
		// A findings-omitted row counts the findings it stands for: the
		// counts stay exact past the listing cap.
		perFile[k] += a.Stands()
		if w, ok := worst[k]; !ok || finding.Rank(a.Severity) < finding.Rank(w) {
			worst[k] = a.Severity
		}
		if p := copies.find(&res.Anomalies[i]); p != nil {
			perCopy[p] += a.Stands()
			if a.Severity == finding.Note {
				notes[p] += a.Stands()
			}
		}
	}
	for k, n := range omitted {
		counts[k] += n
	}
	res.Findings, res.Errors, r.Warnings = nil, 0, 0
	for k, n := range counts {
		switch k.Severity {
		case finding.Error:
			res.Errors += n
		case finding.Warning:
			r.Warnings += n
		}
		res.Findings = append(res.Findings, scan.FindingCount{Kind: k.Kind, Severity: k.Severity, Count: n})
	}
	sort.Slice(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.Severity != b.Severity {
			return finding.Rank(a.Severity) < finding.Rank(b.Severity)
		}
		return a.Kind < b.Kind
	})
	for i := range res.Files {
		f := &res.Files[i]
		k := fileKey{f.Input, f.Path}
		if f.Status == "unreadable" || f.Status == "skipped" {
			f.Findings = max(f.Findings, perFile[k])
			continue
		}
		f.Findings = perFile[k]
		switch {
		case f.Kind == "unknown":
			f.Status = "other"
		case worst[k] == finding.Error:
			f.Status = "damaged"
		case worst[k] == finding.Warning:
			f.Status = "warnings"
		case perFile[k] > 0:
			f.Status = "notes"
		default:
			f.Status = "ok"
		}
	}
	for _, p := range res.Partitions {
		p.Findings, p.Notes = perCopy[p], notes[p]
	}
}

// AnnotateDuplicates wraps a duplicates writer to fill the attribution
// columns and add what they say to the explanations of later copies.
func (r *Result) AnnotateDuplicates(write func([]analysis.DuplicateRow) error) func([]analysis.DuplicateRow) error {
	if r.attr == nil {
		return func(rows []analysis.DuplicateRow) error {
			for i := range rows {
				rows[i].ConsumedBy = []string{}
			}
			return write(rows)
		}
	}
	a := r.attr.a
	return func(rows []analysis.DuplicateRow) error {
		for i := range rows {
			d := &rows[i]
			a.AnnotateDuplicate(d)
			if d.PIDChange == analysis.PIDChangeIdempotentRestart && d.Class != dups.ClassRestartResend {
				d.PIDChange = "" // no restart, whatever the PIDs
			}
			d.ConsumedBy = consumers.Groups(r.consIdx.ConsumedPast(d.Input, d.Dir, d.Topic, d.Partition, d.Offset))
			if d.Explanation != "" { // none under dups.Options.NoExplanations
				d.Explanation += dups.AttributionNote(d)
				if d.Class != "" {
					if s := r.consIdx.Text(d.Input, d.Dir, d.Topic, d.Partition, d.Offset, d.Offset); s != "" {
						d.Explanation += "; " + s
					}
				}
			}
		}
		return write(rows)
	}
}

// ClusterOf returns the cluster of the partition dir dir of input (the
// dir of its files' paths): the cluster.id of its log dir's
// meta.properties, else the input's when its log dirs name one and no
// other, else "" (see replicas.Collector.ClusterOf). Every analysis keys
// its partitions, producers and groups by it: one input may hold the
// log dirs of two clusters.
func (r *Result) ClusterOf(input int32, dir string) string { return r.clusters.of(input, dir) }

// Commits and Groups are the rows of commits.parquet and groups.parquet
// (nil without attribution).
func (r *Result) Commits() []analysis.CommitRow {
	if r.cons == nil {
		return nil
	}
	return r.cons.Commits(r.sources)
}

// Groups: see Commits.
func (r *Result) Groups() []analysis.GroupRow {
	if r.cons == nil {
		return nil
	}
	return r.cons.Groups(r.sources)
}

// Transactions and PIDBlocks are the attribution's tables (nil without
// attribution).
func (r *Result) Transactions() []analysis.TransactionRow {
	if r.attr == nil {
		return nil
	}
	return r.attr.a.Transactions()
}

// ClusterEvents are the cluster's history in time order: the KRaft
// metadata log replayed (with attribution) and the events of the brokers'
// own log files.
func (r *Result) ClusterEvents() []analysis.ClusterEventRow {
	var out []analysis.ClusterEventRow
	if r.attr != nil {
		out = r.attr.events.Rows()
	}
	// kafkaServer.out repeats what the console appender prints of
	// server.log: an entry of one dir's logs read twice is one event.
	type key struct {
		input      int32
		dir        string
		ts         int64
		kind, text string
	}
	seen := map[key]bool{}
	for _, e := range r.events {
		k := key{e.Input, path.Dir(e.File), -1, e.Kind, e.Details}
		if e.Time != nil {
			k.ts = *e.Time
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	cluster.SortEvents(out)
	return out
}

// PIDBlocks: see Transactions.
func (r *Result) PIDBlocks() []analysis.PIDBlockRow {
	if r.attr == nil {
		return nil
	}
	return r.attr.a.PIDBlocks()
}

// Failed reports whether the run must say so in its exit status with
// --fail-on-findings (verify always): an error or warning was found, or
// the loss ledger holds a range of either severity (whatever the
// findings beside it: offsets lost are never a clean run).
func (r *Result) Failed() bool { return r.Scan.Errors+r.Warnings > 0 || r.LossCopies() > 0 }

// LossCopies counts the partition copies with a range of the loss ledger
// of severity error or warning, unread ones (UnreadCopies) included.
func (r *Result) LossCopies() int {
	n, _ := r.lossCopies()
	return n
}

// UnreadCopies counts the partition copies whose every range of severity
// error or warning is unread: the archive ended before their data, which
// says nothing of whether the broker's data is lost (their verdicts say
// UNREAD).
func (r *Result) UnreadCopies() int {
	_, n := r.lossCopies()
	return n
}

func (r *Result) lossCopies() (all, unread int) {
	type copyKey struct {
		input int32
		dir   string
	}
	unreadOnly := map[copyKey]bool{}
	if r.Check != nil {
		for _, g := range r.Check.Gaps {
			if g.Severity == finding.Error || g.Severity == finding.Warning {
				k := copyKey{g.Input, g.Dir}
				u, seen := unreadOnly[k]
				unreadOnly[k] = (u || !seen) && g.Cause == check.CauseUnread
			}
		}
	}
	for _, u := range unreadOnly {
		if u {
			unread++
		}
	}
	return len(unreadOnly), unread
}

// Incomplete reports whether some input could not be read in full (an
// unreadable file, a damaged archive): the run analysed everything else.
func (r *Result) Incomplete() bool {
	if r.Scan.Unreadable > 0 {
		return true
	}
	for _, a := range r.Scan.Anomalies {
		if a.Kind == finding.KindArchiveDamaged || a.Kind == finding.KindIOError {
			return true
		}
	}
	return false
}

// ConsumedText says which consumer groups committed past offsets first..
// last of a partition copy ("" when none did, or without attribution).
func (r *Result) ConsumedText(input int32, dir, topic string, partition int32, first, last int64) string {
	return r.consIdx.Text(input, dir, topic, partition, first, last)
}
