package topics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// KRaft metadata record apiKeys (MetadataRecordType; the "apiKey" of each
// metadata/src/main/resources/common/metadata/*.json).
const (
	APIRegisterBroker            = 0
	APIUnregisterBroker          = 1
	APITopic                     = 2
	APIPartition                 = 3
	APIConfig                    = 4
	APIPartitionChange           = 5
	APIAccessControl             = 6 // Kafka 2.8 only, replaced by 18
	APIFenceBroker               = 7
	APIUnfenceBroker             = 8
	APIRemoveTopic               = 9
	APIDelegationToken           = 10
	APIUserScramCredential       = 11
	APIFeatureLevel              = 12
	APIClientQuota               = 14
	APIProducerIds               = 15
	APIRemoveFeatureLevel        = 16 // early KRaft only
	APIBrokerRegistrationChange  = 17
	APIAccessControlEntry        = 18
	APIRemoveAccessControlEntry  = 19
	APINoOp                      = 20
	APIZkMigration               = 21
	APIRemoveUserScramCredential = 22
	APIBeginTransaction          = 23
	APIEndTransaction            = 24
	APIAbortTransaction          = 25
	APIRemoveDelegationToken     = 26
	APIRegisterController        = 27
	APIClearElr                  = 28
	APIUnregisterController      = 29
)

// metaSchema is what this package knows of one metadata record type.
type metaSchema struct {
	// name is ksleuth's short name, counted in Stats ("PartitionChange").
	name string
	// kafka is the MetadataRecordType constant kafka-dump-log prints
	// ("PARTITION_CHANGE_RECORD").
	kafka string
	// max is the highest version decoded.
	max    uint32
	decode func(c *cursor, version uint32) any
}

// metaSchemas holds every record type of apache/kafka's
// metadata/src/main/resources/common/metadata up to Kafka 4.x, with the
// highest version those releases write.
var metaSchemas = map[uint32]metaSchema{
	APIRegisterBroker:            {"RegisterBroker", "REGISTER_BROKER_RECORD", 4, decodeRegisterBroker},
	APIUnregisterBroker:          {"UnregisterBroker", "UNREGISTER_BROKER_RECORD", 0, decodeUnregisterBroker},
	APITopic:                     {"Topic", "TOPIC_RECORD", 0, decodeTopic},
	APIPartition:                 {"Partition", "PARTITION_RECORD", 2, decodePartition},
	APIConfig:                    {"Config", "CONFIG_RECORD", 0, decodeConfig},
	APIPartitionChange:           {"PartitionChange", "PARTITION_CHANGE_RECORD", 2, decodePartitionChange},
	APIAccessControl:             {"AccessControl", "ACCESS_CONTROL_RECORD", 0, decodeAccessControl},
	APIFenceBroker:               {"FenceBroker", "FENCE_BROKER_RECORD", 0, decodeFenceBroker},
	APIUnfenceBroker:             {"UnfenceBroker", "UNFENCE_BROKER_RECORD", 0, decodeUnfenceBroker},
	APIRemoveTopic:               {"RemoveTopic", "REMOVE_TOPIC_RECORD", 0, decodeRemoveTopic},
	APIDelegationToken:           {"DelegationToken", "DELEGATION_TOKEN_RECORD", 0, decodeDelegationToken},
	APIUserScramCredential:       {"UserScramCredential", "USER_SCRAM_CREDENTIAL_RECORD", 0, decodeUserScramCredential},
	APIFeatureLevel:              {"FeatureLevel", "FEATURE_LEVEL_RECORD", 0, decodeFeatureLevel},
	APIClientQuota:               {"ClientQuota", "CLIENT_QUOTA_RECORD", 0, decodeClientQuota},
	APIProducerIds:               {"ProducerIds", "PRODUCER_IDS_RECORD", 0, decodeProducerIds},
	APIRemoveFeatureLevel:        {"RemoveFeatureLevel", "REMOVE_FEATURE_LEVEL_RECORD", 0, decodeRemoveFeatureLevel},
	APIBrokerRegistrationChange:  {"BrokerRegistrationChange", "BROKER_REGISTRATION_CHANGE_RECORD", 3, decodeBrokerRegistrationChange},
	APIAccessControlEntry:        {"AccessControlEntry", "ACCESS_CONTROL_ENTRY_RECORD", 0, decodeAccessControlEntry},
	APIRemoveAccessControlEntry:  {"RemoveAccessControlEntry", "REMOVE_ACCESS_CONTROL_ENTRY_RECORD", 0, decodeRemoveAccessControlEntry},
	APINoOp:                      {"NoOp", "NO_OP_RECORD", 0, decodeNoOp},
	APIZkMigration:               {"ZkMigration", "ZK_MIGRATION_STATE_RECORD", 0, decodeZkMigration},
	APIRemoveUserScramCredential: {"RemoveUserScramCredential", "REMOVE_USER_SCRAM_CREDENTIAL_RECORD", 0, decodeRemoveUserScramCredential},
	APIBeginTransaction:          {"BeginTransaction", "BEGIN_TRANSACTION_RECORD", 0, decodeBeginTransaction},
	APIEndTransaction:            {"EndTransaction", "END_TRANSACTION_RECORD", 0, decodeEndTransaction},
	APIAbortTransaction:          {"AbortTransaction", "ABORT_TRANSACTION_RECORD", 0, decodeAbortTransaction},
	APIRemoveDelegationToken:     {"RemoveDelegationToken", "REMOVE_DELEGATION_TOKEN_RECORD", 0, decodeRemoveDelegationToken},
	APIRegisterController:        {"RegisterController", "REGISTER_CONTROLLER_RECORD", 0, decodeRegisterController},
	APIClearElr:                  {"ClearElr", "CLEAR_ELR_RECORD", 0, decodeClearElr},
	APIUnregisterController:      {"UnregisterController", "UNREGISTER_CONTROLLER_RECORD", 0, decodeUnregisterController},
}

// MetadataTypeName names a metadata apiKey ("ProducerIds" for 15), or
// "Unknown(N)".
func MetadataTypeName(apiKey uint32) string {
	if s, ok := metaSchemas[apiKey]; ok {
		return s.name
	}
	return "Unknown(" + strconv.FormatUint(uint64(apiKey), 10) + ")"
}

// MetadataKafkaName is the MetadataRecordType name Kafka's tools print
// for an apiKey ("PRODUCER_IDS_RECORD" for 15), or "" for an unknown one.
func MetadataKafkaName(apiKey uint32) string { return metaSchemas[apiKey].kafka }

// MetadataMaxVersion is the highest version of an apiKey's record that
// this package decodes, and whether the apiKey is known.
func MetadataMaxVersion(apiKey uint32) (uint32, bool) {
	s, ok := metaSchemas[apiKey]
	return s.max, ok
}

// MetadataRecord is one KRaft metadata record (the value of a
// __cluster_metadata record; the key is null): uvarint frame version (1),
// uvarint apiKey, uvarint version, then the body in that version's
// encoding (flexible for every type but AccessControl).
type MetadataRecord struct {
	FrameVersion uint32 `json:"frameVersion"`
	APIKey       uint32 `json:"apiKey"`
	Version      uint32 `json:"version"`
	Type         string `json:"type"`
	// KafkaType is the MetadataRecordType name (PARTITION_CHANGE_RECORD).
	KafkaType string `json:"kafkaType,omitempty"`
	// BodySize is the length of the body in bytes.
	BodySize int `json:"bodySize"`
	// Data is the decoded body, a pointer to the type's record struct
	// (*PartitionChangeRecord, *ConfigRecord, ...); nil when the record
	// did not decode.
	Data any `json:"data,omitempty"`
}

// DecodeMetadata decodes a metadata record value. The header is returned
// whenever it parses, with the body decoded into Data. An apiKey this
// package has no schema for is an ErrUnknownType error and a version above
// the known one an ErrUnknownVersion error, both naming the type, version
// and the byte of the value they were read at; Data is nil then.
func DecodeMetadata(b []byte) (*MetadataRecord, error) { return decodeMetadata(b, nil) }

func decodeMetadata(b []byte, ed *editor) (*MetadataRecord, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: null metadata record value", ErrMalformed)
	}
	c := newCursor(b, "value")
	m := &MetadataRecord{}
	h := c.apiFrame()
	if c.err != nil {
		return nil, c.err
	}
	m.FrameVersion, m.APIKey, m.Version = h.frame, h.key, h.version
	keyAt, versionAt := h.keyAt, h.versionAt
	m.Type = MetadataTypeName(m.APIKey)
	m.KafkaType = MetadataKafkaName(m.APIKey)
	m.BodySize = c.left()
	if m.FrameVersion != 1 {
		return m, fmt.Errorf("%w, at byte 0 of the value", &VersionError{Part: "metadata record frame", Version: int16(min(m.FrameVersion, 32767)), Max: 1})
	}
	s, ok := metaSchemas[m.APIKey]
	if !ok {
		return m, fmt.Errorf("%w: metadata apiKey %d (version %d) at byte %d of the value", ErrUnknownType, m.APIKey, m.Version, keyAt)
	}
	if m.Version > s.max {
		return m, fmt.Errorf("%w, at byte %d of the value", &VersionError{Part: m.Type + "Record", Version: int16(min(m.Version, 32767)), Max: int16(s.max)}, versionAt)
	}
	body := &cursor{b: b, off: c.off, part: m.Type + "Record v" + itoa(int(m.Version)) + " value", ed: ed}
	data := s.decode(body, m.Version)
	if err := body.done(); err != nil {
		return m, err
	}
	m.Data = data
	return m, nil
}

// KafkaJSON renders a decoded record as kafka-dump-log's
// --cluster-metadata-decoder prints its payload:
// {"type":"PARTITION_CHANGE_RECORD","version":0,"data":{...}}, with the
// data fields in schema order under their camelCase names. It returns nil
// for a record that did not decode.
func (m *MetadataRecord) KafkaJSON() []byte {
	if m == nil || m.Data == nil {
		return nil
	}
	var buf bytes.Buffer
	buf.WriteString(`{"type":"`)
	buf.WriteString(m.KafkaType)
	buf.WriteString(`","version":`)
	buf.WriteString(strconv.FormatUint(uint64(m.Version), 10))
	buf.WriteString(`,"data":`)
	enc := json.NewEncoder(&buf)
	// Jackson leaves <, > and & as they are.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m.Data); err != nil {
		// The record structs hold only numbers, strings, bools, byte
		// slices and JavaDouble, which never fail to encode.
		panic(err)
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	buf.WriteByte('}')
	return buf.Bytes()
}
