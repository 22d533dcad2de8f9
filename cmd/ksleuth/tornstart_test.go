package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTornFromStartIsKafkaData: an active segment whose only batch the
// file ends inside (a crash right after the roll) starts with a batch
// header: it is a torn tail, not a file that is no Kafka segment. Truth:
// the sample with codecs-0's active segment cut 10 bytes short of the end
// of its first batch: verify, records and dump give one truncated-batch
// warning at byte 0 and no not-kafka-data finding.
func TestTornFromStartIsKafkaData(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, sampleDir)
	seg := filepath.Join(dir, "codecs-0", "00000000000000000068.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	first := 12 + int(binary.BigEndian.Uint32(data[8:12]))
	if err := os.WriteFile(seg, data[:first-10], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"verify", dir}, {"records", "--json", dir}, {"dump", seg}} {
		out, errOut, _ := runCLI(t, args...)
		all := out + errOut
		if strings.Contains(all, "not-kafka-data") || !strings.Contains(all, "truncated-batch") || strings.Contains(all, `"severity":"error"`) {
			t.Errorf("%s: want one truncated-batch warning and no not-kafka-data:\n%s", args[0], all)
		}
	}
}
