package main

import (
	"archive/tar"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// recordLine is one line of `records --json --payload-encoding hex` in
// the form duckdb_records.cjs prints a row.
type recordLine struct {
	Source    string  `json:"source"`
	File      string  `json:"file"`
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Timestamp *int64  `json:"timestamp"`
	PID       int64   `json:"producer_id"`
	Epoch     int16   `json:"producer_epoch"`
	Seq       int32   `json:"sequence"`
	Key       *string `json:"key"`
	KeyEnc    *string `json:"key_encoding"`
	Value     *string `json:"value"`
	Headers   []struct {
		Key   string  `json:"key"`
		Value *string `json:"value"`
	} `json:"headers"`
}

func (r *recordLine) sql() string {
	opt := func(p *string) string {
		if p == nil {
			return "NULL"
		}
		return *p
	}
	ts := ""
	if r.Timestamp != nil {
		ts = fmt.Sprint(*r.Timestamp)
	}
	hs := make([]string, len(r.Headers))
	for i, h := range r.Headers {
		hs[i] = h.Key + "=" + opt(h.Value)
	}
	return strings.Join([]string{r.Source, r.File, fmt.Sprint(r.Offset), ts, fmt.Sprint(r.PID), fmt.Sprint(r.Epoch), fmt.Sprint(r.Seq),
		opt(r.Key), opt(r.Value), strings.Join(hs, ",")}, "|")
}

// recordsJSON runs records --json with hex payloads and returns its
// record lines (it fails the test on a finding line: the inputs are
// intact).
func recordsJSON(t *testing.T, args ...string) []recordLine {
	t.Helper()
	recs, _ := recordsJSONFindings(t, false, args...)
	return recs
}

// recordsJSONFindings is recordsJSON that, with damaged set, counts the
// finding lines instead.
func recordsJSONFindings(t *testing.T, damaged bool, args ...string) (recs []recordLine, findings int) {
	t.Helper()
	out := runOK(t, append([]string{"records", "--json", "--payload-encoding", "hex"}, args...)...)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		if damaged && strings.HasPrefix(l, `{"type":"finding"`) {
			findings++
			continue
		}
		if !strings.HasPrefix(l, `{"type":"record"`) {
			t.Fatalf("records %v: not a record line: %s", args, l)
		}
		var r recordLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs, findings
}

func sqlLines(recs []recordLine) []string {
	out := make([]string, len(recs))
	for i := range recs {
		out[i] = recs[i].sql()
	}
	return out
}

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
func recordCases(t *testing.T, all []recordLine) []recordCase {
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
	node, nodeModules := needDuckDB(t)
	third := filepath.Join("..", "..", "..", "shared", "corpus", "thirdparty")
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
		{"sample", []string{filepath.Join("..", "..", "testdata", "logdirs", "generated")}, false},
		{"thirdparty", thirdDirs, false},
		{"damaged", []string{damagedSample(t)}, true},
	} {
		out := filepath.Join(t.TempDir(), "out")
		scanArgs := append([]string{"scan", "--records", "--payload", "--progress", "never", "--hash", "none", "--out", out}, in.paths...)
		if _, errs, code := scanCmd(t, scanArgs...); code != exitOK && !(in.damaged && code == exitFindings) {
			t.Fatalf("scan %s: exit %d\n%s", in.name, code, errs)
		}
		all, findings := recordsJSONFindings(t, in.damaged, in.paths...)
		if in.damaged && findings < 2 {
			t.Errorf("damaged: %d findings", findings)
		}
		for _, c := range recordCases(t, all) {
			got, _ := recordsJSONFindings(t, in.damaged, append(c.flags, in.paths...)...)
			want := runNode(t, node, nodeModules, "", filepath.Join("testdata", "duckdb_records.cjs"), filepath.Join(out, tableRecords), c.where)
			if len(want) == 1 && want[0] == "" {
				want = nil
			}
			gl := sqlLines(got)
			if strings.Join(gl, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s %s: records %v gives %d records, DuckDB (%s) %d:\n%s", in.name, c.name, c.flags, len(gl), c.where, len(want), firstDiff(want, gl))
				continue
			}
			if in.name == "sample" && (len(gl) == 0 || len(gl) == len(all) && c.name != "all") {
				t.Errorf("%s %s: %d of %d records selected: the case tests nothing", in.name, c.name, len(gl), len(all))
			}
			noIdxRecs, _ := recordsJSONFindings(t, in.damaged, append(append([]string{"--no-index"}, c.flags...), in.paths...)...)
			noIdx := sqlLines(noIdxRecs)
			if strings.Join(noIdx, "\n") != strings.Join(gl, "\n") {
				t.Errorf("%s %s: records --no-index differs:\n%s", in.name, c.name, firstDiff(gl, noIdx))
			}
			t.Logf("%s %s: %d of %d records, as DuckDB selects them", in.name, c.name, len(gl), len(all))
		}
		lim, _ := recordsJSONFindings(t, in.damaged, append([]string{"--limit", "7"}, in.paths...)...)
		if strings.Join(sqlLines(lim), "\n") != strings.Join(sqlLines(all[:7]), "\n") {
			t.Errorf("%s: --limit 7 is not the first 7 records", in.name)
		}
	}
}

// damagedSample is a copy of the sample with a flipped byte inside a
// batch of codecs-0 (a CRC mismatch), a torn first segment of
// idempotent-1, and an .index entry of codecs-1 pointing inside a batch.
func damagedSample(t *testing.T) string {
	t.Helper()
	dir := copyDir(t, sampleDir)
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

// TestRecordsStdin reads the sample as a tar archive on stdin ("-") and
// finds the records a read of the dir finds, in the same order (the
// archive holds the files in path order).
func TestRecordsStdin(t *testing.T) {
	t.Parallel()
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	err := filepath.WalkDir(sampleDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(sampleDir, p)
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil || tw.Close() != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"--offsets", "30..50"}, {"--key-regex", "^item-00"}} {
		root := newRootCmd(defaultSettings())
		var out, errb bytes.Buffer
		root.SetIn(bytes.NewReader(tarball.Bytes()))
		root.SetOut(&out)
		root.SetErr(&errb)
		root.SetArgs(append([]string{"records", "-", "--format", `%t %p %o %f %P %k %v %h\n`}, flags...))
		if err := root.Execute(); err != nil {
			t.Fatalf("records -: %v\n%s", err, errb.String())
		}
		want := runOK(t, append([]string{"records", sampleDir, "--format", `%t %p %o %f %P %k %v %h\n`}, flags...)...)
		if out.String() != want || strings.Count(want, "\n") < 10 {
			t.Errorf("records - %v: %d lines, from the dir %d:\n%s", flags, strings.Count(out.String(), "\n"), strings.Count(want, "\n"),
				firstDiff(strings.Split(want, "\n"), strings.Split(out.String(), "\n")))
		}
	}
	if _, errs, code := scanCmd(t, "records", "-", "-"); code != exitUsage || !strings.Contains(errs, "once") {
		t.Errorf("records - -: exit %d, %s", code, errs)
	}
}

// TestRecordsIndexRealCorpus reads the real brokers' log dirs with and
// without their .index and .timeindex files, which the brokers wrote, and
// requires the same records, with some read from an index position.
func TestRecordsIndexRealCorpus(t *testing.T) {
	t.Parallel()
	root := corpusPath(t, "real")
	if root == "" {
		t.Skip("\n\n*** SKIPPING the real-corpus index test: ../shared/corpus/real is not present. ***\n")
	}
	dirs, err := filepath.Glob(filepath.Join(root, "*"))
	if err != nil || len(dirs) < 10 {
		t.Fatalf("%d dirs in %s: %v", len(dirs), root, err)
	}
	for _, sel := range [][]string{{"--offsets", "100..5000"}, {"--since", "1766799100000"}, {"--offsets", "20000..", "--since", "1700000000000"}} {
		args := append(append([]string{"records", "--json", "--stats"}, sel...), dirs...)
		with, errs, code := scanCmd(t, args...)
		without, _, code2 := scanCmd(t, append([]string{"records", "--no-index"}, args[1:]...)...)
		if code != exitOK || code2 != exitOK {
			t.Fatalf("records %v: exit %d, %d\n%s", sel, code, code2, errs)
		}
		// An index the log contradicts is reported where it is used: a
		// .timeindex start may make a read seek with a .index entry that
		// an offset selection never uses (invoice-0 of the corpus has one
		// naming a byte where no batch starts).
		var kept []string
		for _, l := range strings.SplitAfter(with, "\n") {
			if !strings.Contains(l, `"type":"finding"`) || !strings.Contains(l, `"kind":"index-mismatch"`) {
				kept = append(kept, l)
			}
		}
		with = strings.Join(kept, "")
		if with != without || strings.Count(with, "\n") < 1000 {
			t.Errorf("records %v: %d records with the indexes, %d without", sel, strings.Count(with, "\n"), strings.Count(without, "\n"))
		}
		if strings.Contains(errs, "(0 from an index position") {
			t.Errorf("records %v: no index used: %s", sel, errs)
		}
		t.Logf("records %v: %d records; %s", sel, strings.Count(with, "\n"), strings.TrimSpace(errs))
	}
}

// TestRecordsDecodeValues: on the payload sample, values in the Confluent
// wire format print as the JSON of their Avro schema from the sample's
// _schemas topic, --value-regex matches that JSON, and --decode-values
// none keeps the bytes.
func TestRecordsDecodeValues(t *testing.T) {
	t.Parallel()
	dir := writePayloadSample(t)
	out := runOK(t, "records", dir, "--topic", "^orders$", "--format", `%k %v\n`)
	if !strings.Contains(out, `4711 {"id":4711,"customer":"ann","status":"NEW"`) {
		t.Errorf("order 4711 not decoded:\n%s", out)
	}
	paid := runOK(t, "records", dir, "--topic", "^orders$", "--value-regex", `"status":"PAID"`, "--format", `%k\n`)
	if paid != "4712\n" {
		t.Errorf("--value-regex on the decoded values: %q", paid)
	}
	js := runOK(t, "records", dir, "--topic", "^orders$", "--key", "4711", "--json")
	if !strings.Contains(js, `"value_encoding":"avro"`) || !strings.Contains(js, `"source":"`+dir+`"`) {
		t.Errorf("--json:\n%s", js)
	}
	// A value whose schema is not in the inputs, or that does not decode,
	// keeps its raw bytes with its schema id beside them.
	framed := runOK(t, "records", dir, "--topic", "^orders$", "--offsets", "3..3", "--format", `%v\n`)
	if !strings.HasPrefix(framed, "[schema id 42, not in the inputs] 0x000000002a") {
		t.Errorf("a value of an unknown schema id: %q", framed)
	}
	framedJSON := runOK(t, "records", dir, "--topic", "^orders$", "--offsets", "3..3", "--json")
	if !strings.Contains(framedJSON, `"value_encoding":"hex","value_framing":"schema id 42, not in the inputs"`) {
		t.Errorf("--json of a value of an unknown schema id:\n%s", framedJSON)
	}
	raw := runOK(t, "records", dir, "--topic", "^orders$", "--key", "4711", "--decode-values", "none", "--format", `%v\n`)
	if !strings.HasPrefix(raw, "0x0000000001") {
		t.Errorf("--decode-values none: %q", raw)
	}
}
