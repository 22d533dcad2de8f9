package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
)

const decodeValuesHelp = "auto: decode record values in the Confluent wire format (Avro, JSON Schema; Protobuf recognised) with the schemas of the inputs' _schemas topic; none: raw bytes"

func checkDecodeValues(v string) error {
	switch v {
	case "auto", "none":
		return nil
	}
	return usageError{fmt.Errorf("--decode-values must be auto or none, not %q", v)}
}

// schemaDirs are the _schemas partition dirs of the log dirs that files
// are in: dump reads single files, and the registry's topic lives beside
// them, in the same log dir.
func schemaDirs(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, name := range files {
		abs, err := filepath.Abs(name)
		if err != nil {
			continue
		}
		logDir := filepath.Dir(filepath.Dir(abs))
		if seen[logDir] {
			continue
		}
		seen[logDir] = true
		ents, err := os.ReadDir(logDir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if pd, ok := source.ParsePartitionDir(e.Name()); ok && e.IsDir() && pd.Topic == payload.SchemasTopic && pd.State == "" {
				out = append(out, filepath.Join(logDir, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out
}

// loadDumpRegistry builds the registry for `dump --payload` from the
// _schemas partitions beside the dumped files, and reports the registry's
// findings once.
func (d *dumper) loadDumpRegistry(ctx context.Context, files []string) {
	d.registry = payload.NewRegistry()
	dirs := schemaDirs(files)
	if len(dirs) == 0 {
		return
	}
	ins, err := source.Classify(dirs)
	if err == nil {
		var reg *payload.Registry
		if reg, err = payload.Load(ctx, ins); err == nil {
			d.registry = reg
		}
	}
	if err != nil {
		d.out.Flush()
		fmt.Fprintf(d.errw, "ksleuth: reading the _schemas topic: %v\n", err)
		return
	}
	for _, f := range d.registry.Findings() {
		// Findings name files relative to their input, a partition dir.
		file := f.File
		if int(f.Input) < len(dirs) {
			file = filepath.Join(dirs[f.Input], f.File)
		}
		d.noteFinding(file, f.Kind, f.Severity, valueOr(f.Position), valueOr(f.Offset), f.Message)
	}
}

func valueOr(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func (d *dumper) noteFinding(file string, kind finding.Kind, sev finding.Severity, pos, off int64, msg string) {
	if finding.Counts(sev) {
		d.findings++
	}
	if d.o.json {
		d.writeJSON(map[string]any{"type": "finding", "file": file, "kind": kind, "severity": sev,
			"position": nonNegative(pos), "offset": nonNegative(off), "message": msg})
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

// decodeValue decodes a record's value for --payload when it is in the
// Confluent wire format; ok is false when it is not, or --decode-values is
// none. A value whose schema is known but that does not decode is a note,
// which the caller reports after the record (undecodedNote).
func (d *dumper) decodeValue(r *segment.Record) (payload.Decoded, bool) {
	if d.registry == nil || d.topicName == "" {
		return payload.Decoded{}, false
	}
	return d.registry.DecodeValue(d.topicName, r.Value)
}

func (d *dumper) undecodedNote(name string, b *segment.Batch, r *segment.Record, dec payload.Decoded) {
	d.noteFinding(name, finding.KindPayloadUndecoded, finding.Note, b.Position, r.Offset,
		fmt.Sprintf("value with schema id %d not decoded: %v", dec.SchemaID, dec.Err))
}

// valueText is the text form of a value in the wire format: its framing
// in brackets, then the JSON it decoded to, or the raw bytes.
func (d *dumper) valueText(r *segment.Record, dec payload.Decoded) string {
	desc := dec.Describe()
	if dec.Err != nil {
		desc += ", not decoded: " + dec.Err.Error()
	}
	if dec.JSON != nil {
		return "[" + desc + "] " + string(dec.JSON)
	}
	return "[" + desc + "] " + d.encodePayload(r.Value)
}

// valueJSON adds a decoded value to a record's --json object: the schema
// id, the format, the JSON value itself and why it did not decode.
func valueJSON(m map[string]any, dec payload.Decoded) {
	m["value_schema_id"] = dec.SchemaID
	m["value_format"] = nil
	if f := dec.Format(); f != "" {
		m["value_format"] = f
	}
	m["value_decoded"] = nil
	if dec.JSON != nil {
		m["value_decoded"] = json.RawMessage(dec.JSON)
	}
	if dec.MessageIndexes != nil {
		m["value_message_indexes"] = dec.MessageIndexes
	}
	if dec.Err != nil {
		m["value_error"] = dec.Err.Error()
	}
}
