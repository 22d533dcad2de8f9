package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusDir is the real-broker corpus (shared/corpus/real, see its
// MANIFEST.md), reached relative to this package directory.
var corpusDir = filepath.Join("..", "..", "shared", "corpus", "real")

func needCorpus(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(corpusDir); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("corpus %s absent", corpusDir)
	}
}

// parseState parses one state file by kind; ok is false for kinds this
// package does not parse.
func parseState(path string, data []byte) (v any, err error, ok bool) {
	switch k := KindOf(filepath.Base(path)); {
	case k == KindSnapshot:
		v, err = ParseNamed(path, data)
	case k == KindLeaderEpochCheckpoint:
		v, err = ParseLeaderEpochCheckpoint(path, data)
	case k == KindPartitionMetadata:
		v, err = ParsePartitionMetadata(path, data)
	case k == KindMetaProperties:
		v, err = ParseMetaProperties(path, data)
	case k.IsOffsetCheckpoint():
		v, err = ParseOffsetCheckpoint(path, data)
	case k == KindCleanShutdown:
		v, err = ParseCleanShutdown(path, data)
	case k == KindQuorumState:
		v, err = ParseQuorumState(path, data)
	default:
		return nil, nil, false
	}
	return v, err, true
}

// TestCorpusStateFiles parses every state file of the real corpus and
// expects no error at all.
func TestCorpusStateFiles(t *testing.T) {
	needCorpus(t)
	counts := map[Kind]int{}
	leftovers := []string{}
	deletedSnapshots := 0
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		v, perr, ok := parseState(path, data)
		if !ok {
			return nil
		}
		n := ParseName(d.Name())
		counts[n.Kind]++
		if perr != nil {
			t.Errorf("%v", perr)
		}
		switch x := v.(type) {
		case *File:
			if !x.CRCValid() || x.Version != 1 || x.EndOffset < 0 {
				t.Errorf("%s: %+v", path, x)
			}
			if n.Suffix == SuffixDeleted {
				deletedSnapshots++
			}
		case *OffsetCheckpoint:
			if x.Leftover {
				leftovers = append(leftovers, strings.TrimPrefix(path, corpusDir))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Totals from MANIFEST.md / a file listing of the corpus.
	want := map[Kind]int{
		KindSnapshot:                215, // 214 + 1 .snapshot.deleted (JobCollins)
		KindLeaderEpochCheckpoint:   1280,
		KindPartitionMetadata:       959,
		KindMetaProperties:          26,
		KindRecoveryPointCheckpoint: 26,
		KindReplicationCheckpoint:   26,
		KindLogStartCheckpoint:      25,
		KindCleanerCheckpoint:       26, // 25 + the NikhilDighe9975 leftover .tmp
		KindCleanShutdown:           9,
		KindQuorumState:             10,
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%v files: %d, want %d", k, counts[k], n)
		}
	}
	if deletedSnapshots != 1 {
		t.Errorf("%d .snapshot.deleted files, want 1", deletedSnapshots)
	}
	if len(leftovers) != 1 || !strings.HasSuffix(leftovers[0], "NikhilDighe9975__kafka_setup/kafka-logs/cleaner-offset-checkpoint.tmp") {
		t.Errorf("leftover checkpoints: %q", leftovers)
	}
}

func readCorpus(t *testing.T, rel string) (string, []byte) {
	t.Helper()
	path := filepath.Join(corpusDir, filepath.FromSlash(rel))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// snapshot tuple as printed in MANIFEST.md: (pid, epoch, lastSeq,
// lastOffset, coordinatorEpoch, currentTxnFirstOffset).
type tuple [6]int64

func tuplesOf(f *File) []tuple {
	var out []tuple
	for _, e := range f.Entries {
		out = append(out, tuple{e.ProducerID, int64(e.Epoch), int64(e.LastSequence), e.LastOffset, int64(e.CoordinatorEpoch), e.CurrentTxnFirstOffset})
	}
	return out
}

func TestCorpusSnapshots(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct {
		rel  string
		end  int64
		want []tuple
	}{
		{"ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data/_confluent-ksql-default__command_topic-0/00000000000000000002.snapshot",
			2, []tuple{{0, 0, 0, 0, 0, -1}}},
		{"DonaldY__kafka-2.7.1/kafka-logs/myTopic-0/00000000000000000038.snapshot",
			38, []tuple{{4001, 0, 11, 11, -1, -1}, {4002, 0, 11, 23, -1, -1}, {4003, 0, 13, 37, -1, -1}}},
		{"JY-GIEGIEGIE__Stock-Sys-Integration/kafka-logs/client.order.report-0/00000000000000094751.snapshot",
			94751, []tuple{{0, 0, 8956, 8956, -1, -1}, {2000, 0, 83825, 94750, -1, -1}, {1000, 0, 1967, 10924, -1, -1}}},
		{"NikhilDighe9975__kafka_setup/kafka-logs/nikhilDemo-0/00000000000000000003.snapshot",
			3, []tuple{{10000, 0, 1, 2, -1, -1}, {7000, 0, 0, 0, -1, -1}}},
		{"Romanenko3490__wallet-test/volumes/kafka/data/wallet_event-0/00000000000000000007.snapshot",
			7, []tuple{{0, 0, 0, 0, -1, -1}, {1000, 0, 5, 6, -1, -1}}},
		{"rjmfernandes__flink-on-prem/data/promotions-0/00000000000000000029.snapshot",
			29, []tuple{{45, 0, 2, 26, -1, -1}, {46, 0, 25, 28, -1, -1}}},
		{"rjmfernandes__flink-on-prem/data/loyalty_levels-0/00000000000000017204.snapshot",
			17204, []tuple{{43, 0, 17203, 17203, -1, -1}}},
		{"AdiletBatyrbayev0520__air_analyzer/kafka-data/data/__consumer_offsets-9/00000000000000006925.snapshot",
			6925, nil},
	} {
		t.Run(filepath.Base(filepath.Dir(tc.rel)), func(t *testing.T) {
			path, data := readCorpus(t, tc.rel)
			f, err := ParseNamed(path, data)
			if err != nil {
				t.Fatal(err)
			}
			if f.EndOffset != tc.end {
				t.Errorf("EndOffset %d, want %d", f.EndOffset, tc.end)
			}
			if got := tuplesOf(f); !slices.Equal(got, tc.want) {
				t.Errorf("entries\n got %v\nwant %v", got, tc.want)
			}
			// Same through the streaming entry point.
			g, err := Read(strings.NewReader(string(data)), 0)
			if err != nil || !slices.Equal(tuplesOf(g), tc.want) {
				t.Errorf("Read: %v", err)
			}
		})
	}
	// The transactional producer's entry: coordinator epoch >= 0 and a
	// stored batch whose first sequence is 0.
	path, data := readCorpus(t, "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data/_confluent-ksql-default__command_topic-0/00000000000000000002.snapshot")
	f, _ := ParseNamed(path, data)
	if e := f.Entries[0]; e.CoordinatorEpoch < 0 || e.FirstSequence() != 0 || e.HasOpenTxn() {
		t.Errorf("transactional entry %+v", e)
	}
	// _confluent-monitoring-0: MANIFEST says 5 entries (its tuple list shows 4).
	_, data = readCorpus(t, "rjmfernandes__flink-on-prem/data/_confluent-monitoring-0/00000000000000002827.snapshot")
	if f, err := Parse(data); err != nil || len(f.Entries) != 5 {
		t.Errorf("_confluent-monitoring-0: %v, %d entries", err, len(f.Entries))
	}
}

func TestCorpusOffsetCheckpoints(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct {
		rel     string
		entries int
		empty   bool
		crlf    bool
	}{
		{"seanorth__kafka-server/kafka-logs/replication-offset-checkpoint", 52, false, false},
		{"seanorth__kafka-server/kafka-logs/log-start-offset-checkpoint", 0, false, false},
		{"seanorth__kafka-server/kafka-logs/cleaner-offset-checkpoint", 0, true, false},
		{"AdiletBatyrbayev0520__air_analyzer/kafka-data/data/recovery-point-offset-checkpoint", 55, false, false},
		{"AdiletBatyrbayev0520__air_analyzer/kafka-data/data/cleaner-offset-checkpoint", 2, false, false},
		{"Danielowo2000__BigDataTechnologies-Version-2/kafka_data/recovery-point-offset-checkpoint", 142, false, false},
		{"Danielowo2000__BigDataTechnologies-Version-2/kafka_data/log-start-offset-checkpoint", 2, false, false},
		{"rjmfernandes__flink-on-prem/data/replication-offset-checkpoint", 151, false, false},
		{"macsakini__KafkaCluster/kafka/data/replication-offset-checkpoint", 1, false, false},
		{"macsakini__KafkaCluster/kafka/data/recovery-point-offset-checkpoint", 57, false, false},
		{"JY-GIEGIEGIE__Stock-Sys-Integration/kafka-logs/recovery-point-offset-checkpoint", 57, false, true},
		{"NikhilDighe9975__kafka_setup/kafka-logs/cleaner-offset-checkpoint", 1, false, false},
		{"NikhilDighe9975__kafka_setup/kafka-logs/cleaner-offset-checkpoint.tmp", 1, false, false},
		{"NikhilDighe9975__kafka_setup/kafka-logs-1/replication-offset-checkpoint", 0, true, false},
		{"DonaldY__kafka-2.7.1/kafka-logs/cleaner-offset-checkpoint", 3, false, false},
		{"xpxwo100__bullShit/tmp/kafka-logs/recovery-point-offset-checkpoint", 53, false, false},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			path, data := readCorpus(t, tc.rel)
			c, err := ParseOffsetCheckpoint(path, data)
			if err != nil {
				t.Fatal(err)
			}
			wantCount := tc.entries
			if tc.empty {
				wantCount = -1 // an empty file states no count
			}
			if len(c.Entries) != tc.entries || c.Count != wantCount || c.Empty != tc.empty || c.CRLF != tc.crlf {
				t.Errorf("entries %d count %d empty %v crlf %v", len(c.Entries), c.Count, c.Empty, c.CRLF)
			}
			if c.Leftover != strings.HasSuffix(tc.rel, ".tmp") || !c.Kind.IsOffsetCheckpoint() {
				t.Errorf("leftover %v kind %v", c.Leftover, c.Kind)
			}
		})
	}
	// The leftover .tmp says the same as the file it was meant to replace.
	_, a := readCorpus(t, "NikhilDighe9975__kafka_setup/kafka-logs/cleaner-offset-checkpoint")
	_, b := readCorpus(t, "NikhilDighe9975__kafka_setup/kafka-logs/cleaner-offset-checkpoint.tmp")
	ca, _ := ParseOffsetCheckpoint("", a)
	cb, _ := ParseOffsetCheckpoint("", b)
	if !slices.Equal(ca.Entries, cb.Entries) || ca.Entries[0] != (OffsetEntry{"__consumer_offsets", 12, 0, 3}) {
		t.Errorf("%+v vs %+v", ca.Entries, cb.Entries)
	}
}

func TestCorpusMetaProperties(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct {
		rel      string
		version  int
		id       int32
		cluster  string
		hasClust bool
		dirID    string
		note     string
	}{
		{"Romanenko3490__wallet-test/volumes/kafka/data/meta.properties", 1, 1, "", true, "INIC7Zm0VPuyEWGsMAK-tA", "cluster.id is empty"},
		{"ArthurArutunyan04__Backend_labs/kafka-data/meta.properties", 1, 1, "universe-labs-cluster", true, "MQHhtGhc9j1ncLM2pvl16w", "not a base64 uuid"},
		{"JY-GIEGIEGIE__Stock-Sys-Integration/kafka-logs/meta.properties", 1, 1, "qDiEGq8USDuFevMYl0UwZg", true, "", "CRLF"},
		{"xpxwo100__bullShit/tmp/kafka-logs/meta.properties", 0, 0, "", false, "", "before Kafka 2.4"},
		{"hermag__kafkademo/kafka/data/meta.properties", 0, 1001, "", false, "", "before Kafka 2.4"},
		{"AdiletBatyrbayev0520__air_analyzer/kafka-data/data/meta.properties", 1, 1, "jhCzCarDSyqr9FkZhIbmYQ", true, "7JmH4YiRA0Bg4MtqR69GOg", ""},
		{"NikhilDighe9975__kafka_setup/kafka-logs-1/meta.properties", 0, 1, "XB4QhweWTe-kZwMNW25y1A", true, "", ""},
		{"JobCollins__daas/kafka/data/meta.properties", 1, 0, "yJ_FHkIoSy-UH7Tm5Szbgw", true, "RTaZvIb4JBticQ0DRaPyPw", ""},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			path, data := readCorpus(t, tc.rel)
			m, err := ParseMetaProperties(path, data)
			if err != nil {
				t.Fatal(err)
			}
			if m.Version != tc.version || m.ID() != tc.id || m.ClusterID != tc.cluster || m.HasClusterID != tc.hasClust || m.DirectoryID != tc.dirID {
				t.Errorf("got %+v", m)
			}
			notes := strings.Join(m.Notes, "|")
			if (tc.note == "") != (notes == "") || !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}

func TestCorpusSmallFiles(t *testing.T) {
	needCorpus(t)
	path, data := readCorpus(t, "JY-GIEGIEGIE__Stock-Sys-Integration/kafka-logs/client.order.report-0/leader-epoch-checkpoint")
	le, err := ParseLeaderEpochCheckpoint(path, data)
	if err != nil || !le.CRLF {
		t.Errorf("CRLF leader-epoch-checkpoint: %+v %v", le, err)
	}
	path, data = readCorpus(t, "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data/.kafka_cleanshutdown")
	cs, err := ParseCleanShutdown(path, data)
	if err != nil || cs.BrokerEpoch != 53326 || cs.Empty {
		t.Errorf("clean shutdown: %+v %v", cs, err)
	}
	path, data = readCorpus(t, "SharaWeil__kafka-0.11.0/data/.kafka_cleanshutdown")
	cs, err = ParseCleanShutdown(path, data)
	if err != nil || !cs.Empty {
		t.Errorf("empty clean shutdown: %+v %v", cs, err)
	}
	path, data = readCorpus(t, "ArthurArutunyan04__Backend_labs/kafka-data/__cluster_metadata-0/quorum-state")
	q, err := ParseQuorumState(path, data)
	if err != nil || q.LeaderID != 1 || q.LeaderEpoch != 8 {
		t.Errorf("quorum-state: %+v %v", q, err)
	}
	path, data = readCorpus(t, "ArthurArutunyan04__Backend_labs/kafka-data/__cluster_metadata-0/partition.metadata")
	pm, err := ParsePartitionMetadata(path, data)
	if err != nil || pm.TopicID.String() != "AAAAAAAAAAAAAAAAAAAAAQ" {
		t.Errorf("metadata partition.metadata: %+v %v", pm, err)
	}
}
