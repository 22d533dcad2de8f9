package cluster

import (
	"strings"

	"github.com/ksleuth/ksleuth/analysis/topics"
)

// TopicConfigs replays decoded metadata records in log order and keeps the
// topic-level config overrides in effect after them: TopicRecords map ids
// to names, ConfigRecords of resource type TOPIC set a key (a null value
// deletes it), and a RemoveTopicRecord drops the topic and its configs, as
// the controller does when a topic is deleted. Cluster-wide dynamic
// defaults (resource type BROKER, empty name) are kept apart in Cluster.
//
// Feed a .checkpoint snapshot first and then the log records after its end
// offset, or the whole log from offset 0, of one copy of the log (each
// node keeps its own; take the one reaching the highest offset). Call
// Reset before a snapshot that replaces what came before.
type TopicConfigs struct {
	names   map[topics.UUID]string
	topics  map[string]map[string]string
	cluster map[string]string
	// parts is one more than the greatest partition id of each topic's
	// PartitionRecords.
	parts map[string]int32
}

// NewTopicConfigs returns an empty replay.
func NewTopicConfigs() *TopicConfigs {
	t := &TopicConfigs{}
	t.Reset()
	return t
}

// Reset forgets every topic and config.
func (t *TopicConfigs) Reset() {
	t.names = map[topics.UUID]string{}
	t.topics = map[string]map[string]string{}
	t.cluster = map[string]string{}
	t.parts = map[string]int32{}
}

// Apply replays one record; records of other types, and records that did
// not decode (nil Data), change nothing.
func (t *TopicConfigs) Apply(m *topics.MetadataRecord) {
	if m == nil {
		return
	}
	switch r := m.Data.(type) {
	case *topics.TopicRecord:
		t.names[r.TopicID] = r.Name
		if t.topics[r.Name] == nil {
			t.topics[r.Name] = map[string]string{}
		}
	case *topics.PartitionRecord:
		if name, ok := t.names[r.TopicID]; ok && r.PartitionID >= 0 {
			t.parts[name] = max(t.parts[name], r.PartitionID+1)
		}
	case *topics.RemoveTopicRecord:
		if name, ok := t.names[r.TopicID]; ok {
			delete(t.names, r.TopicID)
			delete(t.topics, name)
			delete(t.parts, name)
		}
	case *topics.ConfigRecord:
		var kv map[string]string
		switch {
		case r.ResourceType == topics.ConfigResourceTopic:
			kv = t.topics[r.ResourceName]
			if kv == nil {
				// A config for a topic whose TopicRecord is not in the
				// input (an earlier, deleted segment) still applies.
				kv = map[string]string{}
				t.topics[r.ResourceName] = kv
			}
		case r.ResourceType == topics.ConfigResourceBroker && r.ResourceName == "":
			kv = t.cluster
		default:
			return
		}
		if r.Value == nil {
			delete(kv, r.Name)
		} else {
			kv[r.Name] = *r.Value
		}
	}
}

// Partitions is a topic's partition count by its PartitionRecords (0 when
// none was read).
func (t *TopicConfigs) Partitions(topic string) int32 { return t.parts[topic] }

// Topics is the topic name -> config key -> value map in effect: every
// live topic, with an empty map when it has no overrides. The maps are
// the replay's own; copy them before applying more records.
func (t *TopicConfigs) Topics() map[string]map[string]string { return t.topics }

// Cluster is the cluster-wide dynamic broker config (log.cleanup.policy
// and the like) in effect, which applies to every topic without its own
// override.
func (t *TopicConfigs) Cluster() map[string]string { return t.cluster }

// Compacted reports whether topic's cleanup.policy, or else the
// cluster-wide log.cleanup.policy, lists compact. A topic with neither
// set uses the broker's static default, which is delete unless the
// broker's properties file says otherwise.
func (t *TopicConfigs) Compacted(topic string) bool {
	if v, ok := t.topics[topic]["cleanup.policy"]; ok {
		return PolicyCompacts(v)
	}
	if v, ok := t.cluster["log.cleanup.policy"]; ok {
		return PolicyCompacts(v)
	}
	return false
}

// CompactedTopics is the set of topics in Topics for which Compacted is
// true, the form the loss ledger's options take.
func (t *TopicConfigs) CompactedTopics() map[string]bool {
	out := map[string]bool{}
	for name := range t.topics {
		if t.Compacted(name) {
			out[name] = true
		}
	}
	return out
}

// PolicyCompacts reports whether a cleanup.policy value (a comma-separated
// list such as "compact,delete") includes compact.
func PolicyCompacts(policy string) bool {
	for _, p := range strings.Split(policy, ",") {
		if strings.EqualFold(strings.TrimSpace(p), "compact") {
			return true
		}
	}
	return false
}

// TopicConfigsAt replays recs in order and returns the topic configs in
// effect after the last one (see TopicConfigs).
func TopicConfigsAt(recs []*topics.MetadataRecord) map[string]map[string]string {
	t := NewTopicConfigs()
	for _, m := range recs {
		t.Apply(m)
	}
	return t.Topics()
}

// RetentionKeys are the settings that say when the broker deletes a
// topic's old segments; each comes from the topic's override, else the
// cluster-wide dynamic default (log.retention.ms, log.retention.bytes,
// log.cleanup.policy).
var RetentionKeys = [...]string{"retention.ms", "retention.bytes", "cleanup.policy"}

// Setting is a topic's value of key (one of RetentionKeys or the like),
// from its own override or else the cluster-wide "log."-prefixed default;
// ok is false when neither is set.
func (t *TopicConfigs) Setting(topic, key string) (string, bool) {
	if v, ok := t.topics[topic][key]; ok {
		return v, true
	}
	v, ok := t.cluster["log."+key]
	return v, ok
}
