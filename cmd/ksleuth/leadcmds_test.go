package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/spf13/cobra"
)

// The commands other than verify and replicas lead with what needs action
// too (#44): these tests hold what producers, consumers and dups print
// first, and the one line that counts the rest.

// sampleWithBrokerLog is a copy of the sample with a server.log of two
// lines: a truncation of txn-0, which bears on loss, and a start.
func sampleWithBrokerLog(t *testing.T) string {
	t.Helper()
	dir := copyDir(t, sampleDir)
	log := "[2023-11-15 11:28:03,000] INFO [UnifiedLog partition=txn-0, dir=/d] Truncating to offset 20 (x.UnifiedLog)\n" +
		"[2023-11-15 11:28:06,000] INFO [KafkaRaftServer nodeId=0] Kafka Server started (kafka.server.KafkaRaftServer)\n"
	if err := os.WriteFile(filepath.Join(dir, "server.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestProducersLead: producers lists the two sessions of txn-0 with an
// aborted transaction, counts the eight others and their partitions, and
// prints the truncation the broker log shows before a count of the other
// events; --all lists every session and event.
func TestProducersLead(t *testing.T) {
	t.Parallel()
	dir := sampleWithBrokerLog(t)
	out, errOut, code := runCLI(t, "producers", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"2 producer sessions that need action (",
		"\ntxn    0     2001  0      3..19 ",
		"\n8 sessions with nothing to note, in 5 partitions (--all lists them)\n",
		"\n1 cluster event that bears on loss:\n  2023-11-15T11:28:03Z truncation txn-0: INFO ",
		"\n1 other cluster event (1 broker-startup) (--all lists them)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("producers: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "idempotent ") || strings.Contains(out, "Kafka Server started") {
		t.Errorf("producers lists what has nothing to note:\n%s", out)
	}
	all, _, _ := runCLI(t, "producers", "--progress", "never", "--all", dir)
	if !strings.Contains(all, "10 producer sessions:\n") || strings.Count(all, "\nidempotent  ") != 4 ||
		!strings.Contains(all, "2 cluster events (metadata log and broker logs):\n") || !strings.Contains(all, "broker-startup: INFO ") {
		t.Errorf("producers --all: not every session and event:\n%s", all)
	}
}

// TestConsumersLead: on a real log dir of 5 groups (2 without commits)
// and 28 commit timelines, consumers names every group on its first
// lines, prints the 6 timelines that consumed a flagged range or have one
// ahead, and counts the 22 others; --all prints all 28.
func TestConsumersLead(t *testing.T) {
	t.Parallel()
	in := filepath.Join(corpusDir, "rjmfernandes__flink-on-prem")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("%s is not present", in)
	}
	out, errOut, code := runCLI(t, "consumers", "--progress", "never", in)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	head := strings.Join(strings.SplitAfterN(out, "\n", 5)[:4], "")
	for _, g := range []string{"_confluent-controlcenter-7-6-0-lastProduceTimeConsumer", "connect-group", "schema-registry"} {
		if !strings.Contains(head, g) {
			t.Errorf("group %s not named on the first lines:\n%s", g, head)
		}
	}
	if !strings.Contains(out, "\n6 commit timelines that need action (") || !strings.Contains(out, "\n22 commit timelines with nothing to note") ||
		strings.Contains(out, "customers_keyed-0 ") {
		t.Errorf("consumers: not the 6 timelines that need action and a count of the rest:\n%s", out)
	}
	all, _, _ := runCLI(t, "consumers", "--progress", "never", "--all", in)
	if !strings.Contains(all, "\n28 commit timelines (a group's commits to one partition):\n") || !strings.Contains(all, "\n  customers_keyed-0 ") {
		t.Errorf("consumers --all: not every timeline:\n%s", all)
	}
}

// unwrap joins the lines text.Wrap broke to fit 120 columns: a line
// indented four spaces deeper than the line it continues, after a line
// of 60 columns or more (a list's items are indented two deeper, a
// table's rows as deep as its heading). A path broken after a slash
// joins without a blank.
func unwrap(out string) string {
	var b strings.Builder
	ls := strings.Split(out, "\n")
	lead := 0 // the indent of the line being continued
	for i, l := range ls {
		rest := strings.TrimLeft(l, " ")
		indent := len(l) - len(rest)
		if i > 0 && rest != "" {
			prev := utf8.RuneCountInString(ls[i-1])
			if indent == lead+4 && prev >= 60 {
				if !strings.HasSuffix(ls[i-1], "/") {
					b.WriteString(" ")
				}
				b.WriteString(rest)
				continue
			}
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(l)
		lead = indent
	}
	return b.String()
}

// TestScanHelpNamesTables: scan --help names every table a scan may write
// (export.Tables, but the records table of before the dataset), and every
// entry a scan of the sample with --records writes is one of them.
func TestScanHelpNamesTables(t *testing.T) {
	t.Parallel()
	var scan *cobra.Command
	for _, c := range newRootCmd(defaultSettings()).Commands() {
		if c.Name() == "scan" {
			scan = c
		}
	}
	if scan == nil {
		t.Fatal("no scan command")
	}
	for _, name := range export.Tables {
		if name != export.RecordsV1 && !strings.Contains(scan.Long, name) {
			t.Errorf("scan --help does not name %s", name)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	mustScan(t, "scan", sampleDir, "--out", out, "--records", "--progress", "never")
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "manifest.json" && !slices.Contains(export.Tables, e.Name()) {
			t.Errorf("scan wrote %s, which its help does not name", e.Name())
		}
	}
	if len(ents) < 15 {
		t.Errorf("scan wrote %d entries, want the 14 tables, the records dataset and the manifest", len(ents))
	}
}

// runCLIFlat is runCLI with its outputs unwrapped, for tests that look
// for whole lines of text.
func runCLIFlat(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	return unwrap(out), unwrap(errOut), code
}
