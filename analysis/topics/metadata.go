package topics

import (
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

var metadataNames = map[uint32]string{
	APIRegisterBroker: "RegisterBroker", APIUnregisterBroker: "UnregisterBroker", APITopic: "Topic",
	APIPartition: "Partition", APIConfig: "Config", APIPartitionChange: "PartitionChange",
	APIAccessControl: "AccessControl", APIFenceBroker: "FenceBroker", APIUnfenceBroker: "UnfenceBroker",
	APIRemoveTopic: "RemoveTopic", APIDelegationToken: "DelegationToken",
	APIUserScramCredential: "UserScramCredential", APIFeatureLevel: "FeatureLevel",
	APIClientQuota: "ClientQuota", APIProducerIds: "ProducerIds", APIRemoveFeatureLevel: "RemoveFeatureLevel",
	APIBrokerRegistrationChange: "BrokerRegistrationChange", APIAccessControlEntry: "AccessControlEntry",
	APIRemoveAccessControlEntry: "RemoveAccessControlEntry", APINoOp: "NoOp", APIZkMigration: "ZkMigration",
	APIRemoveUserScramCredential: "RemoveUserScramCredential", APIBeginTransaction: "BeginTransaction",
	APIEndTransaction: "EndTransaction", APIAbortTransaction: "AbortTransaction",
	APIRemoveDelegationToken: "RemoveDelegationToken", APIRegisterController: "RegisterController",
	APIClearElr: "ClearElr", APIUnregisterController: "UnregisterController",
}

// MetadataTypeName names a metadata apiKey ("ProducerIds" for 15), or
// "Unknown(N)".
func MetadataTypeName(apiKey uint32) string {
	if n, ok := metadataNames[apiKey]; ok {
		return n
	}
	return "Unknown(" + strconv.FormatUint(uint64(apiKey), 10) + ")"
}

// bodyMax is the highest version whose body this package decodes.
var bodyMax = map[uint32]uint32{
	APIRegisterBroker: 3,
	APITopic:          0,
	APIPartition:      2,
	APIFeatureLevel:   0,
	APIProducerIds:    0,
}

// MetadataRecord is one KRaft metadata record (the value of a
// __cluster_metadata record; the key is null): uvarint frame version (1),
// uvarint apiKey, uvarint version, then the body in that version's
// flexible encoding (AbstractApiMessageSerde).
type MetadataRecord struct {
	FrameVersion uint32 `json:"frameVersion"`
	APIKey       uint32 `json:"apiKey"`
	Version      uint32 `json:"version"`
	Type         string `json:"type"`
	// BodySize is the length of the body in bytes.
	BodySize int `json:"bodySize"`
	// Data is the decoded body for the types this package decodes
	// (*ProducerIdsRecord, *RegisterBrokerRecord, *TopicRecord,
	// *PartitionRecord, *FeatureLevelRecord), nil for the others.
	Data any `json:"data,omitempty"`
}

// ProducerIdsRecord (apiKey 15): the controller gave BrokerID the block
// [NextProducerID-1000, NextProducerID-1] (kafka-formats.md §8.2, §9.3).
type ProducerIdsRecord struct {
	BrokerID       int32 `json:"brokerId"`
	BrokerEpoch    int64 `json:"brokerEpoch"`
	NextProducerID int64 `json:"nextProducerId"`
}

// PIDBlockSize is the number of producer ids in one block
// (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE).
const PIDBlockSize = 1000

// BrokerEndpoint is one listener of a RegisterBrokerRecord.
type BrokerEndpoint struct {
	Name             string `json:"name"`
	Host             string `json:"host"`
	Port             uint16 `json:"port"`
	SecurityProtocol int16  `json:"securityProtocol"`
}

// BrokerFeature is one supported-feature range of a RegisterBrokerRecord.
type BrokerFeature struct {
	Name                string `json:"name"`
	MinSupportedVersion int16  `json:"minSupportedVersion"`
	MaxSupportedVersion int16  `json:"maxSupportedVersion"`
}

// RegisterBrokerRecord (apiKey 0, versions 0-3).
type RegisterBrokerRecord struct {
	BrokerID int32 `json:"brokerId"`
	// IsMigratingZkBroker (v2+).
	IsMigratingZkBroker bool             `json:"isMigratingZkBroker"`
	IncarnationID       UUID             `json:"incarnationId"`
	BrokerEpoch         int64            `json:"brokerEpoch"`
	EndPoints           []BrokerEndpoint `json:"endPoints"`
	Features            []BrokerFeature  `json:"features"`
	Rack                *string          `json:"rack"`
	Fenced              bool             `json:"fenced"`
	// InControlledShutdown (v1+).
	InControlledShutdown bool `json:"inControlledShutdown"`
	// LogDirs (v3+, tag 0).
	LogDirs []UUID `json:"logDirs,omitempty"`
}

// TopicRecord (apiKey 2, version 0).
type TopicRecord struct {
	Name    string `json:"name"`
	TopicID UUID   `json:"topicId"`
}

// PartitionRecord (apiKey 3, versions 0-2).
type PartitionRecord struct {
	PartitionID      int32   `json:"partitionId"`
	TopicID          UUID    `json:"topicId"`
	Replicas         []int32 `json:"replicas"`
	Isr              []int32 `json:"isr"`
	RemovingReplicas []int32 `json:"removingReplicas"`
	AddingReplicas   []int32 `json:"addingReplicas"`
	Leader           int32   `json:"leader"`
	// LeaderRecoveryState (tag 0, default 0).
	LeaderRecoveryState int8  `json:"leaderRecoveryState"`
	LeaderEpoch         int32 `json:"leaderEpoch"`
	PartitionEpoch      int32 `json:"partitionEpoch"`
	// Directories (v1+).
	Directories []UUID `json:"directories,omitempty"`
	// EligibleLeaderReplicas (v2+, tag 1) and LastKnownElr (v2+, tag 2).
	EligibleLeaderReplicas []int32 `json:"eligibleLeaderReplicas,omitempty"`
	LastKnownElr           []int32 `json:"lastKnownElr,omitempty"`
}

// FeatureLevelRecord (apiKey 12, version 0).
type FeatureLevelRecord struct {
	Name         string `json:"name"`
	FeatureLevel int16  `json:"featureLevel"`
}

// DecodeMetadata decodes a metadata record value. The header is always
// returned when it parses; the body is decoded for the five types above.
// A version above the known one is an ErrUnknownVersion error with the
// header filled in; other apiKeys are named (or Unknown(N), with an
// ErrUnknownType error) and their bodies skipped.
func DecodeMetadata(b []byte) (*MetadataRecord, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: null metadata record value", ErrMalformed)
	}
	c := newCursor(b, "value")
	m := &MetadataRecord{}
	m.FrameVersion = c.uvarint("frame version")
	m.APIKey = c.uvarint("apiKey")
	m.Version = c.uvarint("version")
	if c.err != nil {
		return nil, c.err
	}
	m.Type = MetadataTypeName(m.APIKey)
	m.BodySize = c.left()
	if m.FrameVersion != 1 {
		return m, &VersionError{Part: "metadata record frame", Version: int16(min(m.FrameVersion, 32767)), Max: 1}
	}
	if _, ok := metadataNames[m.APIKey]; !ok {
		return m, fmt.Errorf("%w: metadata apiKey %d", ErrUnknownType, m.APIKey)
	}
	max, decoded := bodyMax[m.APIKey]
	if !decoded {
		return m, nil
	}
	if m.Version > max {
		return m, &VersionError{Part: m.Type + "Record", Version: int16(min(m.Version, 32767)), Max: int16(max)}
	}
	body := newCursor(b[c.off:], m.Type+"Record body")
	switch m.APIKey {
	case APIProducerIds:
		m.Data = decodeProducerIds(body)
	case APIRegisterBroker:
		m.Data = decodeRegisterBroker(body, m.Version)
	case APITopic:
		r := &TopicRecord{Name: body.string(true, "Name"), TopicID: body.uuid("TopicId")}
		body.tags(nil)
		m.Data = r
	case APIPartition:
		m.Data = decodePartition(body, m.Version)
	case APIFeatureLevel:
		r := &FeatureLevelRecord{Name: body.string(true, "Name"), FeatureLevel: body.int16("FeatureLevel")}
		body.tags(nil)
		m.Data = r
	}
	if err := body.done(); err != nil {
		m.Data = nil
		return m, err
	}
	return m, nil
}

func decodeProducerIds(c *cursor) *ProducerIdsRecord {
	r := &ProducerIdsRecord{BrokerID: c.int32("BrokerId"), BrokerEpoch: c.int64("BrokerEpoch"), NextProducerID: c.int64("NextProducerId")}
	c.tags(nil)
	return r
}

func decodeRegisterBroker(c *cursor, version uint32) *RegisterBrokerRecord {
	r := &RegisterBrokerRecord{BrokerID: c.int32("BrokerId")}
	if version >= 2 {
		r.IsMigratingZkBroker = c.bool("IsMigratingZkBroker")
	}
	r.IncarnationID = c.uuid("IncarnationId")
	r.BrokerEpoch = c.int64("BrokerEpoch")
	if n := c.arrayLen(true, 2+2+2+2+1, "EndPoints"); c.err == nil && n > 0 {
		r.EndPoints = make([]BrokerEndpoint, n)
		for i := range r.EndPoints {
			e := &r.EndPoints[i]
			e.Name = c.string(true, "EndPoint Name")
			e.Host = c.string(true, "EndPoint Host")
			e.Port = c.uint16("EndPoint Port")
			e.SecurityProtocol = c.int16("EndPoint SecurityProtocol")
			c.tags(nil)
		}
	}
	if n := c.arrayLen(true, 1+2+2+1, "Features"); c.err == nil && n > 0 {
		r.Features = make([]BrokerFeature, n)
		for i := range r.Features {
			f := &r.Features[i]
			f.Name = c.string(true, "Feature Name")
			f.MinSupportedVersion = c.int16("MinSupportedVersion")
			f.MaxSupportedVersion = c.int16("MaxSupportedVersion")
			c.tags(nil)
		}
	}
	r.Rack = c.nullableString(true, "Rack")
	r.Fenced = c.bool("Fenced")
	if version >= 1 {
		r.InControlledShutdown = c.bool("InControlledShutdown")
	}
	c.tags(func(tag uint32, f *cursor) {
		if tag == 0 && version >= 3 {
			r.LogDirs = f.uuidArray(true, "LogDirs")
			f.done()
		}
	})
	return r
}

func decodePartition(c *cursor, version uint32) *PartitionRecord {
	r := &PartitionRecord{PartitionID: c.int32("PartitionId"), TopicID: c.uuid("TopicId")}
	r.Replicas = c.int32Array(true, "Replicas")
	r.Isr = c.int32Array(true, "Isr")
	r.RemovingReplicas = c.int32Array(true, "RemovingReplicas")
	r.AddingReplicas = c.int32Array(true, "AddingReplicas")
	r.Leader = c.int32("Leader")
	r.LeaderEpoch = c.int32("LeaderEpoch")
	r.PartitionEpoch = c.int32("PartitionEpoch")
	if version >= 1 {
		r.Directories = c.uuidArray(true, "Directories")
	}
	c.tags(func(tag uint32, f *cursor) {
		switch tag {
		case 0:
			r.LeaderRecoveryState = f.int8("LeaderRecoveryState")
		case 1:
			if version >= 2 {
				r.EligibleLeaderReplicas = f.int32Array(true, "EligibleLeaderReplicas")
			}
		case 2:
			if version >= 2 {
				r.LastKnownElr = f.int32Array(true, "LastKnownElr")
			}
		}
	})
	return r
}
