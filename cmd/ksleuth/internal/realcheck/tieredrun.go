package realcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

// The tiered scenarios: a Kafka 4.4 broker with tiered
// storage on (Kafka's LocalTieredStorage and the topic-based remote log
// metadata manager) copies a topic's rolled segments to remote storage
// and deletes them locally. The log dir alone then holds only the tail:
// verify must call the rest remote-only (held), from the records of
// __remote_log_metadata, which dump must print as kafka-dump-log does.

// RunTiered runs the tiered scenarios of a family of Families on the
// newest release, two at a time, each with its checks: the truth, the
// dumps against kafka-dump-log, and for clean tiering the log dir alone
// and the remote root. The scenarios are split over two packages so that
// neither takes more than a few minutes on two busy cores.
func RunTiered(t *testing.T, family string) {
	if testing.Short() {
		t.Skip("real Kafka brokers take minutes: left out under -short")
	}
	k := Release(t, realkafka.Newest)
	names, ok := Families[family]
	if !ok || len(names) == 0 {
		t.Fatalf("no tiered scenario in family %q", family)
	}
	for _, name := range names {
		if !Selected("KSLEUTH_REAL_KAFKA_SCENARIOS", name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			// Each scenario takes a minute or two of waiting on a broker:
			// two at a time keep the package within go test's timeout.
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
			defer cancel()
			truth, err := realkafka.Run(ctx, k, name, Seed(t), dir, t.Logf)
			if err != nil {
				t.Fatal(err)
			}
			if len(truth.Brokers) != 1 || len(truth.RemoteRoots) != 1 {
				t.Fatalf("truth names %d brokers and remote roots %v, want 1 and 1", len(truth.Brokers), truth.RemoteRoots)
			}
			data := filepath.Join(dir, filepath.FromSlash(truth.Brokers[0].LogDir))
			root := filepath.Join(dir, filepath.FromSlash(truth.RemoteRoots[0]))
			local := tieredLocalStart(t, data, "tiered-0")
			t.Run("truth", func(t *testing.T) { CheckTieredTruth(t, dir, truth) })
			t.Run("dump-metadata", func(t *testing.T) { checkRemoteMetadataDump(t, k, data) })
			t.Run("dump-remote", func(t *testing.T) { checkRemoteSegmentDump(t, k, root) })
			if name == "tier-copy-failed" || name == "tiered-clean" {
				// tiered-0 is clean tiering there: the log dir alone says so.
				t.Run("verify", func(t *testing.T) { checkTieredVerify(t, truth, data, local) })
			}
			if name != "tiered-clean" {
				return
			}
			t.Run("remote-segments", func(t *testing.T) { checkRemoteSegments(t, data, root, local) })
			t.Run("remote-root", func(t *testing.T) { checkTieredRemoteRoot(t, data, root, local) })
			t.Run("remote-deleted", func(t *testing.T) { checkTieredRemoteDeleted(t, data, root, local) })
		})
	}
}

// tieredLocalStart is the base offset of the partition dir's first
// segment: where the local log starts.
func tieredLocalStart(t *testing.T, data, dir string) int64 {
	logs, _ := filepath.Glob(filepath.Join(data, dir, "*.log"))
	if len(logs) == 0 {
		t.Fatalf("no segment in %s", dir)
	}
	slices.Sort(logs)
	base, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(logs[0]), ".log"), 10, 64)
	if err != nil || base == 0 {
		t.Fatalf("%s starts at 0: nothing was tiered", dir)
	}
	return base
}

// checkTieredVerify: verify on the log dir alone finds nothing wrong;
// the offsets below the local start are one remote-only range, every
// record of the truth below it inside, and the verdict says so.
func checkTieredVerify(t *testing.T, truth *realkafka.Truth, data string, local int64) {
	out, errs, code := clitest.Run(t, "verify", "--json", "--progress", "never", data)
	if code != clitest.ExitOK {
		t.Fatalf("verify: exit %d\n%s\n%s", code, errs, out)
	}
	var gaps, verdicts []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m["type"] == "finding" && m["severity"] != "note":
			t.Errorf("finding on a clean tiered copy: %v", m)
		case m["type"] == "gap" && m["dir"] == "tiered-0":
			gaps = append(gaps, m)
		case m["type"] == "partition" && m["dir"] == "tiered-0":
			verdicts = append(verdicts, m)
		}
	}
	if len(gaps) != 1 || gaps[0]["cause"] != "remote-only" || gaps[0]["severity"] != "note" ||
		gaps[0]["first_offset"] != 0.0 || gaps[0]["last_offset"] != float64(local-1) {
		t.Errorf("tiered-0 gaps %v, want one remote-only note 0..%d", gaps, local-1)
	}
	want := fmt.Sprintf("remote-only: offsets 0..%d", local-1)
	if len(verdicts) != 1 || verdicts[0]["state"] != "intact" || !strings.Contains(fmt.Sprint(verdicts[0]["verdict"]), want) {
		t.Errorf("tiered-0 verdict %v, want intact with %q", verdicts, want)
	}
	below := 0
	for _, r := range truth.Records {
		if r.Topic == "tiered" && r.Offset < local {
			below++
		}
	}
	if below == 0 || len(truth.Lost) != 0 {
		t.Errorf("truth: %d records below the local start %d, %d lost runs; want some and none", below, local, len(truth.Lost))
	}
}

// checkRemoteSegments: remote_segments.parquet lists the remote segments,
// held, covering 0 up to the local start without a hole, each with its
// log file in the remote root at the size the metadata gives.
func checkRemoteSegments(t *testing.T, data, root string, local int64) {
	out := filepath.Join(t.TempDir(), "out")
	clitest.MustRun(t, "scan", data, "--out", out, "--progress", "never")
	rows := clitest.ReadTable[analysis.RemoteSegmentRow](t, filepath.Join(out, "remote_segments.parquet"))
	next := int64(0)
	for _, r := range rows {
		if !r.Held || r.State != "COPY_SEGMENT_FINISHED" || r.States != "COPY_SEGMENT_STARTED > COPY_SEGMENT_FINISHED" || r.Topic != "tiered" {
			t.Errorf("segment %+v: want held, its copy finished", r)
		}
		if r.StartOffset != next {
			t.Errorf("segment %s starts at %d, want %d", r.SegmentID, r.StartOffset, next)
		}
		next = r.EndOffset + 1
		name := fmt.Sprintf("%020d-%s.log", r.StartOffset, r.SegmentID)
		files, _ := filepath.Glob(filepath.Join(root, fmt.Sprintf("%s-%d-%s", r.Topic, r.Partition, r.TopicID), name))
		if len(files) != 1 {
			t.Errorf("segment %s: no %s in the remote root", r.SegmentID, name)
			continue
		}
		if st, err := os.Stat(files[0]); err != nil || st.Size() != int64(r.SizeBytes) {
			t.Errorf("%s: size %v (%v), metadata says %d", name, st.Size(), err, r.SizeBytes)
		}
	}
	if len(rows) == 0 || next != local {
		t.Errorf("%d remote segments end at %d, want the local start %d", len(rows), next-1, local)
	}
}

// recordLines are the lines of a dump that print records ("| offset:").
func recordLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "baseOffset:") {
			ls = append(ls, l)
		}
	}
	return ls
}

// checkRemoteMetadataDump: dump prints every record of
// __remote_log_metadata as kafka-dump-log --remote-log-metadata-decoder
// does, byte for byte.
func checkRemoteMetadataDump(t *testing.T, k *realkafka.Kafka, data string) {
	logs, _ := filepath.Glob(filepath.Join(data, "__remote_log_metadata-*", "*.log"))
	if len(logs) == 0 {
		t.Fatal("no __remote_log_metadata segment")
	}
	for _, f := range logs {
		kd, err := k.DumpLog([]string{f}, "--remote-log-metadata-decoder", "--print-data-log")
		if err != nil {
			t.Fatal(err)
		}
		ks := clitest.MustRun(t, "dump", "--payload", f)
		want, got := recordLines(kd), recordLines(ks)
		if len(want) == 0 || !slices.Equal(want, got) {
			t.Errorf("%s: %d lines from kafka-dump-log, %d from dump; first difference: %s", f, len(want), len(got), clitest.FirstDiff(want, got))
		}
	}
}

// checkRemoteSegmentDump: every remote segment dumps as kafka-dump-log
// dumps it. kafka-dump-log takes a segment's base offset from its name
// and fails on LocalTieredStorage's offset-uuid names, so both read a
// copy named by the offset alone.
func checkRemoteSegmentDump(t *testing.T, k *realkafka.Kafka, root string) {
	logs, _ := filepath.Glob(filepath.Join(root, "*", "*.log"))
	if len(logs) == 0 {
		t.Fatal("no remote segment")
	}
	tmp := t.TempDir()
	for _, f := range logs {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base, _, _ := strings.Cut(filepath.Base(f), "-")
		cp := filepath.Join(tmp, base+".log")
		if err := os.WriteFile(cp, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		kd, err := k.DumpLog([]string{cp}, "--deep-iteration")
		if err != nil {
			t.Fatal(err)
		}
		want, got := recordLines(kd), recordLines(clitest.MustRun(t, "dump", "--records", cp))
		if len(want) == 0 || !slices.Equal(want, got) {
			t.Errorf("%s: %d lines from kafka-dump-log, %d from dump; first difference: %s", f, len(want), len(got), clitest.FirstDiff(want, got))
		}
	}
}
