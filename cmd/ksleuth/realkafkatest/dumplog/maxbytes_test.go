package dumplog

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/realcheck"
)

// batchLines are the batch lines of kafka-dump-log style output (record
// lines start with "|", headers with "Dumping" or "Log starting").
func batchLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "baseOffset: ") || strings.HasPrefix(l, "offset: ") {
			lines = append(lines, l)
		}
	}
	return lines
}

var positionField = regexp.MustCompile(` position: (\d+) `)

// TestDumpMaxBytesMatchesKafkaDumpLog runs kafka-dump-log --max-bytes and
// ksleuth dump --max-bytes on a real broker's segment and on the sample's
// codecs segment, cut before the first batch ends, through a batch, at a
// batch's exact end and past the file, and requires the same batches.
func TestDumpMaxBytesMatchesKafkaDumpLog(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("\n\n*** SKIPPING the kafka-dump-log --max-bytes comparison in -short mode (it starts a JVM per cut). ***\n")
	}
	k := realcheck.Release(t, realkafka.Newest)
	files := []string{filepath.Join(sampleDir, "codecs-0", "00000000000000000000.log")}
	if root := corpusPath(t, "real"); root != "" {
		files = append(files, filepath.Join(root, "ArthurArutunyan04__Backend_labs", "kafka-data", "oms_order_status_changed-4", "00000000000000000000.log"))
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		full := batchLines(runOK(t, "dump", f))
		if len(full) < 8 {
			t.Fatalf("%s: only %d batches", f, len(full))
		}
		// The start of batch 5 is the end of batch 4.
		n, _ := strconv.ParseInt(positionField.FindStringSubmatch(full[5])[1], 10, 64)
		for _, cut := range []int64{30, n - 1, n, n + 40, fi.Size(), fi.Size() + 100} {
			arg := []string{"--max-bytes", strconv.FormatInt(cut, 10)}
			want, err := k.DumpLog([]string{f}, arg...)
			if err != nil {
				t.Fatal(err)
			}
			out, errs, code := scanCmd(t, append([]string{"dump", "--fail-on-findings", f}, arg...)...)
			if code != exitOK {
				t.Errorf("%s --max-bytes %d: exit %d\n%s", f, cut, code, errs)
			}
			w, g := batchLines(want), batchLines(out)
			if strings.Join(w, "\n") != strings.Join(g, "\n") || cut >= fi.Size() && len(g) != len(full) {
				t.Errorf("%s --max-bytes %d: %d batches, kafka-dump-log %d:\n%s", f, cut, len(g), len(w), firstDiff(w, g))
			}
			t.Logf("%s --max-bytes %d: %d of %d batches, as kafka-dump-log %s prints them", filepath.Base(filepath.Dir(f)), cut, len(g), len(full), realkafka.Newest)
		}
	}
}
