// Package realkafka runs real Apache Kafka brokers and clients for tests:
// it resolves pinned Kafka releases from Maven into a per-user cache,
// formats and starts KRaft brokers on loopback ports, drives a small Java
// producer of ours and franz-go clients, and records the ground truth of
// what the producing side did. It is test infrastructure: nothing in the
// ksleuth binary imports it.
package realkafka

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Newest is the newest Kafka release the harness pins; Versions are all
// it knows, newest first. 4.0 is the first release without ZooKeeper and
// 3.9 the last with it (run here in KRaft mode, its record formats being
// the ZooKeeper era's).
const Newest = "4.4.0"

var Versions = []string{Newest, "4.0.2", "3.9.2"}

// extraDeps are the artifacts a release needs beside kafka_2.13:
// kafka-tools, where newer releases keep DumpLogSegments, and the SLF4J
// binding that sends log4j output to server.log (a runtime choice of the
// distribution, not a Maven dependency of the broker).
func extraDeps(version string) [][3]string {
	deps := [][3]string{{"org.apache.kafka", "kafka-tools", version}}
	if strings.HasPrefix(version, "3.") {
		return append(deps, [3]string{"org.slf4j", "slf4j-reload4j", "1.7.36"}, [3]string{"ch.qos.reload4j", "reload4j", "1.2.25"})
	}
	return append(deps, [3]string{"org.apache.logging.log4j", "log4j-slf4j-impl", "2.25.5"})
}

// Kafka is one resolved release.
type Kafka struct {
	Version string
	// Dir holds pom.xml, libs/ (every runtime jar) and classes/ (our
	// compiled Java producer).
	Dir string
}

// Libs is the directory of the release's jars.
func (k *Kafka) Libs() string { return filepath.Join(k.Dir, "libs") }

// Log4j1 reports whether the release logs through log4j 1 (reload4j).
func (k *Kafka) Log4j1() bool { return strings.HasPrefix(k.Version, "3.") }

// CacheRoot is where releases are cached:
// ${XDG_CACHE_HOME:-$HOME/.cache}/ksleuth-ci/kafka.
func CacheRoot() (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "ksleuth-ci", "kafka"), nil
}

const completeMarker = "resolved"

// Cached returns the release if an earlier Resolve completed with the
// same artifact list.
func Cached(version string) (*Kafka, bool) {
	root, err := CacheRoot()
	if err != nil {
		return nil, false
	}
	k := &Kafka{Version: version, Dir: filepath.Join(root, version)}
	if mark, err := os.ReadFile(filepath.Join(k.Dir, completeMarker)); err != nil || string(mark) != pomXML(version) {
		return nil, false
	}
	return k, true
}

// ErrNoTools reports that java, javac or mvn is not installed.
var ErrNoTools = errors.New("java, javac and mvn are needed to run real Kafka")

// Resolve returns the release, fetching it with Maven the first time
// (mvn dependency:copy-dependencies over a generated pom). Later calls
// read the cache and touch no network.
func Resolve(version string) (*Kafka, error) {
	if k, ok := Cached(version); ok {
		return k, nil
	}
	for _, tool := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrNoTools, tool, err)
		}
	}
	root, err := CacheRoot()
	if err != nil {
		return nil, err
	}
	k := &Kafka{Version: version, Dir: filepath.Join(root, version)}
	if err := os.MkdirAll(k.Dir, 0o755); err != nil {
		return nil, err
	}
	// A failed earlier attempt may have left some jars: start clean.
	os.RemoveAll(k.Libs())
	pom := filepath.Join(k.Dir, "pom.xml")
	if err := os.WriteFile(pom, []byte(pomXML(version)), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("mvn", "-q", "-B", "-f", pom, "dependency:copy-dependencies",
		"-DincludeScope=runtime", "-DoutputDirectory="+k.Libs())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("mvn resolve of kafka_2.13 %s: %v\n%s", version, err, out.Bytes())
	}
	if _, err := os.Stat(filepath.Join(k.Libs(), "kafka_2.13-"+version+".jar")); err != nil {
		return nil, fmt.Errorf("mvn resolve of kafka_2.13 %s: no kafka jar: %v", version, err)
	}
	if err := os.WriteFile(filepath.Join(k.Dir, completeMarker), []byte(pomXML(version)), 0o644); err != nil {
		return nil, err
	}
	return k, nil
}

func pomXML(version string) string {
	var deps strings.Builder
	dep := func(g, a, v string) {
		fmt.Fprintf(&deps, "    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n", g, a, v)
	}
	dep("org.apache.kafka", "kafka_2.13", version)
	for _, d := range extraDeps(version) {
		dep(d[0], d[1], d[2])
	}
	return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>ksleuth.ci</groupId>
  <artifactId>kafka-` + version + `</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
` + deps.String() + `  </dependencies>
</project>
`
}

// dumpLogClass is the main class of kafka-dump-log: in kafka-tools from
// 4.1 on, in the broker's jar before.
func (k *Kafka) dumpLogClass() (string, error) {
	jar := filepath.Join(k.Libs(), "kafka-tools-"+k.Version+".jar")
	z, err := zip.OpenReader(jar)
	if err != nil {
		return "", err
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name == "org/apache/kafka/tools/DumpLogSegments.class" {
			return "org.apache.kafka.tools.DumpLogSegments", nil
		}
	}
	return "kafka.tools.DumpLogSegments", nil
}

// Classpath is the java -cp argument for the release's jars, plus extra
// directories first.
func (k *Kafka) Classpath(extra ...string) string {
	return strings.Join(append(extra, filepath.Join(k.Libs(), "*")), string(os.PathListSeparator))
}
