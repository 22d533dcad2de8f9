package clitest

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// ManyPartitions writes a log dir of n partitions of one batch each,
// spread over seven topics, and returns it.
func ManyPartitions(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	for p := range n {
		pd := filepath.Join(dir, fmt.Sprintf("t%d-%d", p%7, p))
		if err := os.Mkdir(pd, 0o755); err != nil {
			t.Fatal(err)
		}
		b := segtest.Batch{Magic: 2, FirstTimestamp: 1700000000000 + int64(p), AutoDeltas: true,
			Records: []segtest.Record{{Key: fmt.Appendf(nil, "k%d", p), Value: []byte("v")}}}.Encode()
		if err := os.WriteFile(filepath.Join(pd, "00000000000000000000.log"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// BigSegment writes a partition dir big-0 under dir holding one segment
// of n copies of a small batch, each with its own base offset (the CRC
// does not cover it).
func BigSegment(t testing.TB, dir string, n int) {
	t.Helper()
	pd := filepath.Join(dir, "big-0")
	if err := os.MkdirAll(pd, 0o755); err != nil {
		t.Fatal(err)
	}
	one := segtest.Batch{Magic: 2, Codec: segtest.CodecNone, AutoDeltas: true, FirstTimestamp: 1700000000000,
		Producer: &segtest.Producer{ID: 9, Epoch: 0},
		Records: []segtest.Record{{Key: []byte("key"), Value: []byte("a value of some length")},
			{Key: []byte("key2"), Value: []byte("another value")}}}.Encode()
	buf := make([]byte, 0, len(one)*n)
	for i := range n {
		b := append(buf[len(buf):], one...)
		binary.BigEndian.PutUint64(b, uint64(2*i))
		buf = buf[:len(buf)+len(one)]
	}
	if err := os.WriteFile(filepath.Join(pd, "00000000000000000000.log"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
