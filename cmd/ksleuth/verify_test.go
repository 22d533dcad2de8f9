package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

const corpusDir = "../../../shared/corpus/real"

func corpusSources(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Skipf("real corpus not available: %v", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestDumpStateGolden: text and JSON dumps of every non-log kind.
func TestDumpStateGolden(t *testing.T) {
	t.Parallel()
	const d = "testdata/state/"
	files := []string{
		d + "00000000000000002827.snapshot", d + "00000000000000000002.snapshot",
		d + "00000000000000000000.index", d + "00000000000000000000.timeindex", d + "00000000000000000000.txnindex",
		d + "00000000000000003457.index.deleted",
		d + "leader-epoch-checkpoint", d + "partition.metadata", d + "recovery-point-offset-checkpoint",
		d + "meta.properties", d + ".kafka_cleanshutdown", d + "cleaner-offset-checkpoint.tmp", d + "quorum-state",
	}
	out, errOut, code := runCLI(t, append([]string{"dump"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "dump_state.txt", out+"--- stderr\n"+errOut)
	out, errOut, code = runCLI(t, append([]string{"dump", "--json"}, files...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	types := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad JSON %q: %v", l, err)
		}
		types[m["type"].(string)]++
		if m["type"] == "snapshot_entry" {
			for _, k := range []string{"producer_id", "producer_epoch", "coordinator_epoch", "current_txn_first_offset", "last_timestamp",
				"first_sequence", "last_sequence", "last_offset", "offset_delta", "timestamp"} {
				if _, ok := m[k]; !ok {
					t.Errorf("snapshot_entry without %s: %s", k, l)
				}
			}
		}
	}
	for _, typ := range []string{"snapshot_entry", "index_entry", "timeindex_entry", "txn_entry", "epoch_entry", "checkpoint_entry", "metadata", "finding"} {
		if types[typ] == 0 {
			t.Errorf("no %s line in %v", typ, types)
		}
	}
	golden(t, "dump_state_json.txt", out)
}

// TestDumpEveryCorpusFile: every file of the real corpus dumps without a
// failure, in valid JSON lines.
func TestDumpEveryCorpusFile(t *testing.T) {
	t.Parallel()
	var files []string
	for _, src := range corpusSources(t) {
		filepath.WalkDir(filepath.Join(corpusDir, src), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		})
	}
	if len(files) < 5000 {
		t.Fatalf("only %d corpus files", len(files))
	}
	lines := 0
	for i := 0; i < len(files); i += 400 {
		chunk := files[i:min(i+400, len(files))]
		out, errOut, code := runCLI(t, append([]string{"dump", "--json"}, chunk...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l == "" {
				continue
			}
			lines++
			if !json.Valid([]byte(l)) {
				t.Fatalf("invalid JSON line %q", l)
			}
		}
	}
	if lines < 170000 {
		t.Errorf("only %d JSON lines", lines)
	}
}

// corpusExpect lists, per source, the findings (errors and warnings, by
// kind) that verify reports on the real corpus, each a real property of
// that copy. Sources not listed verify without findings.
var corpusExpect = map[string]map[string]int{
	// HelloTopic-0 holds only 00000000000000000006.log (no index files),
	// but its leader-epoch-checkpoint still says epoch 0 began at offset
	// 0, which the broker would have moved had retention deleted 0..5,
	// and the records are seconds apart against 7 days of retention: the
	// first segment is missing from the copy, not retained (a warning: the
	// log dir has no .kafka_cleanshutdown, so the broker may not have
	// flushed the moved entry).
	"geraldine999__Kafka": {"missing-segment": 1},
	// Copied while the broker ran: HW of test-0, __consumer_offsets-28
	// and comment-0 ahead of the .log files (MANIFEST "checkpoint offsets
	// ahead").
	"99-WSJ__nowcoder": {"checkpoint-ahead": 3},
	// __consumer_offsets-19/00000000000000258527.log (over 4 MiB) is not
	// in the corpus: its .index/.timeindex are orphans, the snapshots at
	// 326493 and 330479 and the recovery point and HW (330479) are ahead
	// of the data that is left (258527).
	"ArthurArutunyan04__Backend_labs": {"missing-segment": 2, "snapshot-ahead": 2, "checkpoint-ahead": 2},
	// Committed while the broker ran: 10 high watermarks ahead of empty or
	// short logs (MANIFEST: "12 checkpoint entries are ahead", the other
	// two being the log-start offsets reported as log-start-ahead notes).
	"Danielowo2000__BigDataTechnologies-Version-2": {"checkpoint-ahead": 10},
	// __cluster_metadata-0/00000000000000000000.log (over 4 MiB) is not in
	// the corpus; its index files are.
	"ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions": {"missing-segment": 2},
	// The .log files were gitignored (MANIFEST: "partitions without any
	// .log file"): checkpoints of __consumer_offsets-45 and -47 name
	// offsets of a partition dir with no segment. Five of them name
	// partitions of topics with a dot in the name (webinfo.trade.report-0,
	// ...), whose dirs hold no .log file. The other 51 partition dirs have
	// no .log file and no checkpoint entry: their logs are missing too.
	"JY-GIEGIEGIE__Stock-Sys-Integration": {"checkpoint-ahead": 7, "missing-segment": 51},
	// MANIFEST: "the active metadata segment 00000000000003014402.log was
	// over 4 MiB and is absent": __cluster_metadata-0 has no .log file.
	"AdiletBatyrbayev0520__air_analyzer": {"missing-segment": 1},
	// __cluster_metadata-0 holds two KRaft snapshots and a producer
	// snapshot but no .log file: the commit lacks the metadata log. And
	// rappel_conso-0 lacks the empty active segment 20917 that retention
	// rolled before it scheduled 20907 for deletion (MANIFEST: "not in
	// the commit").
	"JobCollins__daas": {"missing-segment": 2},
	// customers-0 and products-0 lost their only .log (over 4 MiB): orphan
	// indexes, recovery point and HW ahead of the (absent) data.
	"rjmfernandes__flink-on-prem": {"missing-segment": 4, "checkpoint-ahead": 4},
}

// corpusNotes pins the notable notes.
var corpusNotes = map[string]map[string]int{
	// log-start-offset-checkpoint says 5 for two ksql repartition topics
	// whose logs still start at 0 (DeleteRecords).
	"Danielowo2000__BigDataTechnologies-Version-2": {"log-start-ahead": 2},
	// DeleteRecords on two partitions.
	"rjmfernandes__flink-on-prem": {"log-start-ahead": 2},
	// Snapshots in partition dirs without .log files.
	"JY-GIEGIEGIE__Stock-Sys-Integration": {"not-verifiable": 4},
	// rappel_conso-0 holds only its segment 20907 scheduled for deletion
	// (its empty active segment 20917 is not in the commit): retention
	// removed the data the recovery point and high watermark count.
	"JobCollins__daas": {"checkpoint-stale": 2},
	// meta.properties written before Kafka 2.4 has no cluster.id: verify
	// says so, as dump and scan do.
	"hermag__kafkademo": {"state-note": 1},
	// The stray cleaner-offset-checkpoint.tmp.
	"NikhilDighe9975__kafka_setup": {"leftover-file": 1},
}

type verifySummary struct {
	Type           string         `json:"type"`
	Files          int64          `json:"files"`
	Batches        int64          `json:"batches"`
	Records        int64          `json:"records"`
	Findings       int            `json:"findings"`
	FindingsByKind map[string]int `json:"findings_by_kind"`
	NotesByKind    map[string]int `json:"notes_by_kind"`
	Complete       bool           `json:"complete"`
}

func lastSummary(t *testing.T, out string) verifySummary {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("invalid JSON line %q", l)
		}
	}
	var s verifySummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil || s.Type != "summary" {
		t.Fatalf("last line is not a summary: %q", lines[len(lines)-1])
	}
	return s
}

func TestVerifyRealCorpus(t *testing.T) {
	t.Parallel()
	for _, src := range corpusSources(t) {
		t.Run(src, func(t *testing.T) {
			out, errOut, code := runCLI(t, "verify", "--json", filepath.Join(corpusDir, src))
			s := lastSummary(t, out)
			if !s.Complete || errOut != "" {
				t.Fatalf("incomplete (exit %d): %s", code, errOut)
			}
			want := corpusExpect[src]
			if want == nil {
				want = map[string]int{}
			}
			if !maps.Equal(s.FindingsByKind, want) {
				t.Errorf("findings %v, want %v", s.FindingsByKind, want)
			}
			wantCode := exitOK
			if len(want) > 0 {
				wantCode = exitFindings
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d", code, wantCode)
			}
			for k, n := range corpusNotes[src] {
				if s.NotesByKind[k] != n {
					t.Errorf("%d %s notes, want %d (%v)", s.NotesByKind[k], k, n, s.NotesByKind)
				}
			}
			if s.Files == 0 {
				t.Errorf("no files verified")
			}
		})
	}
}

// TestVerifyGenerated: the generated log dir with its state files is clean
// (exit 0, notes only), and a damaged copy exits 3 with the finding in
// text output under its file.
func TestVerifyGenerated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, err := segtest.GenerateLogDir(dir, 1, segtest.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := segtest.WriteState(dir, m, segtest.StateOptions{IndexIntervalBytes: 256}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "verify", dir)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.HasSuffix(out, "verified 89 files, 16 segments, 198 batches, 628 records: 0 findings, 1 note (1 offset-gap)\n") {
		t.Errorf("summary: %s", out)
	}
	snap := filepath.Join(dir, "txn-0", "00000000000000000028.snapshot")
	data, _ := os.ReadFile(snap)
	data[30] ^= 1
	os.WriteFile(snap, data, 0o644)
	out, _, code = runCLI(t, "verify", "--no-notes", filepath.Join(dir, "txn-0"))
	if code != exitFindings {
		t.Fatalf("exit %d, want 3", code)
	}
	if out = unwrap(out); !strings.Contains(out, "findings:\n  "+snap+": error snapshot-crc at byte 2: snapshot: crc mismatch") ||
		!strings.HasSuffix(out, "1 finding (1 snapshot-crc), 0 notes\n") {
		t.Errorf("output:\n%s", out)
	}
	// A single file is verified on its own.
	_, _, code = runCLI(t, "verify", filepath.Join(dir, "codecs-0", "00000000000000000000.index"))
	if code != exitOK {
		t.Errorf("single index file: exit %d", code)
	}
}

func TestVerifyExitCodes(t *testing.T) {
	t.Parallel()
	if _, _, code := runCLI(t, "verify"); code != exitUsage {
		t.Errorf("no args: exit %d", code)
	}
	if _, _, code := runCLI(t, "verify", "--jobs", "-1", "."); code != exitUsage {
		t.Errorf("bad jobs: exit %d", code)
	}
	_, errOut, code := runCLI(t, "verify", filepath.Join(t.TempDir(), "nope"))
	if code != exitFailed || !strings.HasPrefix(errOut, "ksleuth: ") {
		t.Errorf("missing path: exit %d %q", code, errOut)
	}
}
