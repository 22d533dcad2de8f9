package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// runReal is `ksleuth-gen real`: it runs a scenario on real Kafka brokers
// (resolved through Maven into the user's cache the first time) and
// writes their log dirs, their log4j output and truth.json.
func runReal(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ksleuth-gen real", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.Bool("list", false, "print the scenario names and what each does")
	resolve := fs.Bool("resolve", false, "resolve every pinned Kafka release into the cache (Maven; once per machine) and exit")
	name := fs.String("scenario", "", "scenario to run (see --list)")
	seed := fs.Int64("seed", 1, "seed: record counts, keys, timings, partitions and crash points")
	out := fs.String("out", "", "directory to create (must be missing or empty): broker-<id>/data, broker-<id>/logs, truth.json")
	version := fs.String("kafka", realkafka.Newest, "Kafka release: "+strings.Join(realkafka.Versions, ", "))
	codec := fs.String("codec", "lz4", "with --scenario bulk: the producer's compression.type ("+strings.Join(realkafka.Codecs, ", ")+")")
	size := fs.Int64("bytes", 1<<30, "with --scenario bulk: the segment's size on disk to reach")
	classpath := fs.Bool("classpath", false, "print the Java classpath of the --kafka release (resolving it first) and exit, to run its tools by hand")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *list {
		tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
		for _, s := range slices.Concat(realkafka.Scenarios(), realkafka.CauseScenarios()) {
			fmt.Fprintf(tw, "%s\t%d broker(s), stop %s\t%s\n", s.Name, s.Brokers, s.Stop, s.Doc)
		}
		fmt.Fprintf(tw, "%s\t1 broker(s), stop clean\t%s\n", realkafka.BulkName, realkafka.BulkDoc)
		return tw.Flush()
	}
	if *resolve {
		for _, v := range realkafka.Versions {
			k, err := realkafka.Resolve(v)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "Kafka %s in %s\n", v, k.Dir)
		}
		return nil
	}
	if !slices.Contains(realkafka.Versions, *version) {
		return fmt.Errorf("--kafka %s: not one of %s", *version, strings.Join(realkafka.Versions, ", "))
	}
	if *classpath {
		k, err := realkafka.Resolve(*version)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, k.Classpath())
		return nil
	}
	if *name == "" || *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("usage: ksleuth-gen real --list | --resolve | --classpath | --scenario NAME [--seed N] [--kafka VERSION] --out DIR\n" +
			"       ksleuth-gen real --scenario bulk --codec CODEC --bytes N [--seed N] [--kafka VERSION] --out DIR")
	}
	if ents, err := os.ReadDir(*out); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty", *out)
	}
	k, err := realkafka.Resolve(*version)
	if err != nil {
		return err
	}
	// Ctrl-C ends the scenario through its cleanups, so no broker JVM
	// outlives the command.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "ksleuth-gen: "+format+"\n", a...) }
	if *name == realkafka.BulkName {
		r, err := realkafka.RunBulk(ctx, k, *codec, *size, *seed, *out, logf)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "ksleuth-gen: wrote %s (%d bytes, %d records, %d bytes of keys, values and headers, %s) and bulk.json to %s in %.0fs\n",
			r.Segment, r.SegmentBytes, r.Records, r.UncompressedBytes, r.Codec, *out, r.Seconds)
		return nil
	}
	t, err := realkafka.Run(ctx, k, *name, *seed, *out, logf)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ksleuth-gen: wrote %d brokers' log dirs and truth.json "+
		"(%d records, %d resends, %d lost runs, %d commits, %d records consumed, %d offset deletes) to %s\n",
		len(t.Brokers), len(t.Records), len(t.Resends), len(t.Lost), len(t.Commits), len(t.Consumed), len(t.OffsetDeletes), *out)
	return nil
}
