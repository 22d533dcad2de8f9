// Command ksleuth-gen writes a seeded synthetic Kafka log dir plus a
// manifest.json holding its ground truth (every batch and record), for
// testing ksleuth against known answers.
//
// Run using:
//
//	go run ./cmd/ksleuth-gen -out testdata/logdirs/generated -seed 1
//
// The output directory must be missing or empty. The same seed and
// -segment-bytes always give byte-identical output.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "ksleuth-gen: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("ksleuth-gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "log dir to create (must be missing or empty)")
	seed := fs.Int64("seed", 1, "seed for the scenario generator")
	segBytes := fs.Int64("segment-bytes", segtest.DefaultSegmentBytes, "roll segments past this size (log.segment.bytes)")
	multi := fs.Bool("multi-block", false, "add ~80 KiB snappy and lz4 batches spanning several chunks/blocks (grows manifest.json by ~200 KB)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("usage: ksleuth-gen -out DIR [-seed N] [-segment-bytes N]")
	}
	m, err := segtest.GenerateLogDir(*out, *seed, segtest.GenOptions{SegmentBytes: *segBytes, MultiBlock: *multi})
	if err != nil {
		return err
	}
	js, err := m.EncodeJSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "manifest.json"), js, 0o644); err != nil {
		return err
	}
	var batches, records int
	for _, p := range m.Partitions {
		for _, s := range p.Segments {
			batches += len(s.Batches)
			for _, b := range s.Batches {
				records += len(b.Records)
			}
		}
	}
	fmt.Fprintf(stderr, "ksleuth-gen: wrote %d partitions, %d batches, %d records to %s\n", len(m.Partitions), batches, records, *out)
	return nil
}
