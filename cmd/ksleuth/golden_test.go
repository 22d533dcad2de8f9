package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goldenCase is one command line over the sample log dir and the golden
// file its stdout must equal. OUT in args is replaced by a fresh
// temporary directory, BROKER2 by a copy of the sample as broker 2.
type goldenCase struct {
	name string
	args []string
	code int // the exit status the command must return
}

// goldenCases cover the text and the --json output of every command on
// the sample log dir. --jobs is fixed because scan prints it.
var goldenCases = []goldenCase{
	{"scan.txt", []string{"scan", sampleDir, "--out", "OUT", "--jobs", "2", "--progress", "never"}, exitOK},
	{"scan_all.txt", []string{"scan", sampleDir, "--out", "OUT", "--all", "--jobs", "2", "--progress", "never"}, exitOK},
	{"scan_records.txt", []string{"scan", sampleDir, "--out", "OUT", "--payload", "--jobs", "2", "--progress", "never"}, exitOK},
	{"scan.jsonl", []string{"scan", sampleDir, "--out", "OUT", "--json", "--jobs", "2", "--progress", "never"}, exitOK},
	{"scan_topic.jsonl", []string{"scan", sampleDir, "--out", "OUT", "--json", "--topic", "^codecs$", "--jobs", "2", "--progress", "never"}, exitOK},
	{"verify.txt", []string{"verify", sampleDir, "--jobs", "2", "--progress", "never"}, exitOK},
	{"verify_all.txt", []string{"verify", sampleDir, "--all", "--jobs", "2", "--progress", "never"}, exitOK},
	{"verify_no_notes.txt", []string{"verify", sampleDir, "--no-notes", "--topic", "^compacted$", "--jobs", "2", "--progress", "never"}, exitOK},
	{"verify.jsonl", []string{"verify", sampleDir, "--json", "--jobs", "2", "--progress", "never"}, exitOK},
	{"verify_recovery.txt", []string{"verify", sampleDir, "--recovery", "--topic", "^(txn|compacted)$", "--jobs", "2", "--progress", "never"}, exitOK},
	{"verify_recovery_all.txt", []string{"verify", sampleDir, "--recovery", "--all", "--topic", "^(txn|compacted)$", "--jobs", "2", "--progress", "never"}, exitOK},
	{"verify_recovery.jsonl", []string{"verify", sampleDir, "--recovery", "--json", "--topic", "^(txn|compacted)$", "--jobs", "2", "--progress", "never"}, exitOK},
	{"dups.txt", []string{"dups", sampleDir, "--jobs", "2", "--progress", "never"}, exitOK},
	{"dups_all.txt", []string{"dups", sampleDir, "--all", "--jobs", "2", "--progress", "never"}, exitOK},
	{"dups_same_pid.txt", []string{"dups", sampleDir, "--same-pid", "--scope", "partition", "--all", "--jobs", "2", "--progress", "never"}, exitOK},
	{"dups.jsonl", []string{"dups", sampleDir, "--json", "--jobs", "2", "--progress", "never"}, exitOK},
	{"producers.txt", []string{"producers", sampleDir, "--jobs", "2", "--progress", "never"}, exitOK},
	{"producers_all.txt", []string{"producers", sampleDir, "--all", "--jobs", "2", "--progress", "never"}, exitOK},
	{"producers.jsonl", []string{"producers", sampleDir, "--json", "--jobs", "2", "--progress", "never"}, exitOK},
	// The sample and its copy as broker 2: two byte-identical copies of
	// every partition. (The text output's columns are as wide as the
	// copy's temporary path, so --all, which prints them, is held by
	// TestReplicasText instead.)
	{"replicas.txt", []string{"replicas", sampleDir, "BROKER2", "--jobs", "2", "--progress", "never"}, exitOK},
	{"replicas.jsonl", []string{"replicas", sampleDir, "BROKER2", "--json", "--jobs", "2", "--progress", "never"}, exitOK},
	{"report.txt", []string{"report", sampleDir, "--html", "OUT/r.html", "--jobs", "2", "--progress", "never"}, exitOK},
	{"report.jsonl", []string{"report", sampleDir, "--html", "OUT/r.html", "--json", "--jobs", "2", "--progress", "never"}, exitOK},
	{"records_key.txt", []string{"records", sampleDir, "--key", "item-003"}, exitOK},
	{"records_txn_control.jsonl", []string{"records", sampleDir, "--json", "--topic", "^txn$", "--control", "--offsets", "..12"}, exitOK},
	{"records_format.txt", []string{"records", sampleDir, "--topic", "^legacy", "--limit", "12", "--format", `%t %p %o %T %D %i/%e/%q key=%k %f@%P\n`}, exitOK},
	{"records_header_since.txt", []string{"records", sampleDir, "--topic", "^codecs$", "--partition", "1", "--header", "trace", "--since", "2023-11-15T11:26:36Z", "--payload-encoding", "hex"}, exitOK},
	{"dump_idempotent_records.txt", []string{"dump", "--records", sampleDir + "/idempotent-0/00000000000000000000.log"}, exitOK},
	{"dump_txn_records.jsonl", []string{"dump", "--json", "--records", sampleDir + "/txn-0/00000000000000000000.log"}, exitOK},
	{"dump_index.txt", []string{"dump", sampleDir + "/codecs-0/00000000000000000000.index"}, exitOK},
	{"dump_timeindex.jsonl", []string{"dump", "--json", sampleDir + "/codecs-0/00000000000000000000.timeindex"}, exitOK},
	{"dump_snapshot.txt", []string{"dump", sampleDir + "/idempotent-0/00000000000000000085.snapshot"}, exitOK},
	{"dump_checkpoint.txt", []string{"dump", sampleDir + "/replication-offset-checkpoint"}, exitOK},
}

// What truly varies between runs of the same command, and nothing else,
// is normalised: the elapsed time of scan (text and JSON), the
// temporary output directory (OUT), and the ksleuth version (which
// depends on how the test binary was built).
var (
	elapsedText = regexp.MustCompile(` in \d+\.\d\ds \(jobs `)
	elapsedJSON = regexp.MustCompile(`"seconds":[0-9.e+-]+`)
	versionJSON = regexp.MustCompile(`"(ksleuth_version|version)":"[^"]*"`)
)

func normaliseGolden(out, tmp string) string {
	out = strings.ReplaceAll(out, tmp, "OUT")
	out = elapsedText.ReplaceAllString(out, " in 0.00s (jobs ")
	out = elapsedJSON.ReplaceAllString(out, `"seconds":0`)
	return versionJSON.ReplaceAllString(out, `"$1":"VERSION"`)
}

// TestGolden holds every command's text and --json output on the sample
// log dir to the files in testdata/golden; go test ./cmd/ksleuth -run
// TestGolden -update rewrites them. Every --json golden is JSON lines
// with a type on every object (checkJSONLines).
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			b2 := secondBrokerFor(t, c.args)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				if a == "OUT" || strings.HasPrefix(a, "OUT/") {
					a = filepath.Join(tmp, strings.TrimPrefix(strings.TrimPrefix(a, "OUT"), "/"))
				}
				if a == "BROKER2" {
					a = b2
				}
				args[i] = a
			}
			out, errOut, code := runCLIWith(t, fixedClock(), args...)
			if code != c.code || errOut != "" {
				t.Fatalf("ksleuth %v: exit %d, want %d; stderr:\n%s", c.args, code, c.code, errOut)
			}
			if b2 != "" {
				out = strings.ReplaceAll(out, b2, "BROKER2")
			}
			got := normaliseGolden(out, tmp)
			if strings.HasSuffix(c.name, ".jsonl") {
				checkJSONLines(t, c.args, got)
			}
			golden(t, c.name, got)
		})
	}
}

// TestGoldenJobs: the output does not depend on the number of workers
// (scan prints it, so it is left out here).
func TestGoldenJobs(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		if c.args[0] == "scan" || c.args[0] == "dump" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			b2 := secondBrokerFor(t, c.args)
			var outs [2]string
			for k, jobs := range []string{"1", "5"} {
				args := make([]string, 0, len(c.args))
				for i := 0; i < len(c.args); i++ {
					a := c.args[i]
					switch {
					case a == "BROKER2":
						args = append(args, b2)
						continue
					case a == "--jobs":
						args = append(args, a, jobs)
						i++
						continue
					case a == "OUT" || strings.HasPrefix(a, "OUT/"):
						a = filepath.Join(tmp, jobs+".html")
						args = append(args, a, "--force")
						continue
					}
					args = append(args, a)
				}
				out, errOut, code := runCLIWith(t, fixedClock(), args...)
				if code != c.code {
					t.Fatalf("ksleuth %v: exit %d: %s", args, code, errOut)
				}
				out = strings.ReplaceAll(out, filepath.Join(tmp, jobs+".html"), "OUT/r.html")
				outs[k] = strings.ReplaceAll(out, "--jobs="+jobs, "--jobs=N") // report's command_line
			}
			if outs[0] != outs[1] {
				t.Errorf("%v: --jobs 1 and --jobs 5 print different output:\n%s\n---\n%s", c.args, outs[0], outs[1])
			}
		})
	}
}

// secondBrokerFor is a copy of the sample log dir as broker 2 of its
// cluster when args name BROKER2, else "".
func secondBrokerFor(t *testing.T, args []string) string {
	if !slices.Contains(args, "BROKER2") {
		return ""
	}
	return secondBroker(t)
}

// secondBroker is a copy of the sample log dir as broker 2 of its
// cluster: what the commands that compare brokers' copies are given
// beside the sample.
func secondBroker(t *testing.T) string {
	t.Helper()
	dir := copyDir(t, sampleDir)
	props := filepath.Join(dir, "meta.properties")
	data, err := os.ReadFile(props)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("broker.id=0")) {
		t.Fatalf("%s names no broker.id=0", props)
	}
	if err := os.WriteFile(props, bytes.Replace(data, []byte("broker.id=0"), []byte("broker.id=2"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
