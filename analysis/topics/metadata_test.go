package topics_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/topics"
)

func uuidBytes(b byte) []byte {
	u := make([]byte, 16)
	u[15] = b
	return u
}

// The Kafka forms of uuidBytes(1) and uuidBytes(2): URL-safe base64 of 15
// zero bytes and the last byte.
const (
	u1s = "AAAAAAAAAAAAAAAAAAAAAQ"
	u2s = "AAAAAAAAAAAAAAAAAAAAAg"
)

func (e *enc) uuids(us ...[]byte) *enc {
	e.count(true, len(us))
	for _, u := range us {
		e.raw(u)
	}
	return e
}

func (e *enc) f64(v float64) *enc {
	e.b = binary.BigEndian.AppendUint64(e.b, math.Float64bits(v))
	return e
}

// metaCase is one metadata record built from the schema text and the
// payload kafka-dump-log's --cluster-metadata-decoder prints for it,
// worked out by hand from the generated JSON converters' rules: data
// fields in schema order under camelCase names; a field outside the
// record's version, or a tagged field at its default, left out; uuids in
// URL-safe base64, bytes in standard base64, float64 as Java's
// Double.toString.
type metaCase struct {
	name string
	in   *enc
	want string
}

func brokerEndpoints(e *enc) *enc {
	e.count(true, 1).str(true, "PLAINTEXT").str(true, "b2").i16(9092).i16(0).tags()
	return e.count(true, 1).str(true, "metadata.version").i16(1).i16(25).tags()
}

const brokerEndpointsJSON = `"endPoints":[{"name":"PLAINTEXT","host":"b2","port":9092,"securityProtocol":0}],` +
	`"features":[{"name":"metadata.version","minSupportedVersion":1,"maxSupportedVersion":25}]`

func metaCases() []metaCase {
	alice := "alice"
	return []metaCase{
		{"RegisterBroker v0", brokerEndpoints(metaHeader(0, 0).i32(2).raw(uuidBytes(1)).i64(40)).nstr(true, sp("r1")).boolean(true).tags(),
			`{"type":"REGISTER_BROKER_RECORD","version":0,"data":{"brokerId":2,"incarnationId":"` + u1s + `","brokerEpoch":40,` + brokerEndpointsJSON + `,"rack":"r1","fenced":true}}`},
		{"RegisterBroker v1", brokerEndpoints(metaHeader(0, 1).i32(2).raw(uuidBytes(1)).i64(40)).nstr(true, nil).boolean(false).boolean(true).tags(),
			`{"type":"REGISTER_BROKER_RECORD","version":1,"data":{"brokerId":2,"incarnationId":"` + u1s + `","brokerEpoch":40,` + brokerEndpointsJSON + `,"rack":null,"fenced":false,"inControlledShutdown":true}}`},
		// Tag 9 is not in the schema and skipped.
		{"RegisterBroker v3", brokerEndpoints(metaHeader(0, 3).i32(2).boolean(false).raw(uuidBytes(1)).i64(40)).nstr(true, nil).boolean(true).boolean(false).
			tags(tag{0, new(enc).uuids(uuidBytes(2)).b}, tag{9, []byte{1, 2}}),
			`{"type":"REGISTER_BROKER_RECORD","version":3,"data":{"brokerId":2,"isMigratingZkBroker":false,"incarnationId":"` + u1s + `","brokerEpoch":40,` + brokerEndpointsJSON + `,"rack":null,"fenced":true,"inControlledShutdown":false,"logDirs":["` + u2s + `"]}}`},
		{"RegisterBroker v4", brokerEndpoints(metaHeader(0, 4).i32(2).boolean(true).raw(uuidBytes(1)).i64(40)).nstr(true, nil).boolean(true).boolean(false).
			tags(tag{0, new(enc).uuids(uuidBytes(2)).b}, tag{1, new(enc).uuids().b}),
			`{"type":"REGISTER_BROKER_RECORD","version":4,"data":{"brokerId":2,"isMigratingZkBroker":true,"incarnationId":"` + u1s + `","brokerEpoch":40,` + brokerEndpointsJSON + `,"rack":null,"fenced":true,"inControlledShutdown":false,"logDirs":["` + u2s + `"],"cordonedLogDirs":[]}}`},
		{"UnregisterBroker", metaHeader(1, 0).i32(3).i64(7).tags(), `{"type":"UNREGISTER_BROKER_RECORD","version":0,"data":{"brokerId":3,"brokerEpoch":7}}`},
		{"FenceBroker", metaHeader(7, 0).i32(3).i64(7).tags(), `{"type":"FENCE_BROKER_RECORD","version":0,"data":{"id":3,"epoch":7}}`},
		{"UnfenceBroker", metaHeader(8, 0).i32(3).i64(7).tags(), `{"type":"UNFENCE_BROKER_RECORD","version":0,"data":{"id":3,"epoch":7}}`},
		{"BrokerRegistrationChange v0 unfence", metaHeader(17, 0).i32(1).i64(9).tags(tag{0, []byte{0xff}}),
			`{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":0,"data":{"brokerId":1,"brokerEpoch":9,"fenced":-1}}`},
		{"BrokerRegistrationChange v0 no change", metaHeader(17, 0).i32(1).i64(9).tags(tag{0, []byte{0}}),
			`{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":0,"data":{"brokerId":1,"brokerEpoch":9}}`},
		{"BrokerRegistrationChange v3", metaHeader(17, 3).i32(1).i64(9).tags(tag{1, []byte{1}}, tag{2, new(enc).uuids(uuidBytes(1)).b}, tag{3, new(enc).uuids().b}),
			`{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":3,"data":{"brokerId":1,"brokerEpoch":9,"inControlledShutdown":1,"logDirs":["` + u1s + `"],"cordonedLogDirs":[]}}`},
		{"RegisterController", metaHeader(27, 0).i32(3000).raw(uuidBytes(2)).boolean(false).
			count(true, 1).str(true, "CONTROLLER").str(true, "c1").i16(9093).i16(0).tags().
			count(true, 1).str(true, "kraft.version").i16(0).i16(1).tags().tags(),
			`{"type":"REGISTER_CONTROLLER_RECORD","version":0,"data":{"controllerId":3000,"incarnationId":"` + u2s + `","zkMigrationReady":false,` +
				`"endPoints":[{"name":"CONTROLLER","host":"c1","port":9093,"securityProtocol":0}],"features":[{"name":"kraft.version","minSupportedVersion":0,"maxSupportedVersion":1}]}}`},
		{"UnregisterController", metaHeader(29, 0).i32(3000).tags(), `{"type":"UNREGISTER_CONTROLLER_RECORD","version":0,"data":{"controllerId":3000}}`},
		{"FeatureLevel", metaHeader(12, 0).str(true, "metadata.version").i16(25).tags(), `{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":25}}`},
		{"RemoveFeatureLevel", metaHeader(16, 0).str(true, "x").tags(), `{"type":"REMOVE_FEATURE_LEVEL_RECORD","version":0,"data":{"name":"x"}}`},
		{"ProducerIds", metaHeader(15, 0).i32(1).i64(5).i64(2000).tags(), `{"type":"PRODUCER_IDS_RECORD","version":0,"data":{"brokerId":1,"brokerEpoch":5,"nextProducerId":2000}}`},
		{"ZkMigration", metaHeader(21, 0).i8(3).tags(), `{"type":"ZK_MIGRATION_STATE_RECORD","version":0,"data":{"zkMigrationState":3}}`},
		{"NoOp", metaHeader(20, 0).tags(), `{"type":"NO_OP_RECORD","version":0,"data":{}}`},
		{"BeginTransaction", metaHeader(23, 0).tags(tag{0, new(enc).nstr(true, sp("Creating topic orders")).b}),
			`{"type":"BEGIN_TRANSACTION_RECORD","version":0,"data":{"name":"Creating topic orders"}}`},
		{"BeginTransaction unnamed", metaHeader(23, 0).tags(), `{"type":"BEGIN_TRANSACTION_RECORD","version":0,"data":{}}`},
		{"EndTransaction", metaHeader(24, 0).tags(), `{"type":"END_TRANSACTION_RECORD","version":0,"data":{}}`},
		{"AbortTransaction", metaHeader(25, 0).tags(tag{0, new(enc).nstr(true, sp("controller failover")).b}),
			`{"type":"ABORT_TRANSACTION_RECORD","version":0,"data":{"reason":"controller failover"}}`},
		{"Topic", metaHeader(2, 0).str(true, "orders").raw(uuidBytes(1)).tags(), `{"type":"TOPIC_RECORD","version":0,"data":{"name":"orders","topicId":"` + u1s + `"}}`},
		{"RemoveTopic", metaHeader(9, 0).raw(uuidBytes(1)).tags(), `{"type":"REMOVE_TOPIC_RECORD","version":0,"data":{"topicId":"` + u1s + `"}}`},
		{"Partition v0", metaHeader(3, 0).i32(4).raw(uuidBytes(1)).i32s(true, []int32{1, 2}).i32s(true, []int32{1}).i32s(true, []int32{}).i32s(true, []int32{}).
			i32(1).i32(3).i32(5).tags(tag{0, []byte{1}}),
			`{"type":"PARTITION_RECORD","version":0,"data":{"partitionId":4,"topicId":"` + u1s + `","replicas":[1,2],"isr":[1],"removingReplicas":[],"addingReplicas":[],"leader":1,"leaderRecoveryState":1,"leaderEpoch":3,"partitionEpoch":5}}`},
		{"Partition v2", metaHeader(3, 2).i32(4).raw(uuidBytes(1)).i32s(true, []int32{1, 2}).i32s(true, []int32{1}).i32s(true, []int32{}).i32s(true, []int32{}).
			i32(1).i32(3).i32(5).uuids(uuidBytes(1), uuidBytes(2)).tags(tag{1, new(enc).i32s(true, []int32{}).b}, tag{2, new(enc).i32s(true, []int32{1, 2}).b}),
			`{"type":"PARTITION_RECORD","version":2,"data":{"partitionId":4,"topicId":"` + u1s + `","replicas":[1,2],"isr":[1],"removingReplicas":[],"addingReplicas":[],"leader":1,"leaderEpoch":3,"partitionEpoch":5,` +
				`"directories":["` + u1s + `","` + u2s + `"],"eligibleLeaderReplicas":[],"lastKnownElr":[1,2]}}`},
		{"PartitionChange v0 ISR shrink", metaHeader(5, 0).i32(0).raw(uuidBytes(1)).tags(tag{0, new(enc).i32s(true, []int32{1, 2}).b}),
			`{"type":"PARTITION_CHANGE_RECORD","version":0,"data":{"partitionId":0,"topicId":"` + u1s + `","isr":[1,2]}}`},
		// Tags at their defaults (leader -2, recovery state -1) print
		// nothing.
		{"PartitionChange v0 defaults", metaHeader(5, 0).i32(0).raw(uuidBytes(1)).tags(tag{1, be32(-2)}, tag{5, []byte{0xff}}),
			`{"type":"PARTITION_CHANGE_RECORD","version":0,"data":{"partitionId":0,"topicId":"` + u1s + `"}}`},
		{"PartitionChange v2 unclean", metaHeader(5, 2).i32(7).raw(uuidBytes(1)).tags(
			tag{0, new(enc).i32s(true, []int32{3}).b}, tag{1, be32(3)}, tag{2, new(enc).i32s(true, []int32{1, 2, 3}).b},
			tag{3, new(enc).i32s(true, []int32{1}).b}, tag{4, new(enc).i32s(true, []int32{3}).b}, tag{5, []byte{1}},
			tag{6, new(enc).i32s(true, []int32{}).b}, tag{7, new(enc).i32s(true, []int32{1}).b}, tag{8, new(enc).uuids(uuidBytes(2)).b}),
			`{"type":"PARTITION_CHANGE_RECORD","version":2,"data":{"partitionId":7,"topicId":"` + u1s + `","isr":[3],"leader":3,"replicas":[1,2,3],"removingReplicas":[1],"addingReplicas":[3],` +
				`"leaderRecoveryState":1,"directories":["` + u2s + `"],"eligibleLeaderReplicas":[],"lastKnownElr":[1]}}`},
		{"PartitionChange v0 no leader", metaHeader(5, 0).i32(0).raw(uuidBytes(1)).tags(tag{1, be32(-1)}),
			`{"type":"PARTITION_CHANGE_RECORD","version":0,"data":{"partitionId":0,"topicId":"` + u1s + `","leader":-1}}`},
		{"ClearElr", metaHeader(28, 0).str(true, "").tags(), `{"type":"CLEAR_ELR_RECORD","version":0,"data":{"topicName":""}}`},
		{"Config set", metaHeader(4, 0).i8(2).str(true, "orders").str(true, "cleanup.policy").nstr(true, sp("compact,delete")).tags(),
			`{"type":"CONFIG_RECORD","version":0,"data":{"resourceType":2,"resourceName":"orders","name":"cleanup.policy","value":"compact,delete"}}`},
		{"Config delete", metaHeader(4, 0).i8(4).str(true, "").str(true, "log.retention.ms").nstr(true, nil).tags(),
			`{"type":"CONFIG_RECORD","version":0,"data":{"resourceType":4,"resourceName":"","name":"log.retention.ms","value":null}}`},
		{"ClientQuota", metaHeader(14, 0).count(true, 2).str(true, "user").nstr(true, &alice).tags().str(true, "client-id").nstr(true, nil).tags().
			str(true, "producer_byte_rate").f64(1048576).boolean(false).tags(),
			`{"type":"CLIENT_QUOTA_RECORD","version":0,"data":{"entity":[{"entityType":"user","entityName":"alice"},{"entityType":"client-id","entityName":null}],"key":"producer_byte_rate","value":1048576.0,"remove":false}}`},
		{"ClientQuota large", metaHeader(14, 0).count(true, 0).str(true, "request_percentage").f64(1.5e7).boolean(true).tags(),
			`{"type":"CLIENT_QUOTA_RECORD","version":0,"data":{"entity":[],"key":"request_percentage","value":1.5E7,"remove":true}}`},
		// The 2.8 record is not flexible: int16 string lengths, no tags.
		{"AccessControl", metaHeader(6, 0).i8(2).nstr(false, sp("orders")).i8(3).str(false, "User:alice").str(false, "*").i8(3).i8(3),
			`{"type":"ACCESS_CONTROL_RECORD","version":0,"data":{"resourceType":2,"resourceName":"orders","patternType":3,"principal":"User:alice","host":"*","operation":3,"permissionType":3}}`},
		{"AccessControlEntry", metaHeader(18, 0).raw(uuidBytes(1)).i8(2).str(true, "orders").i8(3).str(true, "User:<a&b>").str(true, "*").i8(3).i8(3).tags(),
			`{"type":"ACCESS_CONTROL_ENTRY_RECORD","version":0,"data":{"id":"` + u1s + `","resourceType":2,"resourceName":"orders","patternType":3,"principal":"User:<a&b>","host":"*","operation":3,"permissionType":3}}`},
		{"RemoveAccessControlEntry", metaHeader(19, 0).raw(uuidBytes(1)).tags(), `{"type":"REMOVE_ACCESS_CONTROL_ENTRY_RECORD","version":0,"data":{"id":"` + u1s + `"}}`},
		{"DelegationToken", metaHeader(10, 0).str(true, "User:a").str(true, "User:a").count(true, 1).str(true, "User:b").i64(1).i64(2).i64(3).str(true, "t1").tags(),
			`{"type":"DELEGATION_TOKEN_RECORD","version":0,"data":{"owner":"User:a","requester":"User:a","renewers":["User:b"],"issueTimestamp":1,"maxTimestamp":2,"expirationTimestamp":3,"tokenId":"t1"}}`},
		{"RemoveDelegationToken", metaHeader(26, 0).str(true, "t1").tags(), `{"type":"REMOVE_DELEGATION_TOKEN_RECORD","version":0,"data":{"tokenId":"t1"}}`},
		{"UserScramCredential", metaHeader(11, 0).str(true, "alice").i8(1).bytes(true, []byte{1, 2, 3}).bytes(true, []byte{0xff}).bytes(true, []byte{}).i32(4096).tags(),
			`{"type":"USER_SCRAM_CREDENTIAL_RECORD","version":0,"data":{"name":"alice","mechanism":1,"salt":"AQID","storedKey":"/w==","serverKey":"","iterations":4096}}`},
		{"RemoveUserScramCredential", metaHeader(22, 0).str(true, "alice").i8(2).tags(), `{"type":"REMOVE_USER_SCRAM_CREDENTIAL_RECORD","version":0,"data":{"name":"alice","mechanism":2}}`},
	}
}

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// TestMetadataRecordsKafkaJSON decodes one record of every type (and the
// versions whose shape differs) and compares the kafka-dump-log payload.
func TestMetadataRecordsKafkaJSON(t *testing.T) {
	seen := map[uint32]bool{}
	for _, c := range metaCases() {
		t.Run(c.name, func(t *testing.T) {
			m, err := topics.DecodeMetadata(c.in.b)
			if err != nil {
				t.Fatal(err)
			}
			seen[m.APIKey] = true
			if got := string(m.KafkaJSON()); got != c.want {
				t.Errorf("\n got  %s\n want %s", got, c.want)
			}
			// The --json form nests the same data object.
			var nested, kafka struct {
				Data any `json:"data"`
			}
			b, err := json.Marshal(m)
			if err != nil || json.Unmarshal(b, &nested) != nil || json.Unmarshal([]byte(c.want), &kafka) != nil || !reflect.DeepEqual(nested.Data, kafka.Data) {
				t.Errorf("json.Marshal: %s, %v", b, err)
			}
		})
	}
	for k := uint32(0); k <= 29; k++ {
		if _, known := topics.MetadataMaxVersion(k); known && !seen[k] {
			t.Errorf("apiKey %d (%s) has no case", k, topics.MetadataTypeName(k))
		}
	}
}

func TestMetadataTypedFields(t *testing.T) {
	var pc *topics.PartitionChangeRecord
	for _, c := range metaCases() {
		if c.name == "PartitionChange v2 unclean" {
			m, err := topics.DecodeMetadata(c.in.b)
			if err != nil {
				t.Fatal(err)
			}
			pc = m.Data.(*topics.PartitionChangeRecord)
		}
	}
	if pc == nil || *pc.Leader != 3 || *pc.LeaderRecoveryState != topics.LeaderRecovering || len(*pc.Isr) != 1 ||
		pc.EligibleLeaderReplicas == nil || len(*pc.EligibleLeaderReplicas) != 0 || (*pc.Directories)[0][15] != 2 {
		t.Errorf("partition change: %+v", pc)
	}
	if got := topics.ConfigResourceName(2) + topics.ConfigResourceName(4) + topics.ConfigResourceName(3); got != "TOPICBROKERUNKNOWN(3)" {
		t.Errorf("resource names %q", got)
	}
}

func TestMetadataUnknownTypeAndVersion(t *testing.T) {
	m, err := topics.DecodeMetadata(metaHeader(99, 0).raw([]byte{1, 2}).b)
	if !errors.Is(err, topics.ErrUnknownType) || m.Type != "Unknown(99)" || m.Data != nil || m.KafkaJSON() != nil ||
		!strings.Contains(err.Error(), "apiKey 99 (version 0) at byte 1 of the value") {
		t.Errorf("apiKey 99: %+v, %v", m, err)
	}
	m, err = topics.DecodeMetadata(metaHeader(5, 3).raw([]byte{1, 2, 3}).b)
	var ve *topics.VersionError
	if !errors.As(err, &ve) || !errors.Is(err, topics.ErrUnknownVersion) || m.Type != "PartitionChange" || m.BodySize != 3 || m.Data != nil ||
		err.Error() != "topics: unknown version: PartitionChangeRecord version 3 (known up to 2), at byte 2 of the value" {
		t.Errorf("PartitionChange v3: %+v, %v", m, err)
	}
	if _, err := topics.DecodeMetadata(metaHeader(0, 5).b); !errors.Is(err, topics.ErrUnknownVersion) || !strings.Contains(err.Error(), "RegisterBrokerRecord version 5") {
		t.Errorf("RegisterBroker v5: %v", err)
	}
	if _, err := topics.DecodeMetadata(new(enc).uv(2).uv(15).uv(0).b); !errors.Is(err, topics.ErrUnknownVersion) {
		t.Errorf("frame version 2: %v", err)
	}
	if _, err := topics.DecodeMetadata(append(metaHeader(2, 0).str(true, "t").raw(make([]byte, 16)).tags().b, 0xff)); !errors.Is(err, topics.ErrTrailing) {
		t.Errorf("trailing byte: %v", err)
	}
	// A known tag in a version before the one that adds it is damage, as
	// Kafka's readers reject it (ELR, tag 6, arrives in v2).
	early := metaHeader(5, 1).i32(0).raw(uuidBytes(1)).tags(tag{6, new(enc).i32s(true, []int32{1}).b}).b
	if _, err := topics.DecodeMetadata(early); !errors.Is(err, topics.ErrMalformed) || !strings.Contains(err.Error(), "tag 6 is not valid for version 1") {
		t.Errorf("ELR in v1: %v", err)
	}
	// A null where the schema has a non-nullable array is damage, as
	// Kafka's readers reject it.
	nullISR := metaHeader(3, 0).i32(4).raw(uuidBytes(1)).i32s(true, []int32{1}).i32s(true, nil).b
	if _, err := topics.DecodeMetadata(nullISR); !errors.Is(err, topics.ErrMalformed) || !strings.Contains(err.Error(), "Isr is null") {
		t.Errorf("null ISR: %v", err)
	}
}

// TestMetadataCutNeverPanics cuts every case at every length: each cut is
// an error, never a panic or a record.
func TestMetadataCutNeverPanics(t *testing.T) {
	for _, c := range metaCases() {
		for n := 0; n < len(c.in.b); n++ {
			m, err := topics.DecodeMetadata(c.in.b[:n])
			if err == nil {
				t.Errorf("%s cut at %d of %d: no error (%+v)", c.name, n, len(c.in.b), m.Data)
			}
		}
	}
}

func TestJavaDouble(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0.0", 1: "1.0", 1048576: "1048576.0", 0.5: "0.5", 1e-3: "0.001", 9999999: "9999999.0",
		1e7: "1.0E7", 1.5e7: "1.5E7", 1e-4: "1.0E-4", 2.5e-10: "2.5E-10", -3e21: "-3.0E21", math.Inf(1): `"Infinity"`,
	} {
		b, err := topics.JavaDouble(f).MarshalJSON()
		if err != nil || string(b) != want {
			t.Errorf("%v: %s, want %s", f, b, want)
		}
	}
	if b, _ := topics.JavaDouble(math.NaN()).MarshalJSON(); string(b) != `"NaN"` {
		t.Errorf("NaN: %s", b)
	}
}
