package dump

import (
	"errors"
	"path/filepath"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/analysis/report/text"
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
	d.row(name, r, f.Length)
}

// row reports a finding of a segment, with the length of the damaged
// bytes in JSON.
func (d *Dumper) row(name string, r analysis.AnomalyRow, length int64) {
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
	d.textFinding(name, &r)
}

// textFinding writes a finding to the error stream in the one layout of
// every text output's findings (text.FindingLine).
func (d *Dumper) textFinding(name string, r *analysis.AnomalyRow) {
	// Keep the two streams in order for a reader watching both.
	d.out.Flush()
	text.Wrap(d.errw, "finding: "+text.FindingLine(name, r), "", "    ")
}

// decodeFinding reports a record of an internal topic that did not decode,
// graded as every command grades it (finding.DecodeSeverity).
func (d *Dumper) decodeFinding(name string, b *segment.Batch, r *segment.Record, err error) {
	d.findings++
	kind := topics.Kind(err)
	sev := finding.DecodeSeverity(kind)
	if d.o.JSON {
		payloadenc.WriteLine(d.out, map[string]any{
			"type": "finding", "file": name, "kind": kind, "severity": sev,
			"position": b.Position, "offset": r.Offset, "base_offset": b.BaseOffset, "message": err.Error(),
		})
		return
	}
	row := finding.FromDecode(finding.Where{Partition: -1, File: name}, kind, b.Position, r.Offset, err)
	d.textFinding(name, &row)
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
	row := finding.NewSev(finding.Where{Partition: -1, File: file}, kind, sev, pos, off, "%s", msg)
	d.textFinding(file, &row)
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
	if d.o.JSON {
		// A finding about the whole file has a null position, as in
		// anomalies.parquet, and one of a binary file a null line.
		payloadenc.WriteLine(d.out, map[string]any{"type": "finding", "file": f.File, "kind": f.Kind, "severity": f.Severity,
			"position": f.Position, "line": f.Line, "message": f.Message})
		return
	}
	d.textFinding(f.File, &f)
}
