// Package scan is the engine of `ksleuth scan`: it reads every file of the
// inputs found by package source, checks and decodes them, and produces the
// rows of the tables scan writes together with a per-partition summary.
//
// Files of directory inputs are processed by a bounded group of Jobs
// workers; an archive is read as one stream, entry after entry. Inside a
// segment, batches are framed and checked in order by one goroutine while
// they are decoded and fingerprinted, in runs of up to 256 KiB, on a shared
// pool of Jobs decoders (each with its own segment.Decoder) when Jobs > 1;
// results are merged back in file order, so a single large segment does
// not pin the run to one core.
//
// Batch and record rows are streamed to Output as they are produced, in a
// deterministic order that does not depend on Jobs: files in input order
// (for directories, lexical path order, which within a partition is offset
// order; for archives, archive order), batches in file order. The one
// exception is records of transactions: they are held until the
// transaction's COMMIT or ABORT marker is read (or the end of the run, when
// they are "open") so that their txn_state is known when they are written.
// Memory is bounded by Jobs and Config.HeldBudget, not by the size of the
// input: records of unfinished transactions beyond that budget wait in a
// temporary file under Config.TmpDir. The smaller tables (files, anomalies,
// snapshots) are returned whole, sorted. Every row carries its input's
// Source (see Sources).
package scan

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
)

// Config tunes a scan.
type Config struct {
	// Jobs bounds the files processed at once and the batch decoders;
	// 0 means runtime.NumCPU().
	Jobs int
	// Records produces record rows (Output.Records); Payload adds keys,
	// values and headers to them.
	Records, Payload bool
	// Compact hands data records to Output.Entries as compact entries
	// (what the duplicate detector needs) instead of Output.Records rows:
	// no 272-byte row built, copied and cleared per record. Records of the
	// topics KeepPayload names still come as rows. Set it when no records
	// table is written.
	Compact bool
	// KeepPayload, when set, names the topics whose record rows carry
	// their key and value even without Payload: the internal topics,
	// whose records later passes decode (the pipeline sets it).
	KeepPayload func(topic string) bool
	// BrokerLogs, when set, reads the brokers' own log files (server.log,
	// ...) for the cluster timeline; without it they are files of no known
	// kind. The pipeline sets it.
	BrokerLogs *BrokerLogReader
	// Hash computes the SHA-256 of every input file (files.parquet
	// sha256, the report's input hashes); without it the column is empty.
	Hash bool
	// HexFingerprints fills the rows' Fingerprint (32 hex digits) besides
	// FP; only a records table needs the text form.
	HexFingerprints bool
	// Topic keeps only partitions whose topic matches; the others are
	// named in Result.Unselected and, when Evidence names their topic,
	// read for Output.Evidence alone (evidence.go).
	Topic    *regexp.Regexp
	Evidence func(topic string) bool
	// Progress, when set, is called (from any goroutine) with the number of
	// input bytes just read.
	Progress func(n int64)
	// FileDone, when set, is called by the collecting goroutine after each
	// file's rows have been handed to Output.
	FileDone func(path string)
	// Segment holds reader limits; Path is set per file.
	Segment segment.Options
	// HeldBudget bounds the memory holding the records of transactions
	// whose marker has not been read yet (DefaultHeldBudget when 0);
	// beyond it they are moved to a temporary file in TmpDir ("" = the
	// system's), removed when Run returns.
	HeldBudget int64
	TmpDir     string
	// DecodeOnce, without Records, decodes the records of a data batch
	// only if no batch with the same topic, partition, offsets, leader
	// epoch and CRC has decoded cleanly from another file already: the
	// copies of a partition on several brokers are the same batches, and
	// a CRC-valid copy of a clean batch is clean too. Every copy's CRC is
	// still checked.
	DecodeOnce bool
	// HeadersOnly, without Records or Compact, decodes no v2 data batch
	// whose CRC holds (markers and legacy message sets still are): for
	// comparing batches, not records (replicas). Result.NotDecoded counts.
	HeadersOnly bool
	notDecoded  *atomic.Int64
	once        *onceSet
	same        *sameFiles
	copies      *copyCount
}

// Output receives the streamed tables. A nil func discards its rows.
// The slices are reused after the call returns.
type Output struct {
	Batches func([]analysis.BatchRow) error
	Records func([]analysis.PayloadRecordRow) error
	// Evidence gets the record rows of the partitions Config.Topic leaves
	// out and Config.Evidence names.
	Evidence func([]analysis.PayloadRecordRow) error
	// Entries gets the data and control records with Config.Compact;
	// their Entries slices are reused once it returns.
	Entries func([]EntryBatch) error
	// File gets each file's outcome once its batch rows have gone to
	// Batches, in the same order. When it is set, the findings are its to
	// keep: Result.Anomalies then holds only findings about whole inputs
	// (a damaged archive).
	File func(*FileEvent) error
}

// FileEvent is one file's outcome: its row, the reader's findings about
// it, and the bytes of an index, producer snapshot or state file, which
// the integrity checker parses against the rest of its partition.
type FileEvent struct {
	Entry     *source.Entry
	Row       *analysis.FileRow
	Anomalies []analysis.AnomalyRow
	// Omitted counts findings past MaxFileAnomalies by kind and severity.
	Omitted finding.Tally
	// Data is the whole file for index, snapshot and state files read
	// within their size limits, nil otherwise.
	Data []byte
	// Events are a broker log's events (source broker-log), LogStats
	// its line counts.
	Events   []analysis.ClusterEventRow
	LogStats analysis.LogLineStats
}

// EntryBatch is the entries of one batch with what they share.
type EntryBatch struct {
	Input         int32
	Source        string
	Topic         string
	Partition     int32
	Segment       string
	BatchPosition int64
	ProducerID    int64
	ProducerEpoch int32
	// Damaged: the batch failed its CRC or not all its records decoded.
	Damaged bool
	// LogAppendTime: the broker stamped the records' timestamps on append.
	LogAppendTime bool
	// SoleCopy: no other input or log dir of the run holds this
	// partition, so nothing compares its records with another copy's
	// (false when it is not known: an archive input is not listed ahead).
	SoleCopy bool
	// pending: a transactional data batch, held by the collector until
	// its producer's marker gives its entries their state.
	pending bool
	Entries []analysis.RecordEntry // the compact records (Config.Compact)
}

// PartitionSummary is one line of the human summary: the vocabulary's
// row, with what the scan needs to fill it.
type PartitionSummary struct {
	analysis.PartitionSummary

	codecs    []string
	producers idSet
	logDir    string
}

// FindingCount counts anomalies of one kind and severity; the outputs
// read it as the vocabulary's type.
type FindingCount = analysis.FindingCount

// Result is what a completed scan found, besides the streamed rows.
type Result struct {
	Files      []analysis.FileRow
	Anomalies  []analysis.AnomalyRow
	Snapshots  []analysis.SnapshotRow
	Partitions []*PartitionSummary
	Findings   []FindingCount
	// Errors counts anomalies of severity "error"; Unreadable the files
	// that could not be read (I/O errors).
	Errors, Unreadable int64
	// Batches, Records and Bytes are totals over all inputs.
	Batches, Records, Bytes int64
	// HeldSpilled is how many bytes of records of unfinished transactions
	// went to the temporary file beyond Config.HeldBudget (0: none).
	HeldSpilled int64
	// DecodedElsewhere counts the batches whose records were not decoded
	// because a copy of them had been (Config.DecodeOnce).
	DecodedElsewhere int64
	// NotDecoded counts the batches Config.HeadersOnly left undecoded.
	NotDecoded int64
	// IdenticalFiles counts the segment files found byte-identical to a
	// copy of an earlier input and not read again (Config.DecodeOnce).
	IdenticalFiles int64
	// EmptyDirs are the partition dirs of dir and archive inputs that
	// hold no file (source.Input.List, source.Options.EmptyDir): no file
	// row stands for them.
	EmptyDirs []*source.Entry
	// Unselected holds one entry of each partition dir the topic filter
	// left out; Evidence the partitions read only for Output.Evidence.
	Unselected []*source.Entry
	Evidence   []*PartitionSummary
	// ArchiveLast is, per archive input that ended on a problem, the last
	// entry header it read (source.ArchiveError.Last).
	ArchiveLast map[int32]string
}

// Run scans the inputs. It returns ctx.Err() when cancelled, and an error
// from Output or an archive that cannot be read; damaged data is never an
// error but anomalies in the result.
func Run(ctx context.Context, inputs []*source.Input, cfg Config, out Output) (*Result, error) {
	if cfg.Jobs <= 0 {
		cfg.Jobs = runtime.NumCPU()
	}
	if cfg.DecodeOnce && !cfg.Records {
		if !cfg.HeadersOnly { // which decodes no data batch at all
			cfg.once = &onceSet{m: map[onceKey]struct{}{}}
		}
		cfg.same = &sameFiles{m: map[sameKey]*sameFile{}}
	}
	cfg.copies = &copyCount{}
	cfg.notDecoded = new(atomic.Int64)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s := &scanner{cfg: cfg, out: out, parts: map[analysis.PartitionKey]*PartitionSummary{}, brokers: map[string]int32{}, dirIndex: map[string]int32{}, omitted: finding.Tally{}, archiveLast: map[int32]string{},
		// Rows and entries are never both produced for one record, so
		// each may take the whole budget.
		pending:        newHeld(cfg.HeldBudget, cfg.TmpDir, rowCodec),
		pendingEntries: newHeld(cfg.HeldBudget, cfg.TmpDir, entryCodec),
		sources:        Sources(inputs), damaged: map[batchKey]bool{}}
	if err := TmpOutside(cfg.TmpDir, inputs); err != nil {
		// Refused only when a spill is needed: most scans hold little.
		s.pending.refuse, s.pendingEntries.refuse = err, err
	}
	defer s.pending.close()
	defer s.pendingEntries.close()
	if cfg.Jobs > 1 {
		s.pool = newPool(ctx, cfg)
		defer s.pool.close()
	}
	s.filter.sel.re = cfg.Topic
	opts := s.sourceOptions()
	listed, emptyDirs := listAhead(inputs, opts, cfg)
	s.emptyDirs = emptyDirs
	for _, in := range inputs {
		var err error
		if in.Kind == source.Archive {
			err = s.runArchive(ctx, in, opts)
		} else {
			err = s.runFiles(ctx, cancel, in, opts, listed[in])
		}
		if err == nil {
			err = context.Cause(ctx)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := s.flushOpenTxns(); err != nil {
		return nil, err
	}
	if err := s.flush(); err != nil {
		return nil, err
	}
	return s.result(), nil
}

type txnKey struct {
	part analysis.PartitionKey
	pid  int64
}

// scanner holds the collecting side of a run: everything in it is touched
// only by the goroutine that called Run.
type scanner struct {
	cfg  Config
	out  Output
	pool *pool

	batchBuf  []analysis.BatchRow
	recordBuf []analysis.PayloadRecordRow

	files []analysis.FileRow
	// fileDirs is the log dir of each file row (an index into dirKeys),
	// for broker ids: a log dir's key is kept once, not once a file.
	fileDirs  []int32
	dirKeys   []string
	dirIndex  map[string]int32
	anomalies []analysis.AnomalyRow
	omitted   finding.Tally // findings counted but not listed (MaxFileAnomalies)
	snapshots []analysis.SnapshotRow
	parts     map[analysis.PartitionKey]*PartitionSummary
	brokers   map[string]int32 // log dir key -> broker.id/node.id
	pending   *heldTxns[analysis.PayloadRecordRow]
	// The same for Config.Compact: entries, and the batches of entries of
	// transactions not yet ended.
	entryBuf       []EntryBatch
	nEntries       int
	pendingEntries *heldTxns[EntryBatch]
	sources        []string
	damaged        map[batchKey]bool // damaged batches, to mark their records
	emptyDirs      []*source.Entry
	archiveLast    map[int32]string
	filter         topicFilter // evidence.go
}

type batchKey struct {
	input    int32
	segment  string
	position int64
}

func (s *scanner) runArchive(ctx context.Context, in *source.Input, opts source.Options) error {
	w := newWorker(s.cfg, s.pool)
	defer w.close()
	// The archive's empty partition dirs, as a dir input's are listed.
	opts.EmptyDir = func(e *source.Entry) { s.emptyDirs = append(s.emptyDirs, e) }
	err := in.Stream(ctx, opts, func(e *source.Entry, r io.Reader) error {
		err := w.process(ctx, e, r, s.collect)
		if err == nil && s.cfg.FileDone != nil {
			s.cfg.FileDone(e.Path)
		}
		return err
	})
	var ae *source.ArchiveError
	if errors.As(err, &ae) {
		// A problem with the archive itself (damage, no tar at all,
		// trailing data): what came before it was scanned; it is a
		// finding about the archive, and the other inputs are still
		// scanned.
		w := finding.Where{Input: int32(in.Index), Partition: -1, File: filepath.Base(in.Path)}
		s.anomalies = append(s.anomalies, finding.NewSev(w, ae.Kind(), ae.Severity(), ae.Offset, -1, "%s", ae.Detail()))
		s.archiveLast[int32(in.Index)] = ae.Last
		return nil
	}
	return err
}

// runFiles processes a directory or file input: Jobs workers take files in
// order, and the collector takes their rows in the same order.
// runFiles reads a dir or file input's entries, listed is they when Run
// listed them already.
func (s *scanner) runFiles(ctx context.Context, cancel context.CancelCauseFunc, in *source.Input, opts source.Options, listed []*source.Entry) error {
	entries := listed
	if entries == nil {
		var err error
		if entries, err = in.Files(opts); err != nil {
			return err
		}
	}
	// Each entry gets a row: room for them at once, not by doubling
	// (which held the old and the new array at the peak).
	s.files = slices.Grow(s.files, len(entries))
	s.fileDirs = slices.Grow(s.fileDirs, len(entries))
	type task struct {
		e  *source.Entry
		ch chan chunk
	}
	ordered := make(chan *task, 2*s.cfg.Jobs)
	work := make(chan *task)
	var wg sync.WaitGroup
	go func() {
		defer close(ordered)
		defer close(work)
		for _, e := range entries {
			t := &task{e, make(chan chunk, 4)}
			select {
			case ordered <- t:
			case <-ctx.Done():
				return
			}
			select {
			case work <- t:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range s.cfg.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(s.cfg, s.pool)
			defer w.close()
			for t := range work {
				err := w.process(ctx, t.e, nil, func(c chunk) error {
					select {
					case t.ch <- c:
						return nil
					case <-ctx.Done():
						return context.Cause(ctx)
					}
				})
				if err != nil {
					cancel(err)
				}
				close(t.ch)
			}
		}()
	}
	defer wg.Wait()
	for t := range ordered {
		for done := false; !done; {
			select {
			case c, ok := <-t.ch:
				if !ok {
					done = true
					break
				}
				if err := s.collect(c); err != nil {
					cancel(err)
					return err
				}
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		if err := context.Cause(ctx); err != nil {
			return err
		}
		if s.cfg.FileDone != nil {
			s.cfg.FileDone(t.e.Path)
		}
	}
	return nil
}

// chunk is a piece of one file's output, in order; the last chunk of a
// file carries its file row.
type chunk struct {
	batches  []analysis.BatchRow
	records  [][]analysis.PayloadRecordRow // per batch
	entries  []EntryBatch                  // per batch, with Config.Compact
	nrecords int
	file     *fileDone
}

func (s *scanner) collect(c chunk) error {
	for i := range c.batches {
		b := &c.batches[i]
		b.Source = s.sources[b.Input]
		if !b.CRCValid || b.DecodedRecords < b.RecordCount {
			s.damaged[batchKey{b.Input, b.Segment, b.Position}] = true
		}
	}
	for i := range c.batches {
		if s.filter.sel.in(c.batches[i].Topic) {
			s.batchBuf = append(s.batchBuf, c.batches[i])
		}
	}
	batchSlices.put(c.batches)
	for _, rows := range c.records {
		// The rows of one batch share input, segment, batch and producer.
		r0 := &rows[0]
		source, dir := s.sources[r0.Input], analysis.PartitionDir(r0.Segment)
		damaged := len(s.damaged) > 0 && s.damaged[batchKey{r0.Input, r0.Segment, r0.BatchPosition}]
		var key txnKey // built on first use: only transactions need it
		for i := range rows {
			r := &rows[i]
			r.Source, r.Dir, r.Damaged = source, dir, damaged
			switch {
			case r.TxnState == txnPending:
				if key.part.Dir == "" {
					key = txnKey{analysis.PartitionOf(r.Input, r.Segment), r.ProducerID}
				}
				if err := s.pending.add(key, *r); err != nil {
					return err
				}
				continue
			case r.IsControl && (r.TxnState == txnCommitted || r.TxnState == txnAborted):
				if key.part.Dir == "" {
					key = txnKey{analysis.PartitionOf(r.Input, r.Segment), r.ProducerID}
				}
				if err := s.endRows(key, r.TxnState); err != nil {
					return err
				}
			}
			s.recordBuf = append(s.recordBuf, *r)
		}
		rowSlices.put(rows)
	}
	for _, eb := range c.entries {
		eb.Source = s.sources[eb.Input]
		eb.Damaged = len(s.damaged) > 0 && s.damaged[batchKey{eb.Input, eb.Segment, eb.BatchPosition}]
		if err := s.collectEntries(eb); err != nil {
			return err
		}
	}
	entryBatchSlices.put(c.entries)
	if len(s.batchBuf) >= 1024 || len(s.recordBuf) >= 4096 || len(s.entryBuf) >= 1024 || s.nEntries >= 4096 {
		if err := s.flush(); err != nil {
			return err
		}
	}
	if c.file != nil {
		return s.fileDone(c.file)
	}
	return nil
}

// collectEntries is collect's transaction bookkeeping for one batch of
// entries, as it is for rows: a transactional data batch is held until its
// producer's marker in that partition, which sets the state of every held
// entry; the marker's own batch follows them.
func (s *scanner) collectEntries(eb EntryBatch) error {
	if len(eb.Entries) == 0 {
		return nil
	}
	switch first := &eb.Entries[0]; {
	case eb.pending:
		return s.pendingEntries.add(txnKey{analysis.PartitionOf(eb.Input, eb.Segment), eb.ProducerID}, eb)
	case first.Control:
		for _, e := range eb.Entries {
			if e.Control && (e.Txn == analysis.TxnCommitted || e.Txn == analysis.TxnAborted) {
				if err := s.endEntries(txnKey{analysis.PartitionOf(eb.Input, eb.Segment), eb.ProducerID}, e.Txn); err != nil {
					return err
				}
			}
		}
	}
	s.entryBuf = append(s.entryBuf, eb)
	s.nEntries += len(eb.Entries)
	return nil
}

// endEntries gives the held entries of a transaction their final state
// and queues them for output.
func (s *scanner) endEntries(key txnKey, state analysis.TxnState) error {
	return s.pendingEntries.take(key, s.entriesEnded(state))
}

// endRows is endEntries for record rows.
func (s *scanner) endRows(key txnKey, state string) error {
	return s.pending.take(key, s.rowsEnded(state))
}

// entriesEnded returns what queues a held batch of entries with state,
// flushing as the queue fills: a transaction may hold more than fits in
// memory.
func (s *scanner) entriesEnded(state analysis.TxnState) func(*EntryBatch) error {
	return func(held *EntryBatch) error {
		for i := range held.Entries {
			held.Entries[i].Txn = state
		}
		held.pending = false
		s.entryBuf = append(s.entryBuf, *held)
		if s.nEntries += len(held.Entries); s.nEntries >= 4096 {
			return s.flush()
		}
		return nil
	}
}

// rowsEnded is entriesEnded for record rows.
func (s *scanner) rowsEnded(state string) func(*analysis.PayloadRecordRow) error {
	return func(r *analysis.PayloadRecordRow) error {
		r.TxnState = state
		if s.recordBuf = append(s.recordBuf, *r); len(s.recordBuf) >= 4096 {
			return s.flush()
		}
		return nil
	}
}

// flushOpenTxns writes the records of transactions that never ended in the
// input, in the order their transactions were first seen.
func (s *scanner) flushOpenTxns() error {
	if err := s.pendingEntries.takeOpen(s.entriesEnded(analysis.TxnOpen)); err != nil {
		return err
	}
	return s.pending.takeOpen(s.rowsEnded(txnOpen))
}

func (s *scanner) flush() error {
	if len(s.batchBuf) > 0 && s.out.Batches != nil {
		if err := s.out.Batches(s.batchBuf); err != nil {
			return err
		}
	}
	sel, ev := s.splitRows(s.recordBuf)
	if len(sel) > 0 && s.out.Records != nil {
		if err := s.out.Records(sel); err != nil {
			return err
		}
	}
	if len(ev) > 0 && s.out.Evidence != nil {
		if err := s.out.Evidence(ev); err != nil {
			return err
		}
	}
	s.entryBuf = s.selectedEntries(s.entryBuf)
	if len(s.entryBuf) > 0 && s.out.Entries != nil {
		if err := s.out.Entries(s.entryBuf); err != nil {
			return err
		}
	}
	for _, eb := range s.entryBuf {
		entrySlices.put(eb.Entries)
	}
	clear(s.batchBuf)
	clear(s.recordBuf)
	clear(s.entryBuf)
	s.batchBuf, s.recordBuf, s.entryBuf, s.nEntries = s.batchBuf[:0], s.recordBuf[:0], s.entryBuf[:0], 0
	return nil
}

func (s *scanner) fileDone(f *fileDone) error {
	if f.row.Topic != nil && !s.filter.sel.in(*f.row.Topic) {
		s.evidenceDone(f)
		return nil
	}
	if s.out.File != nil {
		// The file's batches go first: the checker replays them before
		// it reads the file's findings.
		if err := s.flush(); err != nil {
			return err
		}
		row := f.row
		row.Source = s.sources[row.Input]
		if err := s.out.File(&FileEvent{Entry: f.entry, Row: &row, Anomalies: f.anomalies, Omitted: f.omitted, Data: f.data,
			Events: f.events, LogStats: f.logStats}); err != nil {
			return err
		}
	} else {
		s.anomalies = append(s.anomalies, f.anomalies...)
		for k, n := range f.omitted {
			s.omitted[k] += n
		}
	}
	s.files = append(s.files, f.row)
	d := s.logDir(f)
	s.fileDirs = append(s.fileDirs, d)
	s.snapshots = append(s.snapshots, f.snapshots...)
	if f.brokerID != nil {
		s.brokers[f.logDir] = *f.brokerID
	}
	if f.partKey == (analysis.PartitionKey{}) {
		return nil
	}
	p := s.parts[f.partKey]
	if p == nil {
		p = &PartitionSummary{PartitionSummary: analysis.PartitionSummary{Input: f.row.Input, Dir: f.partDir, Topic: *f.row.Topic,
			Partition: *f.row.Partition, DirState: f.dirState}, logDir: f.logDir}
		s.parts[f.partKey] = p
	}
	p.Findings += f.row.Findings
	if !f.segment || f.row.Suffix != "" {
		return nil // a segment in transit repeats batches of the live log
	}
	p.Segments++
	p.Bytes += f.row.Size
	p.Batches += f.row.Batches
	p.Records += f.row.Records
	if f.row.FirstOffset != nil && (p.First == nil || *f.row.FirstOffset < *p.First) {
		p.First = f.row.FirstOffset
	}
	if f.row.LastOffset != nil && (p.Last == nil || *f.row.LastOffset > *p.Last) {
		p.Last = f.row.LastOffset
	}
	if f.agg.minTs >= 0 && (p.FirstTime == nil || f.agg.minTs < *p.FirstTime) {
		v := f.agg.minTs
		p.FirstTime = &v
	}
	if f.agg.maxTs >= 0 && (p.LastTime == nil || f.agg.maxTs > *p.LastTime) {
		v := f.agg.maxTs
		p.LastTime = &v
	}
	for c := range f.agg.codecs {
		p.codecs = addCodec(p.codecs, c)
	}
	for id := range f.agg.producers {
		p.producers.add(id)
	}
	return nil
}

func (s *scanner) result() *Result {
	s.selectedEmptyDirs()
	r := &Result{Files: s.files, Anomalies: s.anomalies, Snapshots: s.snapshots, HeldSpilled: s.pending.end + s.pendingEntries.end,
		DecodedElsewhere: s.cfg.once.skipped(), IdenticalFiles: s.cfg.same.identicalFiles(),
		NotDecoded: s.cfg.notDecoded.Load(), EmptyDirs: s.emptyDirs, ArchiveLast: s.archiveLast,
		Unselected: s.filter.unselected.sorted(), Evidence: s.evidenceParts()}
	for i := range r.Anomalies {
		r.Anomalies[i].Source = s.sources[r.Anomalies[i].Input]
	}
	for i := range r.Snapshots {
		r.Snapshots[i].Source = s.sources[r.Snapshots[i].Input]
	}
	brokerIDs := make([]*int32, len(s.dirKeys)) // one per log dir, shared by its rows
	for d, key := range s.dirKeys {
		if id, ok := s.brokers[key]; ok {
			brokerIDs[d] = &id
		}
	}
	for i := range r.Files {
		r.Files[i].Source = s.sources[r.Files[i].Input]
		r.Files[i].BrokerID = brokerIDs[s.fileDirs[i]]
		r.Bytes += r.Files[i].Size
		r.Batches += r.Files[i].Batches
		r.Records += r.Files[i].Records
		if r.Files[i].Status == statusUnreadable {
			r.Unreadable++
		}
	}
	sort.SliceStable(r.Files, func(i, j int) bool {
		a, b := &r.Files[i], &r.Files[j]
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		return a.Path < b.Path
	})
	sort.SliceStable(r.Anomalies, func(i, j int) bool {
		a, b := &r.Anomalies[i], &r.Anomalies[j]
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return deref(a.Position, -1) < deref(b.Position, -1)
	})
	sort.SliceStable(r.Snapshots, func(i, j int) bool {
		a, b := &r.Snapshots[i], &r.Snapshots[j]
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		return a.File < b.File
	})
	counts := finding.Tally{}
	for _, a := range r.Anomalies {
		if a.Kind != KindFindingsOmitted {
			counts[finding.KindSeverity{Kind: a.Kind, Severity: a.Severity}]++
		}
	}
	for k, n := range s.omitted {
		counts[k] += n
	}
	for k, n := range counts {
		if k.Severity == finding.Error {
			r.Errors += n
		}
	}
	for k, n := range counts {
		r.Findings = append(r.Findings, FindingCount{Kind: k.Kind, Severity: k.Severity, Count: n})
	}
	sort.Slice(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.Severity != b.Severity {
			return a.Severity < b.Severity // error before note
		}
		return a.Kind < b.Kind
	})
	s.summarizeEmptyDirs()
	for _, p := range s.parts {
		p.Codecs = append(p.Codecs, p.codecs...)
		sort.Strings(p.Codecs)
		p.Producers = p.producers.len()
		p.codecs, p.producers = nil, idSet{}
		if id, ok := s.brokers[p.logDir]; ok {
			p.BrokerID = &id
		}
		r.Partitions = append(r.Partitions, p)
	}
	sort.Slice(r.Partitions, func(i, j int) bool {
		a, b := r.Partitions[i], r.Partitions[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		return a.Dir < b.Dir
	})
	return r
}

func deref(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}
