package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
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

// TestDumpSelection checks dump --offsets, --since and --until against
// the unselected dump: the batches printed are those whose offsets and
// timestamps meet the selection, and the records those inside it.
func TestDumpSelection(t *testing.T) {
	t.Parallel()
	f := filepath.Join(sampleDir, "codecs-0", "00000000000000000000.log")
	all := recordsJSON(t, f)
	for _, c := range []struct {
		args []string
		keep func(r recordLine) bool
	}{
		{[]string{"--offsets", "30..45"}, func(r recordLine) bool { return r.Offset >= 30 && r.Offset <= 45 }},
		{[]string{"--offsets", "50.."}, func(r recordLine) bool { return r.Offset >= 50 }},
		{[]string{"--since", "1700047598520", "--until", "2023-11-15T11:26:39.246Z"}, func(r recordLine) bool {
			return r.Timestamp != nil && *r.Timestamp >= 1700047598520 && *r.Timestamp < 1700047599246
		}},
	} {
		var want []string
		for _, r := range all {
			if c.keep(r) {
				want = append(want, strconv.FormatInt(r.Offset, 10))
			}
		}
		out := runOK(t, append([]string{"dump", "--records", f}, c.args...)...)
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if m := recordOffset.FindStringSubmatch(l); m != nil {
				got = append(got, m[1])
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") || len(want) < 3 {
			t.Errorf("dump %v: records %v, want %v", c.args, got, want)
		}
		// Every batch printed holds a selected record.
		if n := len(batchLines(out)); n == 0 || n > len(want) {
			t.Errorf("dump %v: %d batches for %d records", c.args, n, len(want))
		}
	}
}

var recordOffset = regexp.MustCompile(`^\| offset: (\d+) `)
