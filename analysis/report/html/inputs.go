package html

import (
	"context"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// HashInputs starts hashing the file and archive inputs (directory inputs
// get the digest of their file list from the report) while the scan runs,
// and returns a func that waits for the result. With hash false it only
// lists them (a scan that hashes nothing).
func HashInputs(ctx context.Context, inputs []*source.Input, hash bool) func() ([]Input, error) {
	paths := make([]string, len(inputs))
	for i, in := range inputs {
		if in.Kind != source.Dir && hash {
			paths[i] = in.Abs
		}
	}
	sums := export.HashFiles(ctx, paths)
	return func() ([]Input, error) {
		digests, err := sums()
		out := make([]Input, len(inputs))
		for i, in := range inputs {
			out[i] = Input{Index: int32(in.Index), Path: in.Path, Kind: in.Kind.String(), SHA256: digests[i]}
		}
		return out, err
	}
}
