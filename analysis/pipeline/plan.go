package pipeline

import (
	"regexp"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Command is what a run is for. Each command reads the inputs its own
// way (records as rows or compact entries, every record decoded or only
// the batch headers), and the Plan picks those modes from it.
type Command int

// The commands that run the pipeline.
const (
	Verify Command = iota
	Scan
	Dups
	Producers
	Consumers
	Replicas
	Report
)

// Plan is one command's run as the user chose it: which partitions, how
// many workers, which tables and what the duplicate detector matches.
// Options turns it into the scan's modes.
type Plan struct {
	Command Command
	// Topic keeps only partitions whose topic matches (nil: all).
	Topic *regexp.Regexp
	// Jobs bounds the workers (0: one per core); Progress, when set, is
	// called with the input bytes just read; FileDone after each file's
	// rows have been handed over.
	Jobs     int
	Progress func(n int64)
	FileDone func(path string)
	// HeldBudget bounds the memory of records of transactions still open
	// (0: the scan's default); beyond it they spill to TmpDir ("" the
	// system's temporary dir), as the detector's entries do.
	HeldBudget int64
	TmpDir     string
	// Records asks for the records table, Payload for keys, values and
	// headers in it (Scan); Values decodes values with these schemas.
	Records, Payload bool
	Values           *payload.Registry
	// Hash computes the SHA-256 of every input file (Scan; Report always).
	Hash bool
	// Page: the HTML page is drawn from the records (Scan).
	Page bool
	// Detector and Hasher find duplicates (nil: none).
	Detector *dups.Detector
	Hasher   *dups.Hasher
	// Recovery predicts the broker's log loading (Verify).
	Recovery bool
}

// Options are the pipeline's options for the plan: the scan's modes are
// the command's.
func (p *Plan) Options() Options {
	cfg := scan.Config{Jobs: p.Jobs, Topic: p.Topic, Progress: p.Progress, FileDone: p.FileDone, HeldBudget: p.HeldBudget, TmpDir: p.TmpDir}
	o := Options{Detector: p.Detector, Hasher: p.Hasher, Attribution: true}
	switch p.Command {
	case Verify:
		cfg.Records, cfg.Compact = true, true
		o.Recovery = p.Recovery
	case Scan:
		cfg.Records, cfg.Payload, cfg.Hash = true, p.Payload, p.Hash
		cfg.HexFingerprints = p.Records || p.Payload
		// Without a records table or the page, records only feed the
		// duplicate detector: compact entries, not rows.
		cfg.Compact = !p.Records && !p.Payload && !p.Page
		o.Values = p.Values
	case Dups:
		cfg.Compact = true
	case Consumers:
		cfg.Compact, cfg.Topic = true, consumersTopic(p.Topic)
	case Producers:
		cfg.Compact = true
	case Replicas:
		// The copies are compared by batch header: a batch decoded once,
		// on one broker, is enough.
		cfg.DecodeOnce, cfg.HeadersOnly = true, true
		// The remote log metadata alone is read, for the ledger of
		// tiered partitions (as verify judges them).
		o.Attribution, o.OneCluster, o.RemoteMetadata = false, true, true
	case Report:
		cfg.Records, cfg.Hash = true, true
	}
	o.Scan = cfg
	return o
}

// Sources names each input the way every table's source column does.
func Sources(inputs []*source.Input) []string { return scan.Sources(inputs) }
