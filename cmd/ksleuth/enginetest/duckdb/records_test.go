package duckdb

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/enginecheck"
)

// recordCase is one selection: the records flags and the SQL condition
// that selects the same rows of the records table.
type recordCase struct {
	name  string
	flags []string
	where string
}

// recordCases builds selections from the records of an input (all, in
// records' order): a key, header and topic that occur, offsets and times
// in the middle of what is there, so that each selects some records and
// not all.
func recordCases(t *testing.T, all []clitest.RecordLine) []recordCase {
	t.Helper()
	if len(all) < 20 {
		t.Fatalf("only %d records", len(all))
	}
	mid := all[len(all)/3]
	var key []byte
	for _, r := range all[len(all)/3:] {
		if r.Key != nil && *r.Key != "" {
			key, _ = hex.DecodeString(*r.Key)
			break
		}
	}
	var maxOff int64
	var times []int64
	headerCount := map[string]int{}
	var hName, hValue string
	for _, r := range all {
		maxOff = max(maxOff, r.Offset)
		if r.Timestamp != nil {
			times = append(times, *r.Timestamp)
		}
		for _, h := range r.Headers {
			headerCount[h.Key]++
			if hName == "" && h.Value != nil && *h.Value != "" && h.Key != "" && !strings.ContainsAny(h.Key, "=") {
				hName, hValue = h.Key, *h.Value
			}
		}
	}
	slices.Sort(times)
	t1, t2 := times[len(times)*3/10], times[len(times)*6/10]
	if t1 == t2 {
		t2++
	}
	a, b := maxOff/4, maxOff/2
	hv, _ := hex.DecodeString(hValue)
	cases := []recordCase{
		{"all", nil, "true"},
		{"key", []string{"--key", string(key)}, fmt.Sprintf("lower(hex(key)) = '%x'", key)},
		{"key-regex", []string{"--key-regex", `[0-9]$`}, `regexp_matches(lower(hex(key)), '3[0-9]$')`},
		{"value-regex", []string{"--value-regex", `^[A-Z]`}, `regexp_matches(lower(hex(value)), '^(4[1-9a-f]|5[0-9a])')`},
		{"value-regex-digits", []string{"--value-regex", `[0-9]{2}`}, `regexp_matches(lower(hex(value)), '^(..)*3[0-9]3[0-9]')`},
		{"offsets", []string{"--offsets", fmt.Sprintf("%d..%d", a, b)}, fmt.Sprintf(`"offset" BETWEEN %d AND %d`, a, b)},
		{"offsets-from", []string{"--offsets", fmt.Sprintf("%d..", b)}, fmt.Sprintf(`"offset" >= %d`, b)},
		{"offsets-to", []string{"--offsets", fmt.Sprintf("..%d", a)}, fmt.Sprintf(`"offset" <= %d`, a)},
		{"time", []string{"--since", fmt.Sprint(t1), "--until", time.UnixMilli(t2).UTC().Format(time.RFC3339Nano)},
			fmt.Sprintf(`epoch_ms("timestamp") >= %d AND epoch_ms("timestamp") < %d`, t1, t2)},
		{"since", []string{"--since", time.UnixMilli(t2).UTC().Format(time.RFC3339Nano)}, fmt.Sprintf(`epoch_ms("timestamp") >= %d`, t2)},
		{"header", []string{"--header", hName}, fmt.Sprintf(`len(list_filter(headers, h -> h.key = '%s')) > 0`, hName)},
		{"header-value", []string{"--header", hName + "=" + string(hv)},
			fmt.Sprintf(`len(list_filter(headers, h -> h.key = '%s' AND lower(hex(h.value)) = '%s')) > 0`, hName, hValue)},
		{"topic-partition-offsets", []string{"--topic", "^" + mid.Topic + "$", "--partition", fmt.Sprint(mid.Partition), "--offsets", fmt.Sprintf("%d..", mid.Offset)},
			fmt.Sprintf(`topic = '%s' AND "partition" = %d AND "offset" >= %d`, mid.Topic, mid.Partition, mid.Offset)},
		{"key-regex-offsets", []string{"--key-regex", `[0-9]$`, "--offsets", fmt.Sprintf("%d..%d", a, b)},
			fmt.Sprintf(`regexp_matches(lower(hex(key)), '3[0-9]$') AND "offset" BETWEEN %d AND %d`, a, b)},
		{"header-time", []string{"--header", hName, "--since", fmt.Sprint(t1)},
			fmt.Sprintf(`len(list_filter(headers, h -> h.key = '%s')) > 0 AND epoch_ms("timestamp") >= %d`, hName, t1)},
	}
	if hName == "" || key == nil {
		t.Fatalf("no header with a value or no key among %d records", len(all))
	}
	return cases
}

// TestRecordsMatchDuckDB checks every selection of `records` against
// DuckDB's answer to the same question over `scan --records --payload`'s
// records table, on the generated log dir and the third-party corpus (its
// segments written by franz-go, librdkafka and kafka-python), and that
// reading without the indexes gives the same records.
func TestRecordsMatchDuckDB(t *testing.T) {
	t.Parallel()
	node, nodeModules := clitest.NeedDuckDB(t)
	third := enginecheck.ThirdParty
	ents, err := os.ReadDir(third)
	if err != nil {
		t.Fatalf("the third-party corpus is missing: %v", err)
	}
	var thirdDirs []string
	for _, e := range ents {
		if e.IsDir() {
			thirdDirs = append(thirdDirs, filepath.Join(third, e.Name()))
		}
	}
	for _, in := range []struct {
		name    string
		paths   []string
		damaged bool
	}{
		{"sample", []string{enginecheck.GeneratedDir}, false},
		{"thirdparty", thirdDirs, false},
		{"damaged", []string{damagedSample(t)}, true},
	} {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			scanArgs := append([]string{"scan", "--records", "--payload", "--progress", "never", "--hash", "none", "--out", out}, in.paths...)
			if _, errs, code := clitest.Run(t, scanArgs...); code != clitest.ExitOK && !(in.damaged && code == clitest.ExitFindings) {
				t.Fatalf("scan %s: exit %d\n%s", in.name, code, errs)
			}
			all, findings := recordsJSON(t, in.damaged, in.paths...)
			if in.damaged && findings < 2 {
				t.Errorf("damaged: %d findings", findings)
			}
			for _, c := range recordCases(t, all) {
				got, _ := recordsJSON(t, in.damaged, append(c.flags, in.paths...)...)
				want := clitest.RunNode(t, node, nodeModules, "", enginecheck.Script("duckdb_records.cjs"), filepath.Join(out, export.Records), c.where)
				if len(want) == 1 && want[0] == "" {
					want = nil
				}
				gl := sqlLines(got)
				if strings.Join(gl, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s %s: records %v gives %d records, DuckDB (%s) %d:\n%s", in.name, c.name, c.flags, len(gl), c.where, len(want), clitest.FirstDiff(want, gl))
					continue
				}
				if in.name == "sample" && (len(gl) == 0 || len(gl) == len(all) && c.name != "all") {
					t.Errorf("%s %s: %d of %d records selected: the case tests nothing", in.name, c.name, len(gl), len(all))
				}
				noIdxRecs, _ := recordsJSON(t, in.damaged, append(append([]string{"--no-index"}, c.flags...), in.paths...)...)
				noIdx := sqlLines(noIdxRecs)
				if strings.Join(noIdx, "\n") != strings.Join(gl, "\n") {
					t.Errorf("%s %s: records --no-index differs:\n%s", in.name, c.name, clitest.FirstDiff(gl, noIdx))
				}
				t.Logf("%s %s: %d of %d records, as DuckDB selects them", in.name, c.name, len(gl), len(all))
			}
			lim, _ := recordsJSON(t, in.damaged, append([]string{"--limit", "7"}, in.paths...)...)
			if strings.Join(sqlLines(lim), "\n") != strings.Join(sqlLines(all[:7]), "\n") {
				t.Errorf("%s: --limit 7 is not the first 7 records", in.name)
			}
		})
	}
}

// damagedSample is a copy of the sample with a flipped byte inside a
// batch of codecs-0 (a CRC mismatch), a torn first segment of
// idempotent-1, and an .index entry of codecs-1 pointing inside a batch.
func damagedSample(t *testing.T) string {
	t.Helper()
	dir := copyDir(t, enginecheck.GeneratedDir)
	seg := filepath.Join(dir, "codecs-0", "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	data[1500] ^= 0x5a
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(dir, "idempotent-1", "00000000000000000000.log")
	fi, err := os.Stat(torn)
	if err != nil || os.Truncate(torn, fi.Size()-100) != nil {
		t.Fatal("cannot tear", torn, err)
	}
	idx := filepath.Join(dir, "codecs-1", "00000000000000000000.index")
	data, err = os.ReadFile(idx)
	if err != nil || len(data) < 8 {
		t.Fatal(idx, err)
	}
	data[7] += 3
	if err := os.WriteFile(idx, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// recordsJSON runs records --json with hex payloads and returns its
// record lines; with damaged set it counts the finding lines beside them
// (clitest.ParseRecords).
func recordsJSON(t *testing.T, damaged bool, args ...string) ([]clitest.RecordLine, int) {
	t.Helper()
	out, errs, code := clitest.Run(t, append(slices.Clone(clitest.RecordsArgs), args...)...)
	if code != clitest.ExitOK && !(damaged && code == clitest.ExitFindings) {
		t.Fatalf("records %v: exit %d\n%s", args, code, errs)
	}
	return clitest.ParseRecords(t, damaged, out)
}

func sqlLines(recs []clitest.RecordLine) []string {
	out := make([]string, len(recs))
	for i := range recs {
		out[i] = recs[i].SQL()
	}
	return out
}

// copyDir copies a log dir into the test's temp dir: the damaged sample
// is written there, never into the input.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
