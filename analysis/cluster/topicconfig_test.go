package cluster_test

import (
	"reflect"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

func decodeAll(t *testing.T, es ...*enc) []*topics.MetadataRecord {
	t.Helper()
	out := make([]*topics.MetadataRecord, len(es))
	for i, e := range es {
		m, err := topics.DecodeMetadata(e.b)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = m
	}
	return out
}

func topicRec(name string, id byte) *enc {
	return metaHeader(2, 0).str(true, name).raw(uuidBytes(id)).tags()
}

func configRec(resource int8, name, key string, value *string) *enc {
	return metaHeader(4, 0).i8(resource).str(true, name).str(true, key).nstr(true, value).tags()
}

// TestTopicConfigs replays a topic's life: created with overrides, one key
// deleted (null value), the topic deleted and created again under the
// same name with a new id; plus a config for a topic whose TopicRecord is
// not in the input and a cluster-wide default.
func TestTopicConfigs(t *testing.T) {
	recs := decodeAll(t,
		topicRec("orders", 1),
		configRec(2, "orders", "cleanup.policy", sp("compact")),
		configRec(2, "orders", "retention.ms", sp("1000")),
		topicRec("audit", 2),
		configRec(2, "orders", "retention.ms", nil),
		configRec(4, "1", "log.cleanup.policy", sp("compact")), // one broker, not the cluster
		metaHeader(9, 0).raw(uuidBytes(1)).tags(),              // RemoveTopic orders
		topicRec("orders", 3),
		configRec(2, "orders", "segment.ms", sp("60000")),
		configRec(2, "ghost", "cleanup.policy", sp("delete, Compact")),
		metaHeader(9, 0).raw(uuidBytes(9)).tags(), // RemoveTopic of an id never seen
	)
	want := map[string]map[string]string{
		"orders": {"segment.ms": "60000"},
		"audit":  {},
		"ghost":  {"cleanup.policy": "delete, Compact"},
	}
	tc := cluster.NewTopicConfigs()
	for _, m := range recs {
		tc.Apply(m)
	}
	tc.Apply(nil)
	tc.Apply(&topics.MetadataRecord{Type: "Config"}) // did not decode
	if got := tc.Topics(); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if got := cluster.TopicConfigsAt(recs); !reflect.DeepEqual(got, want) {
		t.Errorf("TopicConfigsAt: %v", got)
	}
	if tc.Compacted("orders") || tc.Compacted("audit") || !tc.Compacted("ghost") {
		t.Errorf("compacted: orders %v audit %v ghost %v", tc.Compacted("orders"), tc.Compacted("audit"), tc.Compacted("ghost"))
	}
	tc.Apply(decodeAll(t, configRec(4, "", "log.cleanup.policy", sp("compact,delete")))[0])
	if !tc.Compacted("audit") || !tc.Compacted("orders") || tc.Cluster()["log.cleanup.policy"] != "compact,delete" {
		t.Errorf("cluster default: audit %v, cluster %v", tc.Compacted("audit"), tc.Cluster())
	}
	tc.Reset()
	if len(tc.Topics()) != 0 || len(tc.Cluster()) != 0 {
		t.Errorf("after Reset: %v %v", tc.Topics(), tc.Cluster())
	}
	for policy, want := range map[string]bool{"compact": true, "delete": false, "delete,compact": true, " compact ": true, "": false, "compaction": false} {
		if cluster.PolicyCompacts(policy) != want {
			t.Errorf("PolicyCompacts(%q) != %v", policy, want)
		}
	}
}

// TestTopicSetting: a retention setting comes from the topic's override,
// else from the cluster-wide "log."-prefixed default, else is unset.
func TestTopicSetting(t *testing.T) {
	recs := decodeAll(t,
		topicRec("orders", 1),
		topicRec("audit", 2),
		configRec(2, "orders", "retention.ms", sp("60000")),
		configRec(4, "", "log.retention.ms", sp("3600000")),
	)
	tc := cluster.NewTopicConfigs()
	for _, m := range recs {
		tc.Apply(m)
	}
	for _, c := range []struct {
		topic, key, want string
		ok               bool
	}{{"orders", "retention.ms", "60000", true}, {"audit", "retention.ms", "3600000", true}, {"audit", "retention.bytes", "", false}} {
		if v, ok := tc.Setting(c.topic, c.key); v != c.want || ok != c.ok {
			t.Errorf("%s %s: %q %v, want %q %v", c.topic, c.key, v, ok, c.want, c.ok)
		}
	}
}
