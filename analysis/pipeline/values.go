package pipeline

import (
	"sync"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/payload"
)

// valueKey is where undecoded values are counted: one finding per
// partition copy and schema id, so that a topic of values that merely
// start with a zero byte costs one note, not one per record.
type valueKey struct {
	input     int32
	topic     string
	partition int32
	schemaID  int32
}

// undecoded counts the values of one valueKey that did not decode, and
// locates the first: its segment, batch position and offset.
type undecoded struct {
	n        int64
	file     string
	position int64
	offset   int64
	err      string
}

// valueDecoder fills the decoded-value columns of payload rows
// (Options.Values) and counts the values that did not decode.
type valueDecoder struct {
	reg   *payload.Registry
	mu    sync.Mutex
	fails map[valueKey]*undecoded
	order []valueKey
}

func newValueDecoder(reg *payload.Registry) *valueDecoder {
	if reg == nil {
		return nil
	}
	reg.Finish()
	return &valueDecoder{reg: reg, fails: map[valueKey]*undecoded{}}
}

func (v *valueDecoder) rows(rows []analysis.PayloadRecordRow) {
	for i := range rows {
		r := &rows[i]
		if r.IsControl || r.Value == nil {
			continue
		}
		d, ok := v.reg.DecodeValue(r.Topic, r.Value)
		if !ok {
			continue
		}
		id := d.SchemaID
		r.ValueSchemaID = &id
		if d.JSON != nil {
			s := string(d.JSON)
			r.ValueDecoded = &s
		}
		if d.Err != nil {
			v.fail(r, d)
		}
	}
}

func (v *valueDecoder) fail(r *analysis.PayloadRecordRow, d payload.Decoded) {
	k := valueKey{r.Input, r.Topic, r.Partition, d.SchemaID}
	v.mu.Lock()
	defer v.mu.Unlock()
	u, ok := v.fails[k]
	if !ok {
		u = &undecoded{file: r.Segment, position: r.BatchPosition, offset: r.Offset, err: d.Err.Error()}
		v.fails[k] = u
		v.order = append(v.order, k)
	}
	u.n++
}

// findings are the registry's findings and one note per partition copy
// and schema id whose values did not decode, at the first such value.
func (v *valueDecoder) findings() []analysis.AnomalyRow {
	if v == nil {
		return nil
	}
	out := append([]analysis.AnomalyRow(nil), v.reg.Findings()...)
	for _, k := range v.order {
		u := v.fails[k]
		w := finding.Where{Input: k.input, Topic: k.topic, Partition: k.partition, File: u.file}
		out = append(out, finding.New(w, finding.KindPayloadUndecoded, u.position, u.offset,
			"%d value(s) with schema id %d did not decode; the first: %s", u.n, k.schemaID, u.err))
	}
	return out
}
