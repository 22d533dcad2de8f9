package segment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestLegacyShapeOnCorpora: every legacy entry brokers and clients wrote
// in both corpora has key and value lengths that add up to its size, the
// shape resync now requires of a legacy candidate before its CRC.
func TestLegacyShapeOnCorpora(t *testing.T) {
	n := 0
	for _, sub := range []string{"real", "thirdparty"} {
		filepath.WalkDir(corpusDir(t, sub), func(p string, d os.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(p, ".log") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			r := NewReaderBytes(data, Options{Path: p})
			defer r.Close()
			for r.Next() {
				b := r.Batch()
				if b == nil || b.Magic == 2 || !b.CRCValid {
					continue
				}
				n++
				if !legacyShapeOK(b.data) {
					t.Errorf("%s at byte %d: a legacy entry of %d bytes fails the shape check", p, b.Position, len(b.data))
				}
			}
			return nil
		})
	}
	if n < 100 {
		t.Fatalf("only %d legacy entries in the corpora", n)
	}
	t.Logf("%d legacy entries", n)
}

// badCRCChain is n one-record v2 batches from base offset first, each
// with its CRC broken, and nothing else.
func badCRCChain(n int, first int64) []byte {
	var seg []byte
	for i := range n {
		b := segtest.Batch{Magic: 2, BaseOffset: first + int64(i), FirstTimestamp: 1_700_000_000_000 + int64(i),
			Records: []segtest.Record{{Value: []byte("v")}}}.Encode()
		b[len(b)-1] ^= 0xff
		seg = append(seg, b...)
	}
	return seg
}

// TestResyncLinearOnBadCRCs: in a stretch of batches that all fail their
// CRC, the offsets and timestamps inside every header look like legacy
// entries of a plausible size; checking their CRCs made the scan of a
// 72 MB segment of such batches run for more than 20 minutes. The bytes
// checked now stay within a few times the segment.
func TestResyncLinearOnBadCRCs(t *testing.T) {
	seg := badCRCChain(20000, 1<<20)
	r := NewReaderBytes(seg, Options{})
	defer r.Close()
	for r.Next() {
	}
	if r.probed > 4*int64(len(seg)) {
		t.Fatalf("checked the CRC of %d bytes of candidates in a %d-byte segment", r.probed, len(seg))
	}
	t.Logf("%d bytes probed in %d", r.probed, len(seg))
}
