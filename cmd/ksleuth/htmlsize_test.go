package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestReportPageOfManyPartitions: the page of a log dir of 5,000 intact
// partitions, each written by its own idempotent producer, stays small
// (13.5 MB before the intact copies were counted by topic and the
// timelines capped): the intact copies are counted by topic, and the
// producer timelines drawn are capped with a count of the rest.
func TestReportPageOfManyPartitions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for p := range 5000 {
		pd := filepath.Join(dir, fmt.Sprintf("t%d-%d", p%7, p))
		if err := os.Mkdir(pd, 0o755); err != nil {
			t.Fatal(err)
		}
		b := segtest.Batch{Magic: 2, FirstTimestamp: 1700000000000 + int64(p), AutoDeltas: true,
			Producer: &segtest.Producer{ID: int64(1000 + p), BaseSequence: 0},
			Records:  []segtest.Record{{Key: fmt.Appendf(nil, "k%d", p), Value: []byte("v")}}}.Encode()
		if err := os.WriteFile(filepath.Join(pd, "00000000000000000000.log"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if _, errOut, code := runCLI(t, "report", "--progress", "never", "--html", page, dir); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if len(data) > 2<<20 || !strings.Contains(s, "<summary>5000 intact partition copies, by topic</summary>") ||
		!strings.Contains(s, "4900 more partition(s) not drawn") {
		t.Errorf("page of %d bytes (want at most 2 MiB), intact copies by topic and 100 timelines drawn", len(data))
	}
}
