package realkafka

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// DumpLog runs kafka-dump-log (DumpLogSegments) of the release on files
// with the given options and returns its standard output. It reads many
// files in one JVM: the tool takes a comma-separated --files list.
func (k *Kafka) DumpLog(files []string, options ...string) (string, error) {
	class, err := k.dumpLogClass()
	if err != nil {
		return "", err
	}
	args := []string{"-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
		"-Dlog4j2.level=ERROR", "-cp", k.Classpath(), class}
	args = append(args, options...)
	args = append(args, "--files", strings.Join(files, ","))
	cmd := exec.Command("java", args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kafka-dump-log %v: %v\n%s", options, err, errb.Bytes())
	}
	return out.String(), nil
}
