package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/analysis"
)

// copyDir copies a directory tree (the sample) to a new temporary dir.
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

// tornSample is a copy of the sample whose first (rolled) segment of
// codecs-0 lost its last 37 bytes: offsets 63..67 are gone.
func tornSample(t *testing.T) (dir, seg string, pos int64) {
	t.Helper()
	dir = copyDir(t, sampleDir)
	seg = filepath.Join(dir, "codecs-0", "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seg, data[:len(data)-37], 0o644); err != nil {
		t.Fatal(err)
	}
	// The last batch of the segment starts where the manifest says.
	var m struct {
		Partitions []struct {
			Dir      string
			Segments []struct {
				File    string
				Batches []struct{ Position, BaseOffset int64 }
			}
		}
	}
	raw, _ := os.ReadFile(filepath.Join(sampleDir, "manifest.json"))
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Partitions {
		if p.Dir == "codecs-0" {
			bs := p.Segments[0].Batches
			if bs[len(bs)-1].BaseOffset != 63 {
				t.Fatalf("the sample changed: the last batch of codecs-0's first segment starts at offset %d", bs[len(bs)-1].BaseOffset)
			}
			pos = bs[len(bs)-1].Position
		}
	}
	return dir, seg, pos
}

// TestTornRolledSegment: the lost batch of a rolled segment is an error
// at its byte position in verify, scan's anomalies and gaps, the exit
// codes and the report page.
func TestTornRolledSegment(t *testing.T) {
	t.Parallel()
	dir, _, pos := tornSample(t)
	out, _, code := runCLIFlat(t, "verify", dir)
	if code != exitFindings {
		t.Errorf("verify: exit %d, want 3", code)
	}
	for _, w := range []string{fmt.Sprintf("error truncated-batch at byte %d", pos), "codecs-0: LOST 5 offset(s): 63..67 error (truncated-batch); on disk: offsets 0..84"} {
		if !strings.Contains(out, w) {
			t.Errorf("verify output lacks %q:\n%s", w, out)
		}
	}
	tables := filepath.Join(t.TempDir(), "out")
	page := filepath.Join(t.TempDir(), "report.html")
	if _, _, code := runCLIFlat(t, "scan", dir, "--out", tables, "--fail-on-findings", "--html", page); code != exitFindings {
		t.Errorf("scan --fail-on-findings: exit %d, want 3", code)
	}
	if _, _, code := runCLIFlat(t, "scan", dir, "--out", tables, "--force"); code != exitOK {
		t.Errorf("scan without --fail-on-findings: exit %d, want 0", code)
	}
	var found bool
	for _, g := range readTable[analysis.GapRow](t, filepath.Join(tables, tableGaps)) {
		if g.Dir == "codecs-0" {
			found = g.FirstOffset == 63 && g.LastOffset != nil && *g.LastOffset == 67 && g.Cause == "truncated-batch" &&
				g.Severity == "error" && g.Position != nil && *g.Position == pos && g.File == "codecs-0/00000000000000000000.log"
			if !found {
				t.Errorf("gap row %+v", g)
			}
		}
	}
	if !found {
		t.Errorf("no gap row for codecs-0")
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("LOST 5 offset(s)")) || !bytes.Contains(html, []byte("1 partition copy has lost offsets")) {
		t.Errorf("the report page does not show the loss")
	}
}

// TestNotKafkaData: inputs that hold no Kafka file exit 1 from every
// command with a message naming them; a file named like a segment that is
// not one is an error finding; every command gives the same exit code.
func TestNotKafkaData(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	rnd := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	random := write("random.bin", rnd)
	etc := filepath.Dir(write("etc/hosts", []byte("127.0.0.1 localhost\n")))
	write("etc/ssl/openssl.cnf", []byte("[ default ]\n"))
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	f, _ := zw.Create("00000000000000000000.log")
	f.Write(rnd[:100])
	zw.Close()
	zipped := write("logs.zip", zbuf.Bytes())
	textTgz := write("notes.tar.gz", []byte("these are my notes, not an archive\n"))
	notesLog := write("notes/00000000000000000000.log", []byte(strings.Repeat("a line of an application log, not a segment\n", 40)))

	commands := [][]string{{"verify"}, {"scan", "--out", ""}, {"dups"}, {"producers"}, {"report", "--html", ""}, {"records"}, {"consumers"}}
	for _, in := range []string{random, etc, zipped, textTgz} {
		for _, c := range commands {
			args := append(slices.Clone(c), in)
			for i, a := range args {
				if a == "" {
					args[i] = filepath.Join(t.TempDir(), "out")
				}
			}
			_, errOut, code := runCLI(t, args...)
			if code != exitFailed || !strings.Contains(errOut, "no Kafka data in "+in) || !strings.Contains(errOut, "expected a broker log dir") {
				t.Errorf("%v: exit %d, want 1 naming the input: %q", args, code, errOut)
			}
		}
	}
	for _, c := range commands {
		args := append(slices.Clone(c), notesLog, "--fail-on-findings")
		for i, a := range args {
			if a == "" {
				args[i] = filepath.Join(t.TempDir(), "out")
			}
		}
		out, errOut, code := runCLI(t, args...)
		if code != exitFindings {
			t.Errorf("%v: exit %d, want 3: %s%s", args, code, out, errOut)
		}
	}
	out, _, _ := runCLI(t, "verify", notesLog)
	if !strings.Contains(out, "error not-kafka-data at byte 0") {
		t.Errorf("verify of a text file named like a segment:\n%s", out)
	}
}

// TestEmptyLeftoversAndRootCheckpoint: empty .tmp leftovers are notes;
// a log dir's bootstrap.checkpoint is checked; meta.properties notes are
// listed by verify.
func TestEmptyLeftoversAndRootCheckpoint(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, sampleDir)
	os.WriteFile(filepath.Join(dir, "codecs-0", "partition.metadata.tmp"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "txn-0", "quorum-state.tmp"), nil, 0o644)
	out, _, code := runCLI(t, "verify", dir)
	if code != exitOK {
		t.Errorf("empty leftovers: exit %d, want 0:\n%s", code, out)
	}
	if strings.Count(out, "note leftover-file") != 2 {
		t.Errorf("want two leftover notes:\n%s", out)
	}
	// A KRaft log dir's bootstrap.checkpoint with a flipped byte.
	src := filepath.Join(corpusDir, "ArthurArutunyan04__Backend_labs")
	var boot string
	filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Name() == "bootstrap.checkpoint" {
			boot = p
		}
		return nil
	})
	if boot == "" {
		t.Skip("no bootstrap.checkpoint in the corpus")
	}
	kraft := copyDir(t, filepath.Dir(boot))
	b := filepath.Join(kraft, "bootstrap.checkpoint")
	data, _ := os.ReadFile(b)
	data[len(data)-3] ^= 0x40
	os.WriteFile(b, data, 0o644)
	out, _, code = runCLI(t, "verify", "--no-notes", kraft)
	if code != exitFindings || !strings.Contains(out, "bootstrap.checkpoint: error crc-mismatch") {
		t.Errorf("flipped bootstrap.checkpoint: exit %d\n%s", code, out)
	}
}

// TestCutArchiveSameExitCode: an archive cut short is read up to the cut
// and reported; every command exits 3, the run being incomplete.
func TestCutArchiveSameExitCode(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	filepath.Walk(sampleDir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(sampleDir, p)
		data, _ := os.ReadFile(p)
		tw.WriteHeader(&tar.Header{Name: "broker/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
		return nil
	})
	tw.Close()
	zw.Close()
	arc := filepath.Join(t.TempDir(), "cut.tar.zst")
	os.WriteFile(arc, buf.Bytes()[:buf.Len()/2], 0o644)
	for _, c := range [][]string{{"verify"}, {"scan", "--out", filepath.Join(t.TempDir(), "o")}, {"dups"}, {"producers"},
		{"report", "--html", filepath.Join(t.TempDir(), "r.html")}, {"records"}, {"consumers"}} {
		out, errOut, code := runCLI(t, append(c, arc)...)
		if code != exitFindings {
			t.Errorf("%v: exit %d, want 3:\n%s%s", c, code, out, errOut)
		}
	}
	out, _, _ := runCLI(t, "verify", arc)
	if !strings.Contains(out, "archive-damaged") || !strings.Contains(out, "INCOMPLETE") {
		t.Errorf("verify of a cut archive:\n%s", out)
	}
}

// TestProducersFindingWithoutPosition: producers lists the findings about
// producers, including those that name no byte (a snapshot past the end
// of a log whose last segment is missing), and counts the others (a
// checkpoint ahead of the data); none of them may stop the listing.
func TestProducersFindingWithoutPosition(t *testing.T) {
	dir := copyDir(t, sampleDir)
	for _, ext := range []string{".log", ".index", ".timeindex", ".snapshot"} {
		if err := os.Remove(filepath.Join(dir, "idempotent-0", "00000000000000000070"+ext)); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runCLI(t, "producers", "--fail-on-findings", "--topic", "^idempotent$", dir)
	if code != exitFindings {
		t.Fatalf("exit %d, want 3 (warnings found): %s", code, errOut)
	}
	for _, want := range []string{
		"snapshot-ahead idempotent-0/00000000000000000085.snapshot:\n    snapshot covers offsets below 85",
		"other findings about the data and state files (2 checkpoint-ahead)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("producers output lacks %q:\n%s", want, out)
		}
	}
}
