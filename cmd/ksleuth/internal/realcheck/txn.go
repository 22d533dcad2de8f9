package realcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// txnTable parses a table kafka-transactions.sh prints: a header line of
// column names, then rows, fields separated by whitespace.
func txnTable(t *testing.T, out string) []map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
		t.Fatalf("no table in %q", out)
	}
	head := strings.Fields(lines[0])
	var rows []map[string]string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != len(head) {
			t.Fatalf("row %q does not match header %q", l, lines[0])
		}
		m := map[string]string{}
		for i, h := range head {
			m[h] = f[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func openTxnsOf(t *testing.T, logDir string) []analysis.OpenTxn {
	t.Helper()
	out, errs, code := scanCmd(t, "producers", "--json", "--progress", "never", logDir)
	if code != exitOK && code != exitFindings {
		t.Fatalf("producers: exit %d\n%s", code, errs)
	}
	var open []analysis.OpenTxn
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, `{"type":"open_transaction"`) {
			continue
		}
		var h analysis.OpenTxn
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatal(err)
		}
		open = append(open, h)
	}
	return open
}

// runAbort runs the abort command ksleuth suggests against bootstrap.
func runAbort(t *testing.T, k *realkafka.Kafka, bootstrap, cmd string) string {
	t.Helper()
	const prefix = "kafka-transactions.sh --bootstrap-server HOST:PORT "
	if !strings.HasPrefix(cmd, prefix) {
		t.Fatalf("abort command %q", cmd)
	}
	out, err := k.Transactions(bootstrap, strings.Fields(strings.TrimPrefix(cmd, prefix))...)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return out
}

// checkHangingLive holds ksleuth's open transactions on the log dir of
// hanging-txn's killed broker to what kafka-transactions.sh said about
// that broker while it ran (runScenario calls it): describe-producers
// for every partition, find-hanging for the broker.
func checkHangingLive(t *testing.T, dir string) {
	logs := filepath.Join(dir, "broker-1", "logs")
	logDir := filepath.Join(dir, "broker-1", "data")
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(logs, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	found := read(realkafka.FindHangingFile)
	t.Logf("kafka-transactions.sh find-hanging on the live broker:\n%s", found)
	open := openTxnsOf(t, logDir)
	for _, h := range open {
		t.Logf("ksleuth: %s-%d producer %d epoch %d from offset %d: %s; coordinator epoch %d\n  %s",
			h.Topic, h.Partition, h.ProducerID, h.ProducerEpoch, h.FirstOffset, h.CoordinatorState, h.CoordinatorEpoch, h.Abort)
	}
	key := func(topic string, part int32, pid int64, epoch int32, start int64) string {
		return fmt.Sprintf("%s-%d pid %d epoch %d start %d", topic, part, pid, epoch, start)
	}
	var got, gotHanging []string
	epochOf := map[string]int32{}
	for _, h := range open {
		k := key(h.Topic, h.Partition, h.ProducerID, h.ProducerEpoch, h.FirstOffset)
		got = append(got, k)
		epochOf[k] = h.CoordinatorEpoch
		if h.CoordinatorState == analysis.CoordinatorHanging {
			gotHanging = append(gotHanging, k)
		}
	}
	// Every producer the live broker reported with a transaction open.
	var want []string
	files, _ := filepath.Glob(filepath.Join(logs, "kafka-transactions-describe-producers-*.txt"))
	if len(files) < 3 {
		t.Fatalf("describe-producers outputs: %v", files)
	}
	for _, f := range files {
		var part int32
		base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "kafka-transactions-describe-producers-"), ".txt")
		i := strings.LastIndexByte(base, '-')
		topic := base[:i]
		fmt.Sscan(base[i+1:], &part)
		for _, r := range txnTable(t, read(filepath.Base(f))) {
			if r["CurrentTransactionStartOffset"] == "None" || r["CurrentTransactionStartOffset"] == "-1" {
				continue
			}
			var pid, start int64
			var epoch, coord int32
			fmt.Sscan(r["ProducerId"], &pid)
			fmt.Sscan(r["ProducerEpoch"], &epoch)
			fmt.Sscan(r["CurrentTransactionStartOffset"], &start)
			fmt.Sscan(r["LatestCoordinatorEpoch"], &coord)
			k := key(topic, part, pid, epoch, start)
			want = append(want, k)
			if e, ok := epochOf[k]; ok && e != coord {
				t.Errorf("%s: ksleuth's coordinator epoch is %d, the broker's %d", k, e, coord)
			}
		}
	}
	var wantHanging []string
	for _, r := range txnTable(t, found) {
		var pid, start int64
		var epoch, part, coord int32
		fmt.Sscan(r["ProducerId"], &pid)
		fmt.Sscan(r["ProducerEpoch"], &epoch)
		fmt.Sscan(r["StartOffset"], &start)
		fmt.Sscan(r["Partition"], &part)
		fmt.Sscan(r["CoordinatorEpoch"], &coord)
		k := key(r["Topic"], part, pid, epoch, start)
		wantHanging = append(wantHanging, k)
		if e, ok := epochOf[k]; ok && e != coord {
			t.Errorf("%s: ksleuth's coordinator epoch is %d, find-hanging's %d", k, e, coord)
		}
	}
	for _, s := range [][]string{got, want, gotHanging, wantHanging} {
		slices.Sort(s)
	}
	if !slices.Equal(got, want) {
		t.Errorf("open transactions:\nksleuth:            %q\ndescribe-producers: %q", got, want)
	}
	if len(wantHanging) != 1 || !slices.Equal(gotHanging, wantHanging) {
		t.Errorf("hanging transactions:\nksleuth:      %q\nfind-hanging: %q", gotHanging, wantHanging)
	}
}

// checkAbortOnRestart: on a broker started on a copy of hanging-txn's
// dir, the producer state rebuilt from the log holds the hanging
// transaction again (find-hanging lists it), the abort ksleuth printed
// for it ends it, and find-hanging lists nothing after.
func checkAbortOnRestart(t *testing.T, k *realkafka.Kafka, boot string, open []analysis.OpenTxn) {
	again, err := k.Transactions(boot, "find-hanging", "--broker-id", "1", "--max-transaction-timeout", "0")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("find-hanging on a broker started on the copy:\n%s", again)
	if rows := txnTable(t, again); len(rows) != 1 || rows[0]["Topic"] != realkafka.HangingTopic {
		t.Fatalf("find-hanging after the restart: %v", rows)
	}
	aborted := 0
	for _, h := range open {
		if h.CoordinatorState != analysis.CoordinatorHanging {
			continue
		}
		t.Logf("running ksleuth's %s", h.Abort)
		t.Logf("%s", runAbort(t, k, boot, h.Abort))
		aborted++
	}
	if aborted != 1 {
		t.Fatalf("%d hanging transactions in ksleuth's report on the copy", aborted)
	}
	after, err := k.Transactions(boot, "find-hanging", "--broker-id", "1", "--max-transaction-timeout", "0")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("find-hanging after the abort:\n%s", after)
	if rows := txnTable(t, after); len(rows) != 0 {
		t.Errorf("still hanging after ksleuth's abort: %v", rows)
	}
	desc, err := k.Transactions(boot, "describe-producers", "--topic", realkafka.HangingTopic, "--partition", "0")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range txnTable(t, desc) {
		if row["CurrentTransactionStartOffset"] != "None" && row["CurrentTransactionStartOffset"] != "-1" {
			t.Errorf("describe-producers after the abort: %v", row)
		}
	}
}
