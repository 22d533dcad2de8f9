package dumplog

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/snapshot"
)

// kafkaDumpLogVersion is the Kafka release whose kafka-dump-log
// (kafka.tools.DumpLogSegments, the last line with it in the core jar)
// the comparison runs.
const kafkaDumpLogVersion = "3.9.1"

// kafkaClasspath resolves the classpath of kafka_2.13 with Maven: from the
// local repository when it has the jars, else from Maven Central. It fails
// under CI=true when java or mvn is missing, and skips loudly otherwise.
func kafkaClasspath(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"java", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed; the kafka-dump-log comparison needs a JDK and Maven", tool)
			}
			t.Skipf("\n\n*** SKIPPING the kafka-dump-log comparison: %s is not installed (a JDK and Maven are needed). CI runs it. ***\n", tool)
		}
	}
	dir := t.TempDir()
	pom := `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>ksleuth.test</groupId><artifactId>kafka-dump-log</artifactId><version>1</version>
<dependencies><dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>` +
		kafkaDumpLogVersion + `</version></dependency></dependencies></project>`
	if err := os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(pom), 0o644); err != nil {
		t.Fatal(err)
	}
	cpFile := filepath.Join(dir, "cp.txt")
	var out []byte
	var err error
	for _, offline := range []bool{true, false} {
		args := []string{"-q", "-B", "dependency:build-classpath", "-Dmdep.outputFile=" + cpFile}
		if offline {
			args = append([]string{"-o"}, args...)
		}
		cmd := exec.Command("mvn", args...)
		cmd.Dir = dir
		if out, err = cmd.CombinedOutput(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("mvn could not resolve kafka_2.13 %s: %v\n%s", kafkaDumpLogVersion, err, out)
	}
	cp, err := os.ReadFile(cpFile)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(cp))
}

var payloadLine = regexp.MustCompile(`^\| offset: (\d+) .* payload: (.*)$`)

// payloads splits dump output into file -> offset -> payload, by the
// "Dumping FILE" header lines both tools print.
func payloads(r io.Reader) map[string]map[int64]string {
	out := map[string]map[int64]string{}
	var cur map[int64]string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "Dumping "); ok {
			cur = map[int64]string{}
			out[name] = cur
			continue
		}
		if m := payloadLine.FindStringSubmatch(line); m != nil && cur != nil {
			off, _ := strconv.ParseInt(m[1], 10, 64)
			cur[off] = m[2]
		}
	}
	return out
}

// TestDumpMatchesKafkaDumpLog runs kafka-dump-log --cluster-metadata-decoder
// and `ksleuth dump --records` over every metadata log segment and KRaft
// snapshot of ../shared/corpus/real and requires the same payload, byte
// for byte, for every record. Snapshots kept as .checkpoint.deleted are
// copied under their live name, which is the only one kafka-dump-log
// reads.
func TestDumpMatchesKafkaDumpLog(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("\n\n*** SKIPPING the kafka-dump-log comparison in -short mode (it decodes the corpus twice, once in a JVM). ***\n")
	}
	root := corpusPath(t, "real")
	if root == "" {
		t.Skip("\n\n*** SKIPPING the kafka-dump-log comparison: ../shared/corpus/real is not present. ***\n")
	}
	cp := kafkaClasspath(t)
	tmp := t.TempDir()
	var files []string
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		name := de.Name()
		switch k := snapshot.KindOf(name); {
		case k == snapshot.KindKRaftSnapshot || k == snapshot.KindBootstrapCheckpoint:
		case k == snapshot.KindLog && filepath.Base(filepath.Dir(p)) == "__cluster_metadata-0":
		default:
			return nil
		}
		if live, ok := strings.CutSuffix(name, ".deleted"); ok {
			// kafka-dump-log reads the offset from the name: keep it, one
			// directory per copy.
			dst := filepath.Join(tmp, strconv.Itoa(len(files)), live)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return err
			}
			p = dst
		}
		if strings.HasSuffix(p, ".log") || strings.HasSuffix(p, ".checkpoint") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	cmd := exec.Command("java", "-cp", cp, "kafka.tools.DumpLogSegments", "--cluster-metadata-decoder", "--files", strings.Join(files, ","))
	var jerr strings.Builder
	cmd.Stderr = &jerr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	want := payloads(stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kafka-dump-log: %v\n%s", err, jerr.String())
	}
	out, errOut, code := runCLI(t, append([]string{"dump", "--records", "--fail-on-findings"}, files...)...)
	if code != 0 {
		t.Fatalf("ksleuth dump: exit %d\n%s", code, errOut)
	}
	got := payloads(strings.NewReader(out))
	records, differ := 0, 0
	for _, f := range files {
		w, g := want[f], got[f]
		if len(w) == 0 && !strings.HasSuffix(f, "bootstrap.checkpoint") {
			t.Errorf("%s: kafka-dump-log printed no payload", f)
		}
		if len(g) != len(w) {
			t.Errorf("%s: %d payloads, kafka-dump-log %d", f, len(g), len(w))
		}
		for off, wp := range w {
			records++
			if g[off] != wp {
				if differ++; differ <= 5 {
					t.Errorf("%s offset %d:\n ksleuth        %s\n kafka-dump-log %s", f, off, g[off], wp)
				}
			}
		}
	}
	t.Logf("%d files, %d metadata records: %d payloads differ from kafka-dump-log %s", len(files), records, differ, kafkaDumpLogVersion)
	if records < 100000 {
		t.Errorf("only %d records compared; the corpus holds over 100000", records)
	}
}
