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
// at byte 0 and no not-kafka-data finding; verify and records grade it
// alike (an error: the sample was stopped cleanly past the tear).
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
	// The sample log dir was stopped cleanly past the tear: verify and
	// records grade it an error, bytes lost after the stop (dump, given
	// the file alone, a torn tail).
	for _, args := range [][]string{{"verify", dir}, {"records", "--json", dir}, {"dump", seg}} {
		out, errOut, _ := runCLIFlat(t, args...)
		all := out + errOut
		lost := strings.Contains(all, "error truncated-batch") || strings.Contains(all, `"severity":"error"`)
		if strings.Contains(all, "not-kafka-data") || !strings.Contains(all, "truncated-batch") || lost != (args[0] != "dump") {
			t.Errorf("%s: want one truncated-batch (an error but in dump) and no not-kafka-data:\n%s", args[0], all)
		}
	}
}
