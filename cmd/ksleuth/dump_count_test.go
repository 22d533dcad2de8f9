package main

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestDumpRecordCountMismatch: a batch whose header counts more records
// than its payload holds, under a valid CRC, is a record-count-mismatch
// finding in plain dump too, not only with --records; the batch line is
// still printed.
func TestDumpRecordCountMismatch(t *testing.T) {
	b := segtest.Batch{Magic: 2, AutoDeltas: true, FirstTimestamp: 1700000000000,
		Records: []segtest.Record{{Key: []byte("k"), Value: []byte("one")}, {Key: []byte("k"), Value: []byte("two")}}}.Encode()
	// v2 batch header: crc at 17, the CRC'd bytes from 21, the record
	// count at 57.
	binary.BigEndian.PutUint32(b[57:], 3)
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	p := filepath.Join(t.TempDir(), "t-0", segtest.SegmentFileName(0))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"dump", p}, {"dump", "--records", p}, {"dump", "--json", p}} {
		out, errOut, code := runCLI(t, args...)
		got := out + errOut
		if !strings.Contains(got, "record-count-mismatch") || !strings.Contains(got, "baseOffset: 0") && !strings.Contains(got, `"type":"batch"`) {
			t.Errorf("%v: exit %d\n%s", args, code, got)
		}
		if _, _, code := runCLI(t, append(args[:1:1], append([]string{"--fail-on-findings"}, args[1:]...)...)...); code != exitFindings {
			t.Errorf("%v --fail-on-findings: exit %d", args, code)
		}
	}
}
