package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyClusterVerdictFirst: the three brokers of
// docs/investigating.md §4 (broker 2's active segment of idempotent-0 cut
// at 600 bytes, broker 3's removed). verify leads with the partition's
// verdict across the copies: intact, broker 1 holding every offset, the
// other two lost their tails; the JSON lines carry one cluster_verdict
// per partition, first; replicas calls neither copy lagging; scan's
// losses name each lost copy by its broker's input, as verify does.
func TestVerifyClusterVerdictFirst(t *testing.T) {
	dir := t.TempDir()
	var brokers []string
	for _, b := range []string{"1", "2", "3"} {
		d := filepath.Join(dir, "broker-"+b)
		if out, err := exec.Command("cp", "-r", filepath.Join("..", "..", "testdata", "logdirs", "generated"), d).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v: %s", err, out)
		}
		meta := filepath.Join(d, "meta.properties")
		data, err := os.ReadFile(meta)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(meta, []byte(strings.Replace(string(data), "broker.id=0", "broker.id="+b, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		brokers = append(brokers, d)
	}
	if err := os.Truncate(filepath.Join(brokers[1], "idempotent-0", "00000000000000000070.log"), 600); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".log", ".index", ".timeindex"} {
		if err := os.Remove(filepath.Join(brokers[2], "idempotent-0", "00000000000000000070"+ext)); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb strings.Builder
	code := run(append([]string{"verify", "--no-notes", "--topic", "^idempotent$"}, brokers...), &out, &errb)
	lines := strings.Split(unwrap(out.String()), "\n")
	if code != 3 || len(lines) < 3 || lines[0] != "partitions across brokers:" {
		t.Fatalf("exit %d, output:\n%s%s", code, out.String(), errb.String())
	}
	want := "  idempotent-0: intact across 3 copies: offsets 0..84; broker 1 holds every offset; broker 2 lost 75..84; broker 3 lost 70..84"
	if lines[1] != want {
		t.Errorf("cluster verdict\n%s\nwant\n%s", lines[1], want)
	}
	out.Reset()
	run(append([]string{"verify", "--json", "--topic", "^idempotent$"}, brokers...), &out, &errb)
	js := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(js) < 2 || !strings.HasPrefix(js[0], `{"type":"cluster_verdict"`) || !strings.HasPrefix(js[1], `{"type":"cluster_verdict"`) ||
		strings.Count(out.String(), `"type":"cluster_verdict"`) != 2 {
		t.Errorf("want two cluster_verdict lines first, got:\n%s", out.String())
	}
	out.Reset()
	run(append([]string{"replicas", "--topic", "^idempotent$"}, brokers...), &out, &errb)
	if strings.Contains(out.String(), "lagging") || !strings.Contains(out.String(), "broker 2 lost 75–84") {
		t.Errorf("replicas:\n%s", out.String())
	}
	out.Reset()
	run(append([]string{"scan", "--progress", "never", "--topic", "^idempotent$", "--out", filepath.Join(dir, "tables")}, brokers...), &out, &errb)
	scan := unwrap(out.String())
	for _, b := range brokers[1:] {
		if w := "\n  " + filepath.ToSlash(filepath.Join(b, "idempotent-0")) + ": LOST "; strings.Count(scan, w) != 1 {
			t.Errorf("scan's losses do not name %s's copy once (%q):\n%s%s", filepath.Base(b), w, scan, errb.String())
		}
	}
	if strings.Contains(scan, "\n  idempotent-0: LOST") {
		t.Errorf("scan names a lost copy without its input:\n%s", scan)
	}
}
