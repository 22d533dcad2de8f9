package topics_test

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// kafkaMetadataVersion is the Kafka release whose metadata reader and JSON
// converters the record cases are checked against.
const kafkaMetadataVersion = "4.4.0"

// kafkaJars resolves the classpath of org.apache.kafka:kafka-metadata with
// Maven, from the local repository when it has the jars, else from Maven
// Central. It fails under CI=true when a JDK or Maven is missing, and
// skips loudly otherwise.
func kafkaJars(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed; checking the metadata cases against Kafka needs a JDK and Maven", tool)
			}
			t.Skipf("\n\n*** SKIPPING the check against Kafka's own metadata reader: %s is not installed (a JDK and Maven are needed). CI runs it. ***\n", tool)
		}
	}
	dir := t.TempDir()
	pom := `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>ksleuth.test</groupId><artifactId>metadata-json</artifactId><version>1</version>
<dependencies><dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-metadata</artifactId><version>` +
		kafkaMetadataVersion + `</version></dependency></dependencies></project>`
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
		t.Fatalf("mvn could not resolve kafka-metadata %s: %v\n%s", kafkaMetadataVersion, err, out)
	}
	cp, err := os.ReadFile(cpFile)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(cp))
}

// TestMetadataCasesMatchKafka hands every record case of metaCases to
// Kafka's own MetadataRecordSerde and JSON converters (Kafka 4.4, which
// writes the newest versions: RegisterBroker v4, BrokerRegistrationChange
// v3) and requires the payload this package prints. The two record types
// Kafka 4 no longer has (AccessControl 6, RemoveFeatureLevel 16) are left
// out.
func TestMetadataCasesMatchKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("\n\n*** SKIPPING the check against Kafka's own metadata reader in -short mode (it starts a JVM). ***\n")
	}
	cp := kafkaJars(t)
	dir := t.TempDir()
	var lines strings.Builder
	n := 0
	for _, c := range metaCases() {
		if c.name == "AccessControl" || c.name == "RemoveFeatureLevel" {
			continue
		}
		n++
		lines.WriteString(hex.EncodeToString(c.in.b) + "\t" + c.want + "\n")
	}
	cases := filepath.Join(dir, "cases.txt")
	if err := os.WriteFile(cases, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "MetadataJSON.java"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("javac", "-d", dir, "-cp", cp, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	out, err := exec.Command("java", "-cp", cp+string(os.PathListSeparator)+dir, "MetadataJSON", cases).CombinedOutput()
	if err != nil {
		t.Fatalf("Kafka %s disagrees: %v\n%s", kafkaMetadataVersion, err, out)
	}
	if !strings.Contains(string(out), strconv.Itoa(n)+" records, 0 differ") {
		t.Errorf("unexpected output:\n%s", out)
	}
	t.Logf("%d record cases print as Kafka %s prints them", n, kafkaMetadataVersion)
}
