package pipeline

import (
	"context"

	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Records is the records command's run: the records of inputs that sel
// selects go to sink one at a time, as they are found, outside the one
// analysis of the other commands. With values, record values in the
// Confluent wire format are decoded with the schemas of the inputs'
// _schemas topic, read first (not when an input is stdin, which is read
// once), whose findings go to sink before any record; describe words
// what a value left raw is, as the printer says it.
func Records(ctx context.Context, inputs []*source.Input, sel records.Options, values bool,
	describe func(*payload.Registry) func(topic string, value []byte) string, sink records.Sink) (records.Stats, error) {
	if values && !fromStdin(inputs) {
		reg, err := payload.Load(ctx, inputs)
		if err != nil {
			return records.Stats{}, err
		}
		for _, f := range reg.Findings() {
			sink.Finding(f)
		}
		if reg.Len() > 0 {
			sel.DecodeValue = reg.DecodeText
			sel.DescribeValue = describe(reg)
		}
	}
	return records.Run(ctx, inputs, Sources(inputs), sel, sink)
}

// fromStdin reports whether an input is read from stdin.
func fromStdin(inputs []*source.Input) bool {
	for _, in := range inputs {
		if in.Reader != nil {
			return true
		}
	}
	return false
}
