package scan

import (
	"path"

	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// File statuses in files.parquet.
const (
	statusOK         = "ok"
	statusNotes      = "notes"
	statusDamaged    = "damaged"
	statusSkipped    = "skipped"
	statusUnreadable = "unreadable"
)

// Transaction states of records.parquet; txnPending is internal.
const (
	txnNone      = "none"
	txnCommitted = "committed"
	txnAborted   = "aborted"
	txnOpen      = "open"
	txnPending   = "pending"
)

// Size limits for files read whole. Index files are at most
// segment.index.bytes (10 MiB by default, preallocated); state files are a
// few lines each.
const (
	maxIndexBytes = 64 << 20
	maxStateBytes = 4 << 20
)

// parallelBatchBytes: uncompressed and lz4 batches smaller than this are
// decoded inline by the framing goroutine: copying them for the pool costs
// about what fingerprinting them does, and the file's hasher already keeps
// a second core busy.
const parallelBatchBytes = 64 << 10

// slowCodec reports whether batches of codec c go to the decode pool
// whatever their size: gzip, zstd and snappy decode slowly enough that a
// second core pays for the hand-over. LZ4 decodes at about 1 GB/s a core:
// the copy, the wake-up and the cache misses of handing its small batches
// over cost a third more CPU than decoding them inline, and on two vCPUs
// a single lz4 segment scanned no faster with the pool than without
// (docs/performance.md). Large batches of any codec still go to the pool.
func slowCodec(c segment.Codec) bool {
	switch c {
	case segment.CodecGzip, segment.CodecZstd, segment.CodecSnappy:
		return true
	}
	return false
}

// Batches go to the decode pool in groups of up to groupBytes of segment
// or groupBatches batches: handing over one small batch at a time (a
// channel send, a wake-up, a close) cost about as much as decoding it.
const (
	groupBytes   = 256 << 10
	groupBatches = 64
)

// maxPrealloc caps the record rows preallocated from a batch's record
// count, which comes from the wire.
const maxPrealloc = 1 << 12

// hexLen is the length of a fingerprint in hex digits.
const hexLen = 32

// worker processes one file at a time; it owns a Fingerprinter and uses
// the shared decode pool (nil with Jobs = 1).
type worker struct {
	cfg  Config
	pool *pool
	fp   *analysis.Fingerprinter
	hash hash.Hash
	// Per batch, a decode job and the batch row's two timestamps: jobs
	// are reused once their batch is done, timestamps come from slabs.
	free []*decodeJob
	ts   []int64
}

func newWorker(cfg Config, p *pool) *worker {
	return &worker{cfg: cfg, pool: p, fp: analysis.NewFingerprinter(), hash: sha256.New()}
}

func (w *worker) close() {}

// fileCtx is the per-file context rows are built from.
type fileCtx struct {
	e         *source.Entry
	input     int32
	topic     string
	partition int32
	done      *fileDone
	// internal: the topic is one whose records keep their payload
	// (Config.KeepPayload).
	internal bool
	// dataEnd is where the file's data ends; hole bytes of a hole follow
	// it to the end of the file, not read (holes.go). holes are the holes
	// before dataEnd, holeBytes their sum.
	dataEnd, hole int64
	holes         []source.DataRange
	holeBytes     int64
	// rec keeps the file's rows for byte-identical copies (same.go).
	rec *recorder
	// onceID names topic and partition in the DecodeOnce set, 0 until
	// first needed (once.go).
	onceID int32
	// soleCopy: no other dir of the run holds the partition (copies.go).
	soleCopy bool
}

// where places a finding in the file; anomaly adds its partition.
func (fc *fileCtx) where() finding.Where {
	return finding.Where{Input: fc.input, Partition: -1, File: fc.e.Path}
}

// anomaly keeps a finding of the file, or counts it past MaxFileAnomalies.
func (fc *fileCtx) anomaly(a analysis.AnomalyRow) {
	if d := fc.done; len(d.anomalies) >= MaxFileAnomalies && a.Kind != finding.KindIOError {
		if d.omitted == nil {
			d.omitted, d.omitAt = finding.Tally{}, map[finding.Severity][2]int64{}
		}
		d.omitted[finding.KindSeverity{Kind: a.Kind, Severity: a.Severity}]++
		if a.Position != nil {
			at, ok := d.omitAt[a.Severity]
			if !ok {
				at[0] = *a.Position
			}
			at[1] = *a.Position
			d.omitAt[a.Severity] = at
		}
		return
	}
	if fc.e.Partition != nil {
		a.Topic, a.Partition = &fc.e.Partition.Topic, &fc.e.Partition.Partition
	}
	fc.done.anomalies = append(fc.done.anomalies, a)
}

// MaxFileAnomalies is how many findings of one file are listed; past it
// they are counted (FindingCount, the file's findings) and said in a row
// of kind KindFindingsOmitted per severity. A segment whose every batch
// is damaged has two findings a batch, millions in a large file; each of
// its batches still has a row in the batches table.
var MaxFileAnomalies = 10000

// KindFindingsOmitted is the anomaly kind of the rows that stand for the
// findings of a file past MaxFileAnomalies, one per severity among them;
// each counts as the findings it stands for (AnomalyRow.Omitted).
const KindFindingsOmitted = finding.KindFindingsOmitted

// omittedRow appends the rows saying what was not listed, if anything:
// one per severity, carrying it, so that an omitted error is never shown
// as a note and each omitted finding counts at its own severity, also
// where only the table is read (dups --from-tables).
func (fc *fileCtx) omittedRow() {
	d := fc.done
	if len(d.omitted) == 0 {
		return
	}
	keys := slices.Collect(maps.Keys(d.omitted))
	slices.SortFunc(keys, func(a, b finding.KindSeverity) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Severity, b.Severity))
	})
	for _, severity := range finding.Severities {
		var total int64
		var parts []string
		for _, k := range keys {
			if k.Severity == severity {
				total += d.omitted[k]
				parts = append(parts, fmt.Sprintf("%d %s", d.omitted[k], k.Kind))
			}
		}
		if total == 0 {
			continue
		}
		at, ok := d.omitAt[severity]
		where := ""
		if ok {
			where = fmt.Sprintf(", at bytes %d to %d", at[0], at[1])
		}
		msg := fmt.Sprintf("%d more %s findings in this file are not listed (%s)%s: the first %d are; the batches table has a row for every batch, crc_valid included",
			total, severity, strings.Join(parts, ", "), where, MaxFileAnomalies)
		pos := int64(-1)
		if ok {
			pos = at[0]
		}
		a := finding.WithOmitted(finding.NewSev(fc.where(), KindFindingsOmitted, severity, pos, -1, "%s", msg), total)
		if fc.e.Partition != nil {
			a.Topic, a.Partition = &fc.e.Partition.Topic, &fc.e.Partition.Partition
		}
		d.anomalies = append(d.anomalies, a)
	}
}

func ptr[T any](v T) *T { return &v }

// isSegmentKind: files read batch by batch with the segment reader.
func isSegmentKind(k snapshot.Kind) bool {
	return k == snapshot.KindLog || k == snapshot.KindKRaftSnapshot || k == snapshot.KindBootstrapCheckpoint
}

// process reads one file (from r, or opened when r is nil), hashes it,
// and emits its rows; the last chunk carries the file row.
func (w *worker) process(ctx context.Context, e *source.Entry, r io.Reader, emit func(chunk) error) error {
	fc := &fileCtx{e: e, input: int32(e.Input), partition: -1}
	fd := &fileDone{logDir: fmt.Sprintf("%d\x00%s", e.Input, e.LogDir), entry: e}
	fc.done = fd
	fd.row = analysis.FileRow{Input: fc.input, Path: e.Path, Kind: e.Name.Kind.String(), Suffix: e.Name.Suffix, Size: e.Size}
	if e.Name.Leftover {
		fd.row.Suffix = leftoverSuffix(e.Path)
	}
	if e.Partition != nil {
		fc.topic, fc.partition = e.Partition.Topic, e.Partition.Partition
		fc.internal = w.cfg.KeepPayload != nil && w.cfg.KeepPayload(fc.topic)
		// The row points at the entry's partition dir, which the entries
		// of one dir share (package source), not at fc: rows are kept to
		// the end of the run, and one pointing into fc kept fc and the
		// whole fileDone alive, about 900 bytes a file.
		fd.row.Topic, fd.row.Partition = &e.Partition.Topic, &e.Partition.Partition
		fd.row.DirState = e.Partition.State
		fd.partKey = analysis.PartitionOf(fc.input, e.Path)
		fd.partDir = fd.partKey.Dir
		fd.dirState = e.Partition.State
		fc.soleCopy = w.cfg.copies.sole(e)
	}
	for _, w := range e.Warnings {
		fc.anomaly(finding.NewSev(fc.where(), w.Kind, finding.Warning, -1, -1, "%s", w.Message))
	}
	if e.Skipped != "" {
		if e.MissingData() {
			// A file the broker reads, by its name, that this copy holds
			// only as a link to nothing or to outside the input: its data
			// is not in the copy, and the run cannot say it is intact.
			return w.unreadable(fc, fmt.Errorf("%s: %s (%s: its data is not checked)", e.Path, e.Skipped, e.MissingWhat()), emit)
		}
		fd.row.Status = statusSkipped
		fc.anomaly(finding.New(fc.where(), finding.KindSkippedFile, -1, -1, "%s: %s", e.Path, e.Skipped))
		return emit(chunk{file: fd})
	}
	var (
		in       io.Reader
		hashed   <-chan hashResult // the file's SHA-256, computed beside the parse
		stopHash = func() {}
	)
	// An opened file's inputs are set up here, not in a function of their
	// own: what they hold (the file, its mapping, the hasher) is released
	// by defers when the file is done.
	if r == nil {
		f, err := e.Open()
		if err != nil {
			return w.unreadable(fc, err, emit)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return w.unreadable(fc, err, emit)
		}
		// A file is hashed by its own goroutine with ReadAt while the parse
		// reads it: SHA-256 costs about as much CPU as parsing an
		// uncompressed segment, and on its own core it adds no wall time.
		// The reader gets random access, so it checks a large batch's CRC
		// before streaming its records.
		//
		// Segments are mapped when the system allows it: the reader and
		// the hasher then work on the page cache's own pages, no read(2)
		// copy for either.
		var (
			ra     io.ReaderAt = f
			mapped *mappedInput
		)
		fc.dataEnd = st.Size()
		if isSegmentKind(e.Name.Kind) {
			// A hole to the end of the file (a preallocated segment) is
			// neither mapped nor read: one finding says what it is.
			// Holes before it are passed by the reader, seeking over them:
			// such a file is read, not mapped, as the mapping's hasher and
			// page release go by position through every page.
			fc.setHoles(source.FileDataRanges(f, st.Size()), st.Size())
			if len(fc.holes) == 0 {
				if data, unmap, err := mapFile(f, fc.dataEnd); err == nil {
					defer unmap()
					m := newMappedInput(data, w.cfg.Progress, w.cfg.Hash && fc.hashable())
					defer m.advance(int64(len(data)))
					in, ra, mapped = m, bytes.NewReader(data), m
				}
			}
		}
		if in == nil {
			fi := &fileInput{f: f, size: fc.dataEnd, progress: w.cfg.Progress}
			defer fi.reportRest()
			in = fi
		}
		defer fc.reportHole(w.cfg.Progress)
		if w.cfg.Hash && fc.hashable() {
			var hashCtx context.Context
			hashCtx, stopHash = context.WithCancel(ctx)
			defer stopHash()
			hashed = hashFile(hashCtx, ra, mapped, fc.dataEnd, fc.hole, fc.holes)
		}
	} else {
		in = w.streamInput(ctx, fc, r)
	}
	err := w.parse(ctx, fc, in, emit)
	sum, err := w.fileHash(ctx, fc, in, hashed, stopHash, err)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if errors.Is(err, errEmit) {
			return err
		}
		return w.unreadable(fc, err, emit)
	}
	if sum != nil {
		fd.row.SHA256 = hex.EncodeToString(sum)
	}
	fc.holeFindings(w.cfg.Hash)
	fd.countFindings()
	fc.omittedRow()
	return emit(chunk{file: fd})
}

// streamInput is the input of a file read as a stream r (an archive
// entry): counted for progress, hashed as it is read, and for a sparse
// segment entry, passed over its holes.
func (w *worker) streamInput(ctx context.Context, fc *fileCtx, r io.Reader) io.Reader {
	e := fc.e
	var in io.Reader = &countingReader{r, w.cfg.Progress}
	if w.cfg.Hash {
		w.hash.Reset()
		in = io.TeeReader(in, w.hash)
	}
	fc.dataEnd = e.Size
	if sr, ok := r.(source.SparseReader); ok && isSegmentKind(e.Name.Kind) {
		// As in a file, a sparse archive entry's trailing hole is never
		// read: the stream skips it after this returns, and the reader
		// seeks over the holes before it.
		fc.setHoles(sr.DataRanges(), e.Size)
		ei := &entryInput{ctx: ctx, sr: sr, r: in, end: fc.dataEnd, holes: fc.holes, progress: w.cfg.Progress}
		if w.cfg.Hash && fc.hashable() {
			ei.hash = w.hash
		}
		in = ei
	}
	return in
}

// parse reads the file from in with the parser of its kind, which adds
// its rows and findings to fc.
func (w *worker) parse(ctx context.Context, fc *fileCtx, in io.Reader, emit func(chunk) error) error {
	e, fd := fc.e, fc.done
	var err error
	switch k := e.Name.Kind; {
	case isSegmentKind(k):
		fd.segment = k == snapshot.KindLog
		m, mapped := in.(*mappedInput)
		if mapped && fd.segment {
			// A byte-identical copy of a segment read already (DecodeOnce).
			if f := w.cfg.same.identical(fc, m); f != nil {
				err = w.takeOver(fc, f, emit)
				break
			}
			fc.rec = w.cfg.same.recorder(fc)
			m.pass = w.cfg.same.startPass(fc)
		}
		first := len(fd.anomalies)
		if mapped {
			err = guardFaults(m.data, func() error { return w.segment(ctx, fc, in, emit) })
		} else {
			err = w.segment(ctx, fc, in, emit)
		}
		if err == nil {
			fc.rec.keep(fc, first)
		}
		if mapped {
			w.cfg.same.finishPass(fc, m, m.pass, err)
			m.pass = nil
		}
	case k == snapshot.KindIndex || k == snapshot.KindTimeIndex || k == snapshot.KindTxnIndex:
		err = w.index(fc, in)
	case k == snapshot.KindSnapshot:
		err = w.producerSnapshot(fc, in)
	case k.IsText():
		err = w.stateFile(fc, in)
	case k == snapshot.KindUnknown && w.cfg.BrokerLogs != nil && w.cfg.BrokerLogs.IsName(path.Base(e.Path)):
		// A broker's own log: its events go on the cluster timeline.
		fd.row.Kind = KindBrokerLog
		fd.events, fd.logStats, err = w.cfg.BrokerLogs.Parse(in, fc.input, e.Path)
	}
	return err
}

// fileHash is the file's SHA-256 once parsed (nil when not hashed), from
// the hasher beside the parse (hashed) or from the stream, read to its
// end; err is the parse's, which it passes on.
func (w *worker) fileHash(ctx context.Context, fc *fileCtx, in io.Reader, hashed <-chan hashResult, stopHash func(), err error) ([]byte, error) {
	var sum []byte
	switch {
	case hashed != nil:
		// Wait for the hasher even after a failed parse: the mapping it
		// may be reading is released when this returns.
		if err != nil {
			stopHash()
		}
		if h := <-hashed; err == nil {
			sum, err = h.sum, h.err
		}
	case err == nil && w.cfg.Hash && fc.hashable():
		if ei, ok := in.(*entryInput); ok {
			_, err = ei.Seek(ei.end-ei.pos, io.SeekCurrent)
		} else {
			_, err = io.Copy(io.Discard, in)
		}
		if err == nil {
			if err = hashZeros(ctx, w.hash, fc.hole); err == nil {
				sum = w.hash.Sum(nil)
			}
		}
	}
	return sum, err
}

// countFindings sets the file row's findings and status from the file's
// findings, those listed and those omitted past MaxFileAnomalies.
func (fd *fileDone) countFindings() {
	fd.row.Status = statusOK
	count := func(severity finding.Severity, n int64) {
		fd.row.Findings += n
		switch {
		case severity == finding.Error:
			fd.row.Status = statusDamaged
		case fd.row.Status == statusOK:
			fd.row.Status = statusNotes
		}
	}
	for _, a := range fd.anomalies {
		count(a.Severity, 1)
	}
	for k, n := range fd.omitted {
		count(k.Severity, n)
	}
}

// errEmit wraps errors from emit, which end the file without marking it
// unreadable.
var errEmit = errors.New("scan: output stopped")

// readStop is an input error met part way through a file: pos is the
// byte of the file where reading stopped (for a segment, the batch the
// reader could not finish), the io-error finding's position.
type readStop struct {
	err error
	pos int64
}

func (e *readStop) Error() string { return e.err.Error() }
func (e *readStop) Unwrap() error { return e.err }

func (w *worker) unreadable(fc *fileCtx, err error, emit func(chunk) error) error {
	fc.done.row.Status = statusUnreadable
	fc.done.row.SHA256 = ""
	pos := int64(-1)
	if rs, ok := errors.AsType[*readStop](err); ok {
		pos = rs.pos
	}
	fc.anomaly(finding.New(fc.where(), finding.KindIOError, pos, -1, "%s", err.Error()))
	fc.done.row.Findings++
	return emit(chunk{file: fc.done})
}

func leftoverSuffix(p string) string {
	for _, s := range []string{snapshot.SuffixTmp, snapshot.SuffixPart} {
		if len(p) > len(s) && p[len(p)-len(s):] == s {
			return s
		}
	}
	return ""
}

// segment reads a .log (or KRaft .checkpoint) file batch by batch.
func (w *worker) segment(ctx context.Context, fc *fileCtx, in io.Reader, emit func(chunk) error) error {
	opts := w.cfg.Segment
	opts.Path, opts.Size, opts.Holes = fc.e.Path, fc.dataEnd, fc.segmentHoles()
	// A long stretch of damage or zeros is read inside one Next: the
	// reader checks ctx every few MiB of it.
	opts.Interrupt = ctx.Err
	var rd *segment.Reader
	m, mapped := in.(*mappedInput)
	if mapped {
		opts.Size = int64(len(m.data))
		// Pages a long damaged stretch has been read through are released
		// (and progress reported) while the reader is still inside it.
		opts.Skipped = m.advance
		rd = segment.NewReaderBytes(m.data, opts)
	} else {
		rd = segment.NewReader(in, opts)
	}
	defer rd.Close()
	fd := fc.done
	fd.agg = segAgg{minTs: -1, maxTs: -1, lastPID: -1, codecs: map[string]bool{}, producers: map[int64]bool{}}
	var (
		out      chunk
		queue    jobQueue
		maxQueue = 4 * w.cfg.Jobs * groupBatches
		group    *jobGroup // batches gathered for the pool, not yet handed over
	)
	submitGroup := func() error {
		g := group
		group = nil
		return w.pool.submit(ctx, g)
	}
	send := func() error {
		if len(out.batches) == 0 && out.nrecords == 0 {
			return nil
		}
		fc.rec.add(out.batches)
		if err := emit(out); err != nil {
			return fmt.Errorf("%w: %w", errEmit, err)
		}
		out = chunk{}
		return nil
	}
	// finish moves the head of the queue into the output, waiting for its
	// decode when it runs on the pool.
	finish := func() error {
		j := queue.pop()
		if group != nil && j.done == group.done {
			if err := submitGroup(); err != nil {
				return err
			}
		}
		if j.done != nil {
			select {
			case <-j.done:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		w.batchDone(fc, j, &out)
		w.done(j)
		if len(out.batches) >= 1024 || out.nrecords >= 4096 {
			return send()
		}
		return nil
	}
	for rd.Next() {
		if mapped {
			m.advance(rd.Offset())
		}
		if f := rd.Finding(); f != nil {
			fc.anomaly(finding.FromCorruption(fc.where(), f))
			continue
		}
		b := rd.Batch()
		// Records of the internal topics (Config.KeepPayload) always carry
		// their key and value: the attribution and the consumers decode them.
		payload := w.cfg.Payload || w.cfg.Records && fc.internal
		j := w.job() // zeroed; filled field by field, see fillBatchRow
		j.fc = fc
		fillBatchRow(&j.row, fc, b, w.millis)
		j.deleteHorizon, j.records, j.payload = b.HasDeleteHorizon(), w.cfg.Records, payload
		// With DecodeOnce the batches decoded give entries too: the replica
		// comparison reads the fingerprints of batches the cleaner rewrote.
		j.hexFP, j.compact = w.cfg.HexFingerprints, w.cfg.Compact && (w.cfg.Records || w.cfg.once != nil) && !payload
		if w.cfg.HeadersOnly && !w.cfg.Records && !w.cfg.Compact && b.Magic >= 2 && b.CRCValid && !b.IsControl() && !b.Streamed() {
			// Batches compared, not records: the CRC covers them.
			j.n = b.NumRecords
			w.cfg.notDecoded.Add(1)
		} else if w.cfg.once.skip(fc, b) {
			// A copy of a batch that decoded cleanly from another file.
			j.n = b.NumRecords
		} else if w.pool != nil && !b.Streamed() && (slowCodec(b.Codec()) || b.Size() >= parallelBatchBytes) {
			if group == nil {
				group = &jobGroup{done: make(chan struct{})}
			}
			j.batch = b.Clone()
			j.done = group.done
			group.jobs = append(group.jobs, j)
			if group.bytes += b.Size(); group.bytes >= groupBytes || len(group.jobs) >= groupBatches {
				if err := submitGroup(); err != nil {
					return err
				}
			}
		} else {
			j.decode(rd.Records(), b, w.fp)
		}
		queue.push(j)
		for queue.len() > 0 && (queue.len() >= maxQueue || queue.front().ready()) {
			if err := finish(); err != nil {
				return err
			}
		}
	}
	for queue.len() > 0 {
		if err := finish(); err != nil {
			return err
		}
	}
	if err := rd.Err(); err != nil {
		// The input failed (an archive cut short, an I/O error): the
		// batches read before it are the copy's all the same, and the
		// ledger counts from them to where reading stopped.
		if serr := send(); serr != nil {
			return serr
		}
		return &readStop{err: err, pos: rd.Offset()}
	}
	return send()
}

// batchDone adds a decoded batch to the file's output and aggregates.
func (w *worker) batchDone(fc *fileCtx, j *decodeJob, out *chunk) {
	fd := fc.done
	w.cfg.once.done(j)
	if out.batches == nil {
		out.batches = batchSlices.get(0)
	}
	// The row is copied first and completed in place (see fillBatchRow).
	out.batches = append(out.batches, j.row)
	row := &out.batches[len(out.batches)-1]
	row.DecodedRecords = j.n
	row.ControlType = j.controlType
	row.HasMarker, row.MarkerType, row.MarkerEpoch, row.MarkerTimestamp = j.hasMarker, j.markerType, j.markerEpoch, j.markerTs
	row.DeleteHorizonSet = j.deleteHorizon
	if j.err != nil {
		a := finding.NewSev(fc.where(), finding.ReaderKind(j.err), finding.ReaderSeverity(j.err), j.err.Offset, row.BaseOffset, "%s", j.err.Err.Error())
		fc.anomaly(finding.WithProducer(a, row.ProducerID))
	}
	if len(j.rows) > 0 {
		// Each batch's rows are handed on as they are: the collector
		// copies them once, into its output buffer.
		out.records = append(out.records, j.rows)
		out.nrecords += len(j.rows)
	}
	if len(j.entries.Entries) > 0 {
		if out.entries == nil {
			out.entries = entryBatchSlices.get(0)
		}
		out.entries = append(out.entries, j.entries)
		out.nrecords += len(j.entries.Entries)
	}
	fd.row.Batches++
	fd.row.Records += int64(j.n)
	// The file row's offsets are its own until the file is done: moved in
	// place, not a new pointer for every batch.
	if fd.row.FirstOffset == nil {
		fd.row.FirstOffset = ptr(row.BaseOffset)
	} else if row.BaseOffset < *fd.row.FirstOffset {
		*fd.row.FirstOffset = row.BaseOffset
	}
	if fd.row.LastOffset == nil {
		fd.row.LastOffset = ptr(row.LastOffset)
	} else if row.LastOffset > *fd.row.LastOffset {
		*fd.row.LastOffset = row.LastOffset
	}
	a := &fd.agg
	if row.FirstTimestamp != nil && !j.deleteHorizon && *row.FirstTimestamp >= 0 && (a.minTs < 0 || *row.FirstTimestamp < a.minTs) {
		a.minTs = *row.FirstTimestamp
	}
	if row.MaxTimestamp != nil && *row.MaxTimestamp > a.maxTs {
		a.maxTs = *row.MaxTimestamp
	}
	// Runs of batches share codec and producer: skip the maps for them.
	if row.Codec != a.lastCodec {
		a.codecs[row.Codec] = true
		a.lastCodec = row.Codec
	}
	if row.ProducerID >= 0 && !row.IsControl && row.ProducerID != a.lastPID {
		if !a.producers[row.ProducerID] { // a lookup is cheaper than a store
			a.producers[row.ProducerID] = true
		}
		a.lastPID = row.ProducerID
	}
}

// job returns a zeroed decode job to fill: a reused one when there is
// one.
func (w *worker) job() *decodeJob {
	if n := len(w.free); n > 0 {
		j := w.free[n-1]
		w.free = w.free[:n-1]
		return j
	}
	return new(decodeJob)
}

// done takes back a job whose batch batchDone has handed on: nothing
// refers to it any more (the pool closed its group's done before).
func (w *worker) done(j *decodeJob) {
	*j = decodeJob{} // drop its rows, entries and strings
	if len(w.free) < 4096 {
		w.free = append(w.free, j)
	}
}

// millis is analysis.Millis with the value in a slab of the worker's: a
// batch row's timestamps are two pointers, and an allocation each was a
// noticeable part of the cost of a batch.
func (w *worker) millis(ts int64) *int64 {
	if ts == -1 {
		return nil
	}
	if len(w.ts) == cap(w.ts) {
		w.ts = make([]int64, 0, 512) // rows keep the old slab alive
	}
	w.ts = append(w.ts, ts)
	return &w.ts[len(w.ts)-1]
}

// fillBatchRow sets the fields of b's row in r, which must be zero (its
// decode results are set by batchDone). Field by field, in place: a row
// literal is assembled on the stack and copied out with wide loads that
// stall on its narrow stores, which showed as a third of the framing
// loop's samples.
func fillBatchRow(r *analysis.BatchRow, fc *fileCtx, b *segment.Batch, millis func(int64) *int64) {
	r.Input, r.Topic, r.Partition, r.Segment = fc.input, fc.topic, fc.partition, fc.e.Path
	r.Position, r.BaseOffset, r.LastOffset = b.Position, b.BaseOffset, b.LastOffset()
	r.RecordCount, r.Magic, r.Codec = b.NumRecords, int32(b.Magic), b.Codec().String()
	r.SizeBytes, r.CRC, r.CRCValid = b.Size(), int64(b.CRC), b.CRCValid
	r.IsTransactional, r.IsControl = b.IsTransactional(), b.IsControl()
	r.PartitionLeaderEpoch, r.ProducerID = b.PartitionLeaderEpoch, b.ProducerID
	r.ProducerEpoch, r.BaseSequence = int32(b.ProducerEpoch), b.BaseSequence
	r.FirstTimestamp, r.MaxTimestamp = millis(b.FirstTimestamp), millis(b.MaxTimestamp)
	r.TimestampType = b.TimestampType().String()
	r.SoleCopy = fc.soleCopy
}
