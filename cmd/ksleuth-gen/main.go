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
//
// With -realistic BYTES it writes instead a log dir of production-shaped
// segments for performance runs (docs/performance.md): -partitions
// partitions of one segment each, BYTES uncompressed in all, codecs taken
// in turn from -codecs; with -big-batch it writes one partition holding a
// single batch of BYTES; with -open-txn every batch comes from one
// transactional producer whose transaction never ends; -shape franz
// writes the segments in the reference benchmark's shape, compressed as
// franz-go does (lz4 frames of 4 MiB blocks with a content checksum).
//
//	go run ./cmd/ksleuth-gen -out /tmp/perf-1g -realistic 1073741824 -partitions 6 -codecs none,none,none,none,lz4,lz4
//	go run ./cmd/ksleuth-gen -out /tmp/perf-batch -realistic 67108864 -big-batch -codecs lz4
//	go run ./cmd/ksleuth-gen -out /tmp/perf-txn -realistic 536870912 -partitions 2 -open-txn
//
// -roll BYTES cuts each partition into segments of about BYTES, with the
// indexes a broker writes beside them (docs/records.md measures on that).
//
// With -payloads it writes the small log dir of docs/payloads.md: a
// schema registry's _schemas topic and topics of Avro, JSON Schema and
// Protobuf values in the Confluent wire format.
//
//	go run ./cmd/ksleuth-gen -payloads -out /tmp/payloads
//
// With the subcommand real it runs a scenario on real Kafka brokers
// instead (docs/real-kafka.md):
//
//	go run ./cmd/ksleuth-gen real --list
//	go run ./cmd/ksleuth-gen real --scenario idempotent-restart --seed 1 --out /tmp/real-1
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/payload/payloadtest"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/segment/segtest/bench"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "real" {
		if err := runReal(os.Args[2:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintf(os.Stderr, "ksleuth-gen real: %v\n", err)
			os.Exit(1)
		}
		return
	}
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
	realistic := fs.Int64("realistic", 0, "write production-shaped segments of this many uncompressed bytes in all instead")
	parts := fs.Int("partitions", 4, "with -realistic: partitions, one segment each")
	codecs := fs.String("codecs", "none", "with -realistic: codecs (none, gzip, snappy, lz4, zstd) given to the partitions in turn")
	bigBatch := fs.Bool("big-batch", false, "with -realistic: one partition holding a single batch")
	shape := fs.String("shape", "java", "with -realistic: java (segtest.RealisticSegment, the Java producer's framing) "+
		"or franz (the reference benchmark's documents, franz-go's compressors)")
	openTxn := fs.Bool("open-txn", false, "with -realistic: every batch from one transactional producer, in a transaction that never ends")
	roll := fs.Int64("roll", 0, "with -realistic: cut each partition into segments of about this many bytes, "+
		"with the .index and .timeindex a broker writes (0: one segment, no indexes)")
	payloads := fs.Bool("payloads", false, "write the payload sample instead: _schemas and values in the Confluent wire format (docs/payloads.md)")
	duplicates := fs.Bool("duplicates", false, "write the duplicate scenarios instead: a topic per scenario, every cause of a later copy "+
		"(docs/duplicates.md)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *duplicates {
		if *out == "" || fs.NArg() > 0 {
			return fmt.Errorf("usage: ksleuth-gen -duplicates -out DIR [-seed N]")
		}
		truth, err := segtest.GenerateDupScenarios(*out, *seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "ksleuth-gen: wrote %d duplicate scenarios to %s\n", len(truth.Scenarios), *out)
		return nil
	}
	if *payloads {
		if *out == "" || fs.NArg() > 0 {
			return fmt.Errorf("usage: ksleuth-gen -payloads -out DIR")
		}
		if err := payloadtest.WriteSample(*out); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "ksleuth-gen: wrote the payload sample to %s\n", *out)
		return nil
	}
	if *realistic > 0 {
		if *out == "" || fs.NArg() > 0 {
			return fmt.Errorf("usage: ksleuth-gen -out DIR -realistic BYTES [-partitions N] [-codecs LIST] [-big-batch | -open-txn]")
		}
		if *shape != string(bench.ShapeJava) && *shape != string(bench.ShapeFranz) {
			return fmt.Errorf("unknown -shape %q (java or franz)", *shape)
		}
		return writeRealistic(*out, *realistic, *parts, *codecs, bench.Shape(*shape), *bigBatch, *openTxn, *roll, uint64(*seed), stderr)
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

// writeRealistic writes the performance log dir of -realistic.
func writeRealistic(out string, total int64, parts int, codecList string, shape bench.Shape,
	bigBatch, openTxn bool, roll int64, seed uint64, stderr io.Writer) error {
	var codecs []segtest.Codec
	for _, name := range strings.Split(codecList, ",") {
		c, ok := codecByName(strings.TrimSpace(name))
		if !ok {
			return fmt.Errorf("unknown codec %q", name)
		}
		codecs = append(codecs, c)
	}
	if parts < 1 || bigBatch {
		parts = 1
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	meta := "version=0\nbroker.id=0\ncluster.id=ksleuth-perf\n"
	if err := os.WriteFile(filepath.Join(out, "meta.properties"), []byte(meta), 0o644); err != nil {
		return err
	}
	var written int64
	for i := range parts {
		c := codecs[i%len(codecs)]
		dir := filepath.Join(out, fmt.Sprintf("perf-%s-%d", c, i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		var seg []byte
		switch {
		case bigBatch:
			seg = segtest.RealisticBatch(c, int(total), seed)
		case openTxn:
			seg = segtest.RealisticOpenTxn(c, int(total/int64(parts)), seed+uint64(i))
		default:
			seg = shape.Segment(c, int(total/int64(parts)), seed+uint64(i))
		}
		if roll > 0 {
			if _, err := rollSegment(dir, seg, roll); err != nil {
				return err
			}
		} else if err := os.WriteFile(filepath.Join(dir, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
			return err
		}
		written += int64(len(seg))
	}
	fmt.Fprintf(stderr, "ksleuth-gen: wrote %d partitions, %d bytes of segments, to %s\n", parts, written, out)
	return nil
}

func codecByName(name string) (segtest.Codec, bool) {
	for c := segtest.CodecNone; c <= segtest.CodecZstd; c++ {
		if c.String() == name {
			return c, true
		}
	}
	return 0, false
}
