package topics_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

func corpusDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "real")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus %s missing in CI: %v", dir, err)
		}
		t.Skipf("corpus %s not present", dir)
	}
	return dir
}

// decodedFile is every decoded record of one file, with the record's
// offset.
type decodedRec struct {
	offset int64
	d      *topics.Decoded
}

func readAll(t *testing.T, path string, tp topics.Topic) ([]decodedRec, topics.Stats, []*topics.Finding) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []decodedRec
	st, fs, err := topics.ReadSegment(path, f, tp, func(b *segment.Batch, r *segment.Record, d *topics.Decoded) {
		out = append(out, decodedRec{r.Offset, d})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, st, fs
}

// TestCorpusDecodesCleanly reads every segment and KRaft snapshot of every
// __transaction_state, __consumer_offsets and __cluster_metadata partition
// in the real corpus: no finding at all (no unknown version, type or
// malformed record), and each of the three topics is met.
func TestCorpusDecodesCleanly(t *testing.T) {
	root := corpusDir(t)
	seen := map[topics.Topic]int{}
	files := 0
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		k := snapshot.KindOf(de.Name())
		tp := topics.TopicOf(filepath.Base(filepath.Dir(p)))
		switch {
		case k == snapshot.KindKRaftSnapshot || k == snapshot.KindBootstrapCheckpoint:
			tp = topics.ClusterMetadata
		case k != snapshot.KindLog || tp == topics.None:
			return nil
		}
		files++
		_, st, fs := readAll(t, p, tp)
		seen[tp] += st.Records
		for _, f := range fs {
			t.Errorf("%v [%s]", f, f.Kind())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range []topics.Topic{topics.TransactionState, topics.ConsumerOffsets, topics.ClusterMetadata} {
		if seen[tp] == 0 {
			t.Errorf("no %v records decoded", tp)
		}
	}
	t.Logf("%d files: %v", files, seen)
}

// TestCorpusTransactionState checks the only __transaction_state with
// records (MANIFEST.md: ItumelengMogase) against values read by hand with
// `xxd 00000000000000000000.log`: record 0's key at file bytes 0x42-0x4d
// is 0000 0008 "default_"; its value at 0x4f-0x73 is version 0000,
// producerId 0 (8 zero bytes), epoch 0000, timeout 0000ea60 (60000),
// state 00 (Empty), partitions ffffffff (null), lastUpdate
// 00000192764aec98 (1728561474712), start ffffffffffffffff. The state
// bytes of the next three records (0x0d7, 0x17d, 0x223) are 01, 02, 04;
// record 1's partition list is 0026 "_confluent-ksql-default__command_topic"
// 00000001 00000000.
func TestCorpusTransactionState(t *testing.T) {
	p := filepath.Join(corpusDir(t), "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions", "kafka-data", "__transaction_state-44", "00000000000000000000.log")
	recs, _, fs := readAll(t, p, topics.TransactionState)
	if len(fs) > 0 || len(recs) != 4 {
		t.Fatalf("%d records, findings %v", len(recs), fs)
	}
	states := []topics.TxnState{topics.TxnEmpty, topics.TxnOngoing, topics.TxnPrepareCommit, topics.TxnCompleteCommit}
	for i, r := range recs {
		v := r.d.TxnValue
		if r.d.TxnKey.TransactionalID != "default_" || v.ProducerID != 0 || v.ProducerEpoch != 0 || v.TimeoutMs != 60000 || v.State != states[i] || v.Version != 0 {
			t.Errorf("record %d: %+v %+v", i, r.d.TxnKey, v)
		}
	}
	if v := recs[0].d.TxnValue; v.Partitions != nil || v.LastUpdateMs != 1728561474712 || v.StartMs != -1 {
		t.Errorf("record 0: %+v", v)
	}
	if got := recs[1].d.TxnValue.PartitionList(); got != "_confluent-ksql-default__command_topic-0" {
		t.Errorf("record 1 partitions %q", got)
	}
}

// TestCorpusConsumerOffsets checks group names of two sources, read by hand
// with xxd:
//   - ArthurArutunyan04 __consumer_offsets-19: the record at file byte 0x42
//     has key 0002 001a "universe-labs-oms-consumer" (GroupMetadata) and a
//     value starting 0003 0008 "consumer" 00000009 0005 "range" (v3,
//     generation 9, protocol range) with 00000002 members at 0xb0; the
//     batch at byte 551 starts with the commit key 0001 001a
//     "universe-labs-oms-consumer" 0011 "oms_order_created" 00000001 and
//     value 0003 0000000000013f43 00000008 (v3, offset 81731, leader
//     epoch 8), record offset 258480.
//   - xpxwo100 (Kafka 0.10.1, magic 1) __consumer_offsets-40: the first
//     message's key at byte 0x1e is 0002 0006 "GroupA" and its value
//     0001 0008 "consumer" 00000001 0005 "range" (v1, generation 1).
func TestCorpusConsumerOffsets(t *testing.T) {
	root := corpusDir(t)
	p := filepath.Join(root, "ArthurArutunyan04__Backend_labs", "kafka-data", "__consumer_offsets-19", "00000000000000000000.log")
	recs, st, fs := readAll(t, p, topics.ConsumerOffsets)
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	// MANIFEST.md: key versions {'key_v2': 1, 'key_v1': 6}.
	if st.Types["GroupMetadata"] != 1 || st.Types["OffsetCommit"] != 6 {
		t.Errorf("types %v", st.Types)
	}
	g := recs[0].d
	if g.GroupKey.Group != "universe-labs-oms-consumer" || g.GroupMetadata.Version != 3 || g.GroupMetadata.Generation != 9 ||
		*g.GroupMetadata.Protocol != "range" || len(g.GroupMetadata.Members) != 2 || g.GroupMetadata.Members[0].ClientHost != "/172.18.0.7" {
		t.Errorf("group metadata: %+v %+v", g.GroupKey, g.GroupMetadata)
	}
	c := recs[1]
	want := &topics.OffsetCommitValue{Version: 3, Offset: 81731, LeaderEpoch: 8, CommitTimestamp: c.d.OffsetCommit.CommitTimestamp, ExpireTimestamp: -1}
	if c.offset != 258480 || c.d.GroupKey.Group != "universe-labs-oms-consumer" || *c.d.GroupKey.Topic != "oms_order_created" ||
		*c.d.GroupKey.Partition != 1 || !reflect.DeepEqual(c.d.OffsetCommit, want) {
		t.Errorf("offset commit at %d: %+v %+v", c.offset, c.d.GroupKey, c.d.OffsetCommit)
	}

	dir := filepath.Join(root, "xpxwo100__bullShit", "tmp", "kafka-logs", "__consumer_offsets-40")
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) == 0 {
		t.Fatal("no segment in", dir)
	}
	recs, st, fs = readAll(t, logs[0], topics.ConsumerOffsets)
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	// MANIFEST.md: key versions {'key_v2': 5, 'key_v1': 855}.
	if st.Types["GroupMetadata"] != 5 || st.Types["OffsetCommit"] != 855 {
		t.Errorf("types %v", st.Types)
	}
	if g := recs[0].d; g.GroupKey.Group != "GroupA" || g.GroupMetadata.Version != 1 || g.GroupMetadata.Generation != 1 || g.GroupMetadata.ProtocolType != "consumer" {
		t.Errorf("first record: %+v %+v", g.GroupKey, g.GroupMetadata)
	}
}

// TestCorpusClusterMetadata compares metadata record type counts of two
// __cluster_metadata-0 logs with MANIFEST.md, and checks the one
// ProducerIdsRecord of Danielowo2000's log, read by hand: the batch at byte
// 934645 (0xe42f5) holds offset 13101 (0x332d); its record value at
// 0xe4337 is 01 0f 00 | 00000001 | 0000000000000002 | 00000000000003e8 | 00
// (frame 1, apiKey 15, version 0, broker 1, broker epoch 2, next PID 1000:
// broker 1 got the block [0, 999]).
func TestCorpusClusterMetadata(t *testing.T) {
	root := corpusDir(t)
	manifest := map[string]map[string]int{
		"ArthurArutunyan04__Backend_labs/kafka-data": {"NoOp": 6392, "PartitionChange": 800, "Partition": 60, "BrokerRegistrationChange": 29,
			"RegisterController": 8, "RegisterBroker": 8, "Config": 7, "FeatureLevel": 3, "Topic": 3, "BeginTransaction": 1, "EndTransaction": 1},
		"JitenPalaparthi__youtube-kafka-golang-rust/kafka-logs": {"NoOp": 2550, "BrokerRegistrationChange": 3, "RegisterController": 2,
			"RegisterBroker": 2, "BeginTransaction": 1, "FeatureLevel": 1, "ZkMigration": 1, "EndTransaction": 1},
		"Danielowo2000__BigDataTechnologies-Version-2/kafka_data": {"NoOp": 16189, "PartitionChange": 204, "Partition": 142, "Config": 34,
			"Topic": 16, "BrokerRegistrationChange": 5, "FeatureLevel": 1, "RegisterBroker": 1, "ProducerIds": 1},
	}
	for src, want := range manifest {
		logs, _ := filepath.Glob(filepath.Join(root, src, "__cluster_metadata-0", "*.log"))
		got := map[string]int{}
		for _, p := range logs {
			_, st, fs := readAll(t, p, topics.ClusterMetadata)
			if len(fs) > 0 {
				t.Errorf("%s: %v", p, fs)
			}
			for k, v := range st.Types {
				if strings.ToUpper(k) != k {
					got[k] += v // metadata types, not control records (LEADER_CHANGE)
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got  %v\n want %v", src, got, want)
		}
	}

	p := filepath.Join(root, "Danielowo2000__BigDataTechnologies-Version-2", "kafka_data", "__cluster_metadata-0", "00000000000000000000.log")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pos, off int64 = -1, -1
	var rec *topics.ProducerIdsRecord
	topics.ReadSegment(p, f, topics.ClusterMetadata, func(b *segment.Batch, r *segment.Record, d *topics.Decoded) {
		if d.Metadata != nil && d.Metadata.APIKey == topics.APIProducerIds {
			pos, off, rec = b.Position, r.Offset, d.Metadata.Data.(*topics.ProducerIdsRecord)
		}
	})
	if pos != 934645 || off != 13101 || rec == nil || *rec != (topics.ProducerIdsRecord{BrokerID: 1, BrokerEpoch: 2, NextProducerID: 1000}) {
		t.Errorf("ProducerIds at byte %d offset %d: %+v", pos, off, rec)
	}
}
