package realcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/recovery"
	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// loaded is what a broker's server.log and files say it did with one
// partition at startup, in the terms of recovery.Partition.
type loaded struct {
	clean                     bool
	recovered                 []int64 // segment bases, each once
	truncatedTo               int64   // -1: no truncation
	deletedSegments           []int64
	logStart, logEnd, hw      int64
	deletedSnapshots, deleted []string // file names gone after the load
}

var (
	reRecovering = regexp.MustCompile(`\[LogLoader partition=(\S+), dir=[^\]]*\] Recovering unflushed segment (\d+)\.`)
	reNoIndex    = regexp.MustCompile(`\[LogLoader partition=(\S+), dir=[^\]]*\] Could not find offset index file corresponding to log file \S*/(\d{20})\.log`)
	reCorruption = regexp.MustCompile(`\[LogLoader partition=(\S+), dir=[^\]]*\] Corruption found in segment (\d+), truncating to offset (\d+)`)
	reDeleting   = regexp.MustCompile(`\[LogLoader partition=(\S+), dir=[^\]]*\] Deleting segments as part of log recovery: (.*)`)
	reSegBase    = regexp.MustCompile(`baseOffset=(\d+)`)
	reCompleted  = regexp.MustCompile(`Completed load of Log\(dir=\S+, topicId=\S+, topic=(\S+), partition=(\d+), ` +
		`highWatermark=\d+, lastStableOffset=\d+, logStartOffset=(\d+), logEndOffset=(\d+)\)`)
	reInitialHW = regexp.MustCompile(`Log loaded for partition (\S+) with initial high watermark (\d+)`)
	reUnclean   = regexp.MustCompile(`Recovering \d+ logs from \S+ since no clean shutdown file was found`)
	reClean     = regexp.MustCompile(`Skipping recovery of \d+ logs from \S+ since clean shutdown file was found`)
)

func atoi(t *testing.T, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// brokerLoad parses the restarted broker's server.log and compares the
// partition dirs' files before (listed in before) and after.
func brokerLoad(t *testing.T, serverLog, data string, before map[string][]string) map[string]*loaded {
	t.Helper()
	text, err := os.ReadFile(serverLog)
	if err != nil {
		t.Fatal(err)
	}
	log := string(text)
	clean := reClean.MatchString(log)
	if !clean && !reUnclean.MatchString(log) {
		t.Fatalf("server.log says neither a clean nor an unclean start")
	}
	out := map[string]*loaded{}
	get := func(tp string) *loaded {
		l := out[tp]
		if l == nil {
			l = &loaded{clean: clean, truncatedTo: -1, hw: -1, logStart: -1, logEnd: -1}
			out[tp] = l
		}
		return l
	}
	for _, m := range reRecovering.FindAllStringSubmatch(log, -1) {
		l := get(m[1])
		if b := atoi(t, m[2]); !slices.Contains(l.recovered, b) {
			l.recovered = append(l.recovered, b)
		}
	}
	for _, m := range reNoIndex.FindAllStringSubmatch(log, -1) {
		l := get(m[1])
		if b := atoi(t, m[2]); !slices.Contains(l.recovered, b) {
			l.recovered = append(l.recovered, b)
		}
	}
	for _, m := range reCorruption.FindAllStringSubmatch(log, -1) {
		get(m[1]).truncatedTo = atoi(t, m[3])
	}
	for _, m := range reDeleting.FindAllStringSubmatch(log, -1) {
		l := get(m[1])
		for _, b := range reSegBase.FindAllStringSubmatch(m[2], -1) {
			l.deletedSegments = append(l.deletedSegments, atoi(t, b[1]))
		}
	}
	for _, m := range reCompleted.FindAllStringSubmatch(log, -1) {
		l := get(m[1] + "-" + m[2])
		l.logStart, l.logEnd = atoi(t, m[3]), atoi(t, m[4])
	}
	for _, m := range reInitialHW.FindAllStringSubmatch(log, -1) {
		get(m[1]).hw = atoi(t, m[2])
	}
	for dir, names := range before {
		l := get(dir)
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(data, dir, n)); err == nil {
				continue
			}
			if off, err := strconv.ParseInt(n[:min(20, len(n))], 10, 64); err == nil && slices.Contains(l.deletedSegments, off) {
				continue // a segment recovery deleted, with its files
			}
			if strings.HasSuffix(n, ".snapshot") {
				l.deletedSnapshots = append(l.deletedSnapshots, n)
			} else {
				l.deleted = append(l.deleted, n)
			}
		}
	}
	for _, l := range out {
		slices.Sort(l.recovered)
		slices.Sort(l.deletedSegments)
		slices.Sort(l.deletedSnapshots)
		slices.Sort(l.deleted)
	}
	return out
}

// predicted puts ksleuth's plan for one partition in the same terms.
func predicted(p recovery.Partition) *loaded {
	l := &loaded{clean: p.Clean, truncatedTo: -1, logStart: p.LogStartOffset, logEnd: p.LogEndOffset, hw: p.HighWatermark}
	for _, a := range p.Actions {
		name := filepath.Base(a.File)
		switch a.Action {
		case recovery.ActRecover:
			if !slices.Contains(l.recovered, a.Offset) {
				l.recovered = append(l.recovered, a.Offset)
			}
		case recovery.ActTruncate:
			l.truncatedTo = a.Offset
		case recovery.ActDelete:
			if strings.HasSuffix(name, ".log") && strings.Contains(a.Rule, "truncated") {
				l.deletedSegments = append(l.deletedSegments, a.Offset)
			} else {
				l.deleted = append(l.deleted, name)
			}
		case recovery.ActRename:
			l.deleted = append(l.deleted, name) // the .swap name is gone
		case recovery.ActDeleteSnapshot:
			l.deletedSnapshots = append(l.deletedSnapshots, name)
		}
	}
	slices.Sort(l.recovered)
	slices.Sort(l.deletedSegments)
	slices.Sort(l.deletedSnapshots)
	slices.Sort(l.deleted)
	return l
}

func (l *loaded) String() string {
	return fmt.Sprintf("clean %v, recovered %v, truncated to %d, deleted segments %v, log start %d, log end %d, HW %d, deleted snapshots %v, deleted files %v",
		l.clean, l.recovered, l.truncatedTo, l.deletedSegments, l.logStart, l.logEnd, l.hw, l.deletedSnapshots, l.deleted)
}

// recoveryCase is a crash scenario's broker dir, possibly altered, that
// a real broker is started on.
type recoveryCase struct {
	name, scenario string
	alter          func(t *testing.T, data string)
	// abort: after the comparison, end the hanging transaction with
	// ksleuth's abort command.
	abort bool
	// verdict, when set, checks verify's verdicts on the (altered) copy.
	verdict func(t *testing.T, data string)
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, to, data)
}

// firstLog is the first segment of a partition dir.
func firstLog(t *testing.T, dir string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) == 0 {
		t.Fatalf("no segment in %s", dir)
	}
	slices.Sort(logs)
	return logs[0]
}

var recoveryCases = []recoveryCase{
	{name: "broker-crash", scenario: "broker-crash"},
	// Issue #42 (realkafka_retention_test.go): real retention by time,
	// the oldest segment removed, and the active segment of the clean
	// copy cut below its offset index's last entry.
	{name: "retention-time", scenario: "retention-time", verdict: retentionVerdicts},
	{name: "oldest-removed", scenario: "retention-time", alter: removeOldest, verdict: oldestRemovedVerdicts},
	{name: "clean-cut", scenario: "retention-time", alter: cutActive, verdict: cleanCutVerdicts},
	{name: "hanging-txn", scenario: "hanging-txn", abort: true},
	{name: "live-copy", scenario: "live-copy"},
	// A torn tail of garbage, a stray and a too-new snapshot, a
	// leftover .deleted segment, a .cleaned file and an orphaned index.
	{name: "broker-crash-damaged", scenario: "broker-crash", alter: func(t *testing.T, data string) {
		part := filepath.Join(data, "crash-0")
		seg := firstLog(t, part)
		f, err := os.OpenFile(seg, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		// A batch header claiming 200 bytes that are not there.
		if _, err := f.Write([]byte{0, 0, 0, 0, 0, 0, 0x7f, 0, 0, 0, 0, 200, 0, 0, 0, 0, 2, 1, 2, 3, 4}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		snaps, _ := filepath.Glob(filepath.Join(part, "*.snapshot"))
		if len(snaps) > 0 {
			copyFile(t, snaps[0], filepath.Join(part, "00000000000000000005.snapshot"))
			copyFile(t, snaps[0], filepath.Join(part, "00000000000099999999.snapshot"))
		}
		copyFile(t, seg, filepath.Join(part, "00000000000000000007.log.deleted"))
		copyFile(t, seg, filepath.Join(part, "00000000000000000003.log.cleaned"))
		mustWrite(t, filepath.Join(part, "00000000000000099999.timeindex"), make([]byte, 12))
	}},
	// A clean start (the marker written into the copy) with one offset
	// index missing: only the sanity check recovers that segment.
	{name: "hanging-txn-clean-missing-index", scenario: "hanging-txn", alter: func(t *testing.T, data string) {
		mustWrite(t, filepath.Join(data, ".kafka_cleanshutdown"), nil)
		seg := firstLog(t, filepath.Join(data, "orders-0"))
		if err := os.Remove(strings.TrimSuffix(seg, ".log") + ".index"); err != nil {
			t.Fatal(err)
		}
	}},
}

// checkRestarts runs the restart cases of scenario on its finished run
// in out (runScenario calls it): for each, ksleuth verify --recovery on
// a copy of the broker's log dir (altered when the case says so) against
// a real broker started on that copy: the start (clean or not), the
// segments it recovered, where it truncated, the segments and files it
// deleted, the snapshots it deleted, and the log start, log end and
// initial high watermark it loaded. On hanging-txn's unaltered copy the
// hanging transaction is then aborted with ksleuth's command
// (checkAbortOnRestart).
func checkRestarts(t *testing.T, k *realkafka.Kafka, scenario, out string) {
	for _, c := range recoveryCases {
		if c.scenario != scenario {
			continue
		}
		t.Run("restart/"+c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			var plan []recovery.Partition
			var open []analysis.OpenTxn
			before := map[string][]string{}
			root := filepath.Join(t.TempDir(), "restart")
			prepare := func(data string) error {
				if c.alter != nil {
					c.alter(t, data)
				}
				if c.verdict != nil {
					c.verdict(t, data)
				}
				stdout, errs, code := scanCmd(t, "verify", "--recovery", "--json", "--progress", "never", data)
				if code != exitOK {
					return fmt.Errorf("verify --recovery: exit %d\n%s", code, errs)
				}
				for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
					var p recovery.Partition
					if err := json.Unmarshal([]byte(line), &p); err != nil {
						return err
					}
					plan = append(plan, p)
					ents, err := os.ReadDir(filepath.Join(data, p.Dir))
					if err != nil {
						return err
					}
					for _, e := range ents {
						before[p.Dir] = append(before[p.Dir], e.Name())
					}
				}
				text, _, _ := scanCmd(t, "verify", "--recovery", "--progress", "never", data)
				t.Logf("ksleuth verify --recovery:\n%s", text)
				if c.abort {
					open = openTxnsOf(t, data)
				}
				return nil
			}
			r, err := realkafka.Restart(ctx, k, out, 1, root, prepare, t.Logf)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// The initial high watermark is logged when the partition
			// becomes leader, after the load.
			serverLog := filepath.Join(root, "logs", "server.log")
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
				text, _ := os.ReadFile(serverLog)
				if len(reInitialHW.FindAll(text, -1)) >= len(plan)-1 { // all but __cluster_metadata
					break
				}
			}
			got := brokerLoad(t, serverLog, filepath.Join(root, "data"), before)
			agree, n := 0, 0
			for _, p := range plan {
				if p.Topic == "__cluster_metadata" {
					continue
				}
				n++
				want := predicted(p)
				b := got[p.Dir]
				if b == nil {
					t.Errorf("%s: nothing in the broker's log about it", p.Dir)
					continue
				}
				if want.String() != b.String() {
					t.Errorf("%s:\nksleuth: %s\nbroker:  %s", p.Dir, want, b)
					continue
				}
				agree++
				t.Logf("%s agrees: %s", p.Dir, want)
			}
			t.Logf("%s: %d of %d partitions predicted exactly", c.name, agree, n)
			if c.abort {
				checkAbortOnRestart(t, k, r.Cluster.BootstrapString(), open)
			}
		})
	}
}
