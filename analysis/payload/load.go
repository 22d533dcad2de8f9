package payload

import (
	"context"
	"errors"
	"io"
	"regexp"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

var schemasOnly = source.Options{Topic: regexp.MustCompile("^" + regexp.QuoteMeta(SchemasTopic) + "$")}

// Load builds the registry from the _schemas partitions of the inputs,
// read with the segment reader before anything else so that a value can
// be decoded wherever it comes in the scan. Every copy of the topic is read
// (a registry's records are the same on every replica; a copy from another
// cluster that reuses an id with another schema is a finding). Damage in
// _schemas segments is left to the scan itself, which reports it; the
// records read around it still count. An archive is streamed once more,
// with only the _schemas entries read. The error is a context error or an
// input that cannot be listed; unreadable files are passed over.
func Load(ctx context.Context, inputs []*source.Input) (*Registry, error) {
	r := NewRegistry()
	for _, in := range inputs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if in.Kind == source.Archive {
			err := in.Stream(ctx, schemasOnly, func(e *source.Entry, rd io.Reader) error {
				if isSchemasSegment(e) {
					r.readSegment(e, rd)
				}
				return ctx.Err()
			})
			var ae *source.ArchiveError
			if err != nil && !errors.As(err, &ae) {
				return nil, err
			}
			continue
		}
		files, err := in.Files(schemasOnly)
		if err != nil {
			return nil, err
		}
		for _, e := range files {
			if !isSchemasSegment(e) {
				continue
			}
			f, err := e.Open()
			if err != nil {
				continue
			}
			r.readSegment(e, f)
			f.Close()
		}
	}
	r.Finish()
	return r, nil
}

func isSchemasSegment(e *source.Entry) bool {
	return e.Partition != nil && e.Partition.Topic == SchemasTopic && e.Partition.State == "" &&
		e.Skipped == "" && e.Err == nil && e.Name.Kind == snapshot.KindLog && e.Name.Suffix == "" && !e.Name.Leftover
}

// ReadSegment adds the records of one _schemas segment, read from rd, to
// the registry; file names it in findings.
func (r *Registry) ReadSegment(w finding.Where, rd io.Reader) {
	sr := segment.NewReader(rd, segment.Options{Path: w.File})
	defer sr.Close()
	for sr.Next() {
		b := sr.Batch()
		if b == nil || b.IsControl() {
			continue
		}
		it := sr.Records()
		for it.Next() {
			rec := it.Record()
			if rec.IsControl {
				continue
			}
			r.Add(w, b.Position, rec.Offset, rec.Key, rec.Value)
		}
	}
	r.finished = false
}

func (r *Registry) readSegment(e *source.Entry, rd io.Reader) {
	r.ReadSegment(finding.Where{Input: int32(e.Input), Topic: e.Partition.Topic, Partition: e.Partition.Partition, File: e.Path}, rd)
}
