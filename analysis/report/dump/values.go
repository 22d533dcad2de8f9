package dump

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
)

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

// LoadRegistry builds the schema registry that decodes values (with
// Payload and DecodeValues; else it does nothing) from the _schemas
// partitions beside files, and reports the registry's findings once. An
// error is a _schemas topic that could not be read: values then print raw.
func (d *Dumper) LoadRegistry(ctx context.Context, files []string) error {
	if !d.o.Payload || !d.o.DecodeValues {
		return nil
	}
	d.registry = payload.NewRegistry()
	dirs := schemaDirs(files)
	if len(dirs) == 0 {
		return nil
	}
	ins, err := source.Classify(dirs)
	if err == nil {
		var reg *payload.Registry
		if reg, err = payload.Load(ctx, ins); err == nil {
			d.registry = reg
		}
	}
	if err != nil {
		return err
	}
	for _, f := range d.registry.Findings() {
		// Findings name files relative to their input, a partition dir.
		file := f.File
		if int(f.Input) < len(dirs) {
			file = filepath.Join(dirs[f.Input], f.File)
		}
		d.noteFinding(file, f.Kind, f.Severity, valueOr(f.Position), valueOr(f.Offset), f.Message)
	}
	return nil
}

func valueOr(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// decodeValue decodes a record's value when it is in the Confluent wire
// format; ok is false when it is not, or values are not decoded. A value
// whose schema is known but that does not decode is a note, which the
// caller reports after the record (undecodedNote).
func (d *Dumper) decodeValue(r *segment.Record) (payload.Decoded, bool) {
	if d.registry == nil || d.topicName == "" {
		return payload.Decoded{}, false
	}
	return d.registry.DecodeValue(d.topicName, r.Value)
}

func (d *Dumper) undecodedNote(name string, b *segment.Batch, r *segment.Record, dec payload.Decoded) {
	d.noteFinding(name, finding.KindPayloadUndecoded, finding.Note, b.Position, r.Offset,
		fmt.Sprintf("value with schema id %d not decoded: %v", dec.SchemaID, dec.Err))
}

// valueText is the text form of a value in the wire format: its framing
// in brackets, then the JSON it decoded to, or the raw bytes.
func (d *Dumper) valueText(r *segment.Record, dec payload.Decoded) string {
	desc := payloadenc.Framing(dec)
	if dec.JSON != nil {
		return "[" + desc + "] " + string(dec.JSON)
	}
	return "[" + desc + "] " + d.o.Encoding.Encode(r.Value)
}

// valueJSON adds a decoded value to a record's JSON object: the schema
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
