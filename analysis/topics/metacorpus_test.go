package topics_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// kraftFile is one metadata log segment or snapshot of the corpus.
type kraftFile struct {
	path string
	// whole: the file holds the full metadata state from its first record
	// (a snapshot, or the log's first segment starting at offset 0), so
	// every topic id it uses must be defined in it.
	whole bool
}

// kraftFiles lists every __cluster_metadata-0 segment and every KRaft
// snapshot (also .deleted ones and bootstrap.checkpoint) under root, and
// groups a log's segments so that a log read from offset 0 is one unit.
func kraftFiles(t *testing.T, root string) [][]kraftFile {
	t.Helper()
	var units [][]kraftFile
	logs := map[string][]kraftFile{}
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		name := de.Name()
		k := snapshot.KindOf(name)
		switch {
		case k == snapshot.KindKRaftSnapshot || k == snapshot.KindBootstrapCheckpoint:
			units = append(units, []kraftFile{{p, true}})
		case k == snapshot.KindLog && topics.TopicOf(filepath.Base(filepath.Dir(p))) == topics.ClusterMetadata:
			d := filepath.Dir(p)
			logs[d] = append(logs[d], kraftFile{p, false})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(logs))
	for d := range logs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		segs := logs[d]
		sort.Slice(segs, func(i, j int) bool { return segs[i].path < segs[j].path })
		if filepath.Base(segs[0].path) == "00000000000000000000.log" {
			for i := range segs {
				segs[i].whole = true
			}
		}
		units = append(units, segs)
	}
	return units
}

// corpusMetadataVersions is every metadata record of the real corpus by
// type and version, logs and snapshots together, as this decoder counts
// them. The per-source counts of three logs are checked against
// MANIFEST.md in TestCorpusClusterMetadata, and every payload against
// kafka-dump-log in cmd/ksleuth's TestDumpMatchesKafkaDumpLog.
var corpusMetadataVersions = map[string]int{
	"BeginTransaction v0": 5, "EndTransaction v0": 5,
	"BrokerRegistrationChange v0": 89, "BrokerRegistrationChange v1": 22,
	"Config v0": 1569, "FeatureLevel v0": 363, "NoOp v0": 91146,
	"Partition v0": 1114, "Partition v1": 409, "Partition v2": 5717,
	"PartitionChange v0": 355, "PartitionChange v2": 2601,
	"ProducerIds v0": 16, "RegisterBroker v2": 12, "RegisterBroker v3": 145,
	"RegisterController v0": 145, "Topic v0": 891, "ZkMigration v0": 15,
}

// TestCorpusMetadataEveryRecordDecoded reads every metadata log segment
// and snapshot of ../shared/corpus/real: no finding, every record's body
// decoded, and the counts per type and version as recorded; and checks
// what the decoded fields must satisfy: each partition's topic id comes
// from a TopicRecord of the same state, its leader is one of its replicas
// (or -1), its ISR a subset of them, and each PartitionChange's leader is
// a replica of the partition at that point.
func TestCorpusMetadataEveryRecordDecoded(t *testing.T) {
	root := corpusDir(t)
	got := map[string]int{}
	files, changes := 0, 0
	for _, unit := range kraftFiles(t, root) {
		ids := map[topics.UUID]string{}
		replicas := map[string][]int32{}
		for _, kf := range unit {
			files++
			f, err := os.Open(kf.path)
			if err != nil {
				t.Fatal(err)
			}
			_, fs, err := topics.ReadSegment(kf.path, f, topics.ClusterMetadata, func(b *segment.Batch, r *segment.Record, d *topics.Decoded) {
				if r.IsControl {
					return
				}
				m := d.Metadata
				if m == nil || m.Data == nil {
					t.Errorf("%s offset %d: not decoded: %+v", kf.path, r.Offset, m)
					return
				}
				got[fmt.Sprintf("%s v%d", m.Type, m.Version)]++
				where := fmt.Sprintf("%s offset %d", kf.path, r.Offset)
				switch x := m.Data.(type) {
				case *topics.TopicRecord:
					ids[x.TopicID] = x.Name
				case *topics.PartitionRecord:
					key := checkTopic(t, kf, ids, x.TopicID, x.PartitionID, where)
					replicas[key] = x.Replicas
					if x.Leader != -1 && !slices.Contains(x.Replicas, x.Leader) {
						t.Errorf("%s: leader %d not in replicas %v", where, x.Leader, x.Replicas)
					}
					for _, b := range x.Isr {
						if !slices.Contains(x.Replicas, b) {
							t.Errorf("%s: ISR %v not within replicas %v", where, x.Isr, x.Replicas)
						}
					}
				case *topics.PartitionChangeRecord:
					changes++
					key := checkTopic(t, kf, ids, x.TopicID, x.PartitionID, where)
					if x.Replicas != nil {
						replicas[key] = *x.Replicas
					}
					if rs, ok := replicas[key]; ok && x.Leader != nil && *x.Leader != -1 && !slices.Contains(rs, *x.Leader) {
						t.Errorf("%s: new leader %d not in replicas %v", where, *x.Leader, rs)
					}
				}
			})
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, fd := range fs {
				t.Errorf("%v [%s]", fd, fd.Kind())
			}
		}
	}
	names := make([]string, 0, len(got))
	total := 0
	for k, v := range got {
		names = append(names, k)
		total += v
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, k := range names {
		fmt.Fprintf(&sb, "\n  %-32s %7d", k, got[k])
	}
	t.Logf("%d files, %d metadata records, %d PartitionChange:%s", files, total, changes, sb.String())
	if !reflect.DeepEqual(got, corpusMetadataVersions) {
		t.Errorf("counts differ from the recorded ones:\n got  %v\n want %v", got, corpusMetadataVersions)
	}
}

// checkTopic requires, in a file holding the whole state, that a
// partition's topic id was defined before it; it returns the partition's
// key.
func checkTopic(t *testing.T, kf kraftFile, ids map[topics.UUID]string, id topics.UUID, partition int32, where string) string {
	t.Helper()
	_, ok := ids[id]
	if !ok && kf.whole {
		t.Errorf("%s: topic id %v of partition %d has no TopicRecord before it", where, id, partition)
	}
	return fmt.Sprintf("%v-%d", id, partition)
}

// TestCorpusTopicConfigs replays Danielowo2000's metadata log: the
// ConfigRecords of its 16 topics (read by hand with dump --records) give
// cleanup.policy compact to the connect, schema-registry and ksql
// changelog topics and delete to the rest.
func TestCorpusTopicConfigs(t *testing.T) {
	p := filepath.Join(corpusDir(t), "Danielowo2000__BigDataTechnologies-Version-2", "kafka_data", "__cluster_metadata-0", "00000000000000000000.log")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tc := cluster.NewTopicConfigs()
	topics.ReadSegment(p, f, topics.ClusterMetadata, func(_ *segment.Batch, _ *segment.Record, d *topics.Decoded) {
		tc.Apply(d.Metadata)
	})
	cfg := tc.Topics()
	var compacted []string
	for name := range tc.CompactedTopics() {
		compacted = append(compacted, name)
	}
	sort.Strings(compacted)
	want := []string{"CURRENTLOCATION", "RIDERSNEARMOUNTAINVIEW", "__consumer_offsets", "__transaction_state",
		"_confluent-ksql-default_query_CTAS_CURRENTLOCATION_3-Aggregate-Aggregate-Materialize-changelog",
		"_confluent-ksql-default_query_CTAS_RIDERSNEARMOUNTAINVIEW_5-Aggregate-Aggregate-Materialize-changelog",
		"_confluent-ksql-default_query_CTAS_RIDERSNEARMOUNTAINVIEW_5-KsqlTopic-Reduce-changelog",
		"_kafka-connect-configs", "_kafka-connect-offsets", "_kafka-connect-status", "_schemas"}
	if len(cfg) != 16 || !reflect.DeepEqual(compacted, want) {
		t.Errorf("%d topics; compacted:\n got  %v\n want %v", len(cfg), compacted, want)
	}
	if v := cfg["locations"]["retention.ms"]; v != "604800000" {
		t.Errorf("locations retention.ms %q", v)
	}
}
