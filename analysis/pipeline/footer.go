package pipeline

import (
	"time"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// RunMetadata is the footer metadata of every table of a run begun at
// start over inputs: the ksleuth version and command line that made it,
// the inputs with their sources, and how records were fingerprinted
// (match and ignoreHeaders as NewFingerprintMeta takes them).
func RunMetadata(inputs []*source.Input, version, commandLine, match string, ignoreHeaders []string, start time.Time) *export.Metadata {
	roots := make([]export.RunInput, len(inputs))
	for i, in := range inputs {
		roots[i] = export.RunInput{Path: in.Path, Abs: in.Abs, Kind: in.Kind.String()}
	}
	return export.NewRunMetadata(export.RunFooter{Version: version, CommandLine: commandLine, Inputs: roots,
		Sources: Sources(inputs), Fingerprint: NewFingerprintMeta(match, ignoreHeaders), Start: start})
}
