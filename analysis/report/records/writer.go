// Package records prints what a records run finds: one line per record
// by a format of tokens, or JSON lines with each payload's encoding, and
// the run's findings, absent offsets and read statistics.
package records

import (
	"bufio"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/segment"
)

// Options say how a Writer prints.
type Options struct {
	// JSON writes one object per record and finding; Format is then unused.
	JSON bool
	// Format is the text line of a record.
	Format Format
	// Encoding is how payload bytes print.
	Encoding payloadenc.Encoding
}

// Writer prints records to one output and findings to the error stream
// (to the output with JSON). Its Record and Finding are a records.Sink.
type Writer struct {
	o        Options
	out      *bufio.Writer
	errw     io.Writer
	findings int
	buf      []byte
	sources  []string
	// archiveFindings are the findings that can keep Kafka files from
	// being seen (a damaged archive, an unreadable dir), for the error of
	// inputs that hold none.
	archiveFindings []analysis.AnomalyRow
	incomplete      bool
}

// New returns a Writer; sources name the inputs, by index, for findings
// that do not name their own. Call Flush when done.
func New(o Options, out, errw io.Writer, sources []string) *Writer {
	return &Writer{o: o, out: bufio.NewWriterSize(out, 256<<10), errw: errw, sources: sources}
}

// Flush writes what is buffered.
func (w *Writer) Flush() error { return w.out.Flush() }

// Findings is how many findings that count (not notes) were printed.
func (w *Writer) Findings() int { return w.findings }

// Incomplete reports whether a finding said that an input was not read
// in full (a damaged archive, an I/O error).
func (w *Writer) Incomplete() bool { return w.incomplete }

// ArchiveFindings are the first findings that can keep Kafka files from
// being seen, to explain inputs in which none were found.
func (w *Writer) ArchiveFindings() []analysis.AnomalyRow { return w.archiveFindings }

// Finding prints a finding.
func (w *Writer) Finding(r analysis.AnomalyRow) {
	// As for the other commands, an input not read in full fails the run.
	if r.Kind == finding.KindArchiveDamaged || r.Kind == finding.KindIOError {
		w.incomplete = true
	}
	if (finding.AboutArchive(r.Kind) || r.Kind == finding.KindIOError) && len(w.archiveFindings) < 3 {
		w.archiveFindings = append(w.archiveFindings, r)
	}
	if r.Source == "" && int(r.Input) < len(w.sources) {
		r.Source = w.sources[r.Input]
	}
	if finding.Counts(r.Severity) {
		w.findings++
	}
	if w.o.JSON {
		payloadenc.WriteLine(w.out, struct {
			Type string `json:"type"`
			analysis.AnomalyRow
		}{"finding", r})
		return
	}
	w.out.Flush() // keep the two streams in order for a reader of both
	text.Wrap(w.errw, "finding: "+text.FindingLine(r.File, &r), "", "    ")
}

// recordJSON is one JSON line: the records table's column names, each
// payload with its encoding (dump's JSON conventions).
type recordJSON struct {
	Type          string       `json:"type"`
	Source        string       `json:"source"`
	File          string       `json:"file"`
	BatchPosition int64        `json:"batch_position"`
	Topic         string       `json:"topic"`
	Partition     int32        `json:"partition"`
	Offset        int64        `json:"offset"`
	Timestamp     any          `json:"timestamp"`
	TimestampType string       `json:"timestamp_type"`
	ProducerID    int64        `json:"producer_id"`
	ProducerEpoch int16        `json:"producer_epoch"`
	Sequence      int32        `json:"sequence"`
	Key           any          `json:"key"`
	KeyEncoding   any          `json:"key_encoding"`
	Value         any          `json:"value"`
	ValueEncoding any          `json:"value_encoding"`
	ValueFraming  string       `json:"value_framing,omitempty"`
	Headers       []headerJSON `json:"headers"`
	CRCValid      bool         `json:"crc_valid"`
	Copy          *string      `json:"copy"`
	IsControl     bool         `json:"is_control,omitempty"`
	ControlName   string       `json:"control_type,omitempty"`
	ControlType   *int16       `json:"control_type_id,omitempty"`
}

type headerJSON struct {
	Key           string `json:"key"`
	Value         any    `json:"value"`
	ValueEncoding any    `json:"value_encoding"`
}

// Record prints a record.
func (w *Writer) Record(r *records.Record) error {
	enc := w.o.Encoding
	if !w.o.JSON {
		w.buf = w.o.Format.appendMarks(w.buf[:0], r)
		w.buf = w.o.Format.appendText(w.buf, enc, r)
		_, err := w.out.Write(w.buf)
		return err
	}
	j := recordJSON{Type: "record", Source: r.Source, File: r.File, BatchPosition: r.Position, Topic: r.Topic, Partition: r.Partition,
		Offset: r.Offset, Timestamp: payloadenc.NonNegative(r.Timestamp), TimestampType: r.TimestampType.String(),
		ProducerID: r.ProducerID, ProducerEpoch: r.ProducerEpoch, Sequence: r.Sequence, CRCValid: r.CRCValid,
		Headers: make([]headerJSON, len(r.Headers)), IsControl: r.IsControl}
	if r.Copy != "" {
		j.Copy = &r.Copy
	}
	j.Key, j.KeyEncoding = enc.EncodeJSON(r.Key)
	if r.Decoded != nil {
		j.Value, j.ValueEncoding = string(r.Decoded), r.DecodedEncoding
	} else {
		j.Value, j.ValueEncoding = enc.EncodeJSON(r.Value)
		j.ValueFraming = r.ValueNote
	}
	for i, h := range r.Headers {
		v, e := enc.EncodeJSON(h.Value)
		j.Headers[i] = headerJSON{Key: string(h.Key), Value: v, ValueEncoding: e}
	}
	if r.IsControl {
		ct := r.ControlType
		j.ControlType, j.ControlName = &ct, segment.ControlTypeName(ct)
	}
	payloadenc.WriteLine(w.out, &j)
	return nil
}
