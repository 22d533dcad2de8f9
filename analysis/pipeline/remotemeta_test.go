package pipeline_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// remoteMetaValues are the two __remote_log_metadata values a broker
// writes for a segment it copies, COPY_SEGMENT_STARTED then _FINISHED, as
// a Kafka 4.4 broker wrote them for a topic named "tiered" (the
// tiered-clean scenario). remoteMetaValue rewrites their topic, ids and
// offsets.
const (
	remoteMetaStarted = "01000007746965726564172dc6467970447d9e9428626c790cba0000000000f4d3948abd6448ae8818a45a3da9572c" +
		"000000000000000000000000000000001600000001000001a251ea87c4000001a251ea92ef0200000000000000000000000000000037b8000001000101"
	remoteMetaFinished = "01010007746965726564172dc6467970447d9e9428626c790cba0000000000f4d3948abd6448ae8818a45a3da9572c" +
		"0000000001000001a251ea9446000100"
)

// remoteMetaValue is one of the templates for the segment seg (its id in
// the store's file names) of topic's partition part, with topic id tid,
// over first..last (which only the STARTED record holds).
func remoteMetaValue(t *testing.T, template, topic string, tid []byte, part int32, seg []byte, first, last int64) []byte {
	t.Helper()
	b, _ := hex.DecodeString(template)
	// Three bytes of header (frame version, api key, record version),
	// then the compact string "tiered" (7 bytes).
	var v []byte
	v = append(v, b[:3]...)
	v = append(v, byte(len(topic)+1))
	v = append(v, topic...)
	v = append(v, tid...)
	v = binary.BigEndian.AppendUint32(v, uint32(part))
	rest := b[3+7+16+4:]
	v = append(v, rest[0]) // the topic-partition's tagged fields
	v = append(v, seg...)  // the segment id
	rest = rest[1+16:]
	if template == remoteMetaStarted {
		v = append(v, rest[0]) // the segment id entry's tagged fields
		v = binary.BigEndian.AppendUint64(v, uint64(first))
		v = binary.BigEndian.AppendUint64(v, uint64(last))
		rest = rest[1+16:]
	}
	return append(v, rest...)
}

// TestReplicasReadsRemoteMetadata: on a tiered partition whose first
// segment is only in the remote store, replicas, which decodes no
// records, still reads __remote_log_metadata and judges those offsets
// remote-only as verify does: no copy lost offsets, the same verdict.
func TestReplicasReadsRemoteMetadata(t *testing.T) {
	logDir, pm := tieredLogDir(t, 7)
	root := t.TempDir()
	tierSegments(t, root, logDir, pm, 0)
	meta, _ := os.ReadFile(filepath.Join(logDir, pm.Dir, "partition.metadata"))
	_, id, _ := strings.Cut(string(meta), "topic_id: ")
	tid, err := base64.RawURLEncoding.DecodeString(id[:22])
	if err != nil {
		t.Fatal(err)
	}
	// The store names the segment "AAAA…" (tierSegments): id zero.
	s, seg, last := pm.Segments[0], make([]byte, 16), pm.Segments[1].BaseOffset-1
	var recs []segtest.Record
	for _, tpl := range []string{remoteMetaStarted, remoteMetaFinished} {
		recs = append(recs, segtest.Record{OffsetDelta: int32(len(recs)), Value: remoteMetaValue(t, tpl, pm.Topic, tid, pm.Partition, seg, s.BaseOffset, last)})
	}
	for _, ext := range []string{".log", ".index", ".timeindex"} {
		_ = os.Remove(filepath.Join(logDir, strings.TrimSuffix(s.File, ".log")+ext))
	}
	writeSegments(t, filepath.Join(logDir, "__remote_log_metadata-0"), [][]segtest.Batch{{{Magic: 2, Records: recs}}})

	_, vsum := runPlan(t, pipeline.Plan{Command: pipeline.Verify}, logDir, root)
	_, rsum := runPlan(t, pipeline.Plan{Command: pipeline.Replicas}, logDir, root)
	want := verdictOf(t, vsum, pm.Dir)
	if !strings.Contains(want.Text, "remote-only: offsets 0..") || vsum.LossCopies != 0 {
		t.Fatalf("verify: %q, %d copies lost offsets: the test's remote metadata is not read", want.Text, vsum.LossCopies)
	}
	if got := verdictOf(t, rsum, pm.Dir); got.Text != want.Text || got.State != want.State {
		t.Errorf("replicas: %s %q, verify: %s %q", got.State, got.Text, want.State, want.Text)
	}
	if rsum.LossCopies != 0 {
		t.Errorf("replicas counts %d copies that lost offsets", rsum.LossCopies)
	}
}

func verdictOf(t *testing.T, s *pipeline.Summary, dir string) analysis.Verdict {
	t.Helper()
	for _, v := range s.Verdicts {
		if v.Dir == dir {
			return v
		}
	}
	t.Fatalf("no verdict of %s", dir)
	return analysis.Verdict{}
}
