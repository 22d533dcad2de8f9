package dump

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// finding reports damage the segment reader found in file name.
func (d *Dumper) finding(name string, f *segment.CorruptionError) {
	r := finding.FromCorruption(finding.Where{Partition: -1, File: name}, f)
	if r.Kind == finding.KindTruncated {
		finding.GradeTruncated(&r, tornPlace(name))
	}
	// The grading adds why to the reader's message; the text line keeps
	// the reader's spelling of where.
	d.row(name, r, f.Length, f.Error()+strings.TrimPrefix(r.Message, f.Err.Error()))
}

// row reports a finding: text is its error-stream line ("" to build one).
func (d *Dumper) row(name string, r analysis.AnomalyRow, length int64, text string) {
	if finding.Counts(r.Severity) {
		d.findings++
	}
	if d.o.JSON {
		off := any(nil)
		if r.Offset != nil {
			off = *r.Offset
		}
		pos := any(nil)
		if r.Position != nil {
			pos = *r.Position
		}
		payloadenc.WriteLine(d.out, map[string]any{
			"type": "finding", "file": name, "kind": r.Kind, "severity": r.Severity,
			"position": pos, "length": length, "offset": off, "message": r.Message,
		})
		return
	}
	if text == "" {
		text = fmt.Sprintf("%s: at byte %#x (%d): %s", name, *r.Position, *r.Position, r.Message)
	}
	// Keep the two streams in order for a reader watching both.
	d.out.Flush()
	fmt.Fprintf(d.errw, "finding: %s [%s, %s]\n", text, r.Kind, r.Severity)
}

// decodeFinding reports a record of an internal topic that did not decode,
// graded as every command grades it (finding.DecodeSeverity).
func (d *Dumper) decodeFinding(name string, b *segment.Batch, r *segment.Record, err error) {
	d.findings++
	kind := topics.Kind(err)
	sev := finding.DecodeSeverity(kind)
	f := &topics.Finding{Path: name, Position: b.Position, Offset: r.Offset, Err: err}
	if d.o.JSON {
		payloadenc.WriteLine(d.out, map[string]any{
			"type": "finding", "file": name, "kind": kind, "severity": sev,
			"position": b.Position, "offset": r.Offset, "base_offset": b.BaseOffset, "message": err.Error(),
		})
		return
	}
	d.out.Flush()
	fmt.Fprintf(d.errw, "finding: %s [%s, %s]\n", f.Error(), kind, sev)
}

// noteFinding reports a finding with a byte position and an offset, each
// -1 when unknown.
func (d *Dumper) noteFinding(file string, kind finding.Kind, sev finding.Severity, pos, off int64, msg string) {
	if finding.Counts(sev) {
		d.findings++
	}
	if d.o.JSON {
		payloadenc.WriteLine(d.out, map[string]any{"type": "finding", "file": file, "kind": kind, "severity": sev,
			"position": payloadenc.NonNegative(pos), "offset": payloadenc.NonNegative(off), "message": msg})
		return
	}
	d.out.Flush()
	s := fmt.Sprintf("finding: %s", file)
	if pos >= 0 {
		s += fmt.Sprintf(" at byte %d", pos)
	}
	if off >= 0 {
		s += fmt.Sprintf(" (offset %d)", off)
	}
	fmt.Fprintf(d.errw, "%s: %s [%s, %s]\n", s, msg, kind, sev)
}

func (d *Dumper) indexFindings(fs []*segment.IndexFinding) {
	for _, x := range fs {
		d.stateFinding(finding.FromIndex(finding.Where{Partition: -1, File: x.Path}, x))
	}
}

// stateFindings reports what parsing a state file found, and a leftover
// of an atomic rewrite by its name.
func (d *Dumper) stateFindings(name string, kind snapshot.Kind, err error) {
	w := finding.Where{Partition: -1, File: name}
	if leftover := snapshot.ParseName(filepath.Base(name)); leftover.Leftover {
		msg := "leftover of an atomic rewrite that was never renamed (the broker crashed or was killed while writing it)"
		if errors.Is(err, snapshot.ErrEmpty) {
			// The crash came before any byte was written: nothing is lost,
			// and the broker ignores the file.
			msg = "empty " + msg
			err = nil
		}
		d.stateFinding(finding.New(w, finding.KindLeftover, -1, -1, "%s", msg))
	}
	for _, f := range finding.FromState(w, kind, err) {
		d.stateFinding(f)
	}
}

// stateFinding reports a problem found while parsing a non-log file: on
// the error stream in text, in the stream with JSON.
func (d *Dumper) stateFinding(f analysis.AnomalyRow) {
	if finding.Counts(f.Severity) {
		d.findings++
	}
	pos, line := int64(-1), 0
	if f.Position != nil {
		pos = *f.Position
	}
	if f.Line != nil {
		line = int(*f.Line)
	}
	if d.o.JSON {
		// A finding about the whole file has a null position, as in
		// anomalies.parquet, and one of a binary file a null line.
		payloadenc.WriteLine(d.out, map[string]any{"type": "finding", "file": f.File, "kind": f.Kind, "severity": f.Severity,
			"position": f.Position, "line": f.Line, "message": f.Message})
		return
	}
	d.out.Flush()
	where := fmt.Sprintf("at byte %#x (%d)", pos, pos)
	if line > 0 {
		where = fmt.Sprintf("line %d", line)
	} else if pos < 0 {
		where = "whole file"
	}
	fmt.Fprintf(d.errw, "finding: %s: %s: %s [%s, %s]\n", f.File, where, f.Message, f.Kind, f.Severity)
}
