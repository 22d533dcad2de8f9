package main

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

// recordLine is one line of `records --json --payload-encoding hex`.
type recordLine = clitest.RecordLine

// recordsJSON runs records --json with hex payloads and returns its
// record lines (it fails the test on a finding line: the inputs are
// intact).
func recordsJSON(t *testing.T, args ...string) []recordLine {
	t.Helper()
	recs, _ := clitest.ParseRecords(t, false, runOK(t, append(slices.Clone(clitest.RecordsArgs), args...)...))
	return recs
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
