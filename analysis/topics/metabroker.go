package topics

// Metadata records about cluster membership (brokers and controllers),
// feature levels, producer-id blocks, the ZooKeeper migration state and
// the metadata transactions. Field order and JSON names follow the
// apache/kafka schemas (metadata/src/main/resources/common/metadata), so
// the JSON form matches kafka-dump-log's cluster-metadata decoder: a field
// the record's version lacks, and a tagged field at its default, is left
// out.

// ProducerIdsRecord (apiKey 15): the controller gave BrokerID the block
// [NextProducerID-1000, NextProducerID-1].
type ProducerIdsRecord struct {
	BrokerID       int32 `json:"brokerId"`
	BrokerEpoch    int64 `json:"brokerEpoch"`
	NextProducerID int64 `json:"nextProducerId"`
}

// PIDBlockSize is the number of producer ids in one block
// (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE).
const PIDBlockSize = 1000

// BrokerEndpoint is one listener of a RegisterBrokerRecord or
// RegisterControllerRecord.
type BrokerEndpoint struct {
	Name             string `json:"name"`
	Host             string `json:"host"`
	Port             uint16 `json:"port"`
	SecurityProtocol int16  `json:"securityProtocol"`
}

// BrokerFeature is one supported-feature range of a RegisterBrokerRecord
// or RegisterControllerRecord.
type BrokerFeature struct {
	Name                string `json:"name"`
	MinSupportedVersion int16  `json:"minSupportedVersion"`
	MaxSupportedVersion int16  `json:"maxSupportedVersion"`
}

// RegisterBrokerRecord (apiKey 0, versions 0-4).
type RegisterBrokerRecord struct {
	BrokerID int32 `json:"brokerId"`
	// IsMigratingZkBroker is set from version 2.
	IsMigratingZkBroker *bool            `json:"isMigratingZkBroker,omitempty"`
	IncarnationID       UUID             `json:"incarnationId"`
	BrokerEpoch         int64            `json:"brokerEpoch"`
	EndPoints           []BrokerEndpoint `json:"endPoints"`
	Features            []BrokerFeature  `json:"features"`
	Rack                *string          `json:"rack"`
	Fenced              bool             `json:"fenced"`
	// InControlledShutdown is set from version 1.
	InControlledShutdown *bool `json:"inControlledShutdown,omitempty"`
	// LogDirs (version 3+, tag 0): the broker's log directory ids.
	LogDirs []UUID `json:"logDirs,omitempty"`
	// CordonedLogDirs (version 4+, tag 1, nullable): log directories
	// that take no new partitions.
	CordonedLogDirs *[]UUID `json:"cordonedLogDirs,omitempty"`
}

// UnregisterBrokerRecord (apiKey 1).
type UnregisterBrokerRecord struct {
	BrokerID    int32 `json:"brokerId"`
	BrokerEpoch int64 `json:"brokerEpoch"`
}

// FenceBrokerRecord (apiKey 7) and UnfenceBrokerRecord (apiKey 8) share
// one shape.
type FenceBrokerRecord struct {
	ID    int32 `json:"id"`
	Epoch int64 `json:"epoch"`
}

// UnfenceBrokerRecord (apiKey 8).
type UnfenceBrokerRecord FenceBrokerRecord

// BrokerRegistrationChangeRecord (apiKey 17, versions 0-3). Every field
// but the broker id and epoch is tagged: absent means unchanged.
type BrokerRegistrationChangeRecord struct {
	BrokerID    int32 `json:"brokerId"`
	BrokerEpoch int64 `json:"brokerEpoch"`
	// Fenced (tag 0): -1 unfence, 0 no change, 1 fence.
	Fenced int8 `json:"fenced,omitempty"`
	// InControlledShutdown (version 1+, tag 1): 0 no change, 1 the broker
	// entered controlled shutdown.
	InControlledShutdown int8 `json:"inControlledShutdown,omitempty"`
	// LogDirs (version 2+, tag 2).
	LogDirs []UUID `json:"logDirs,omitempty"`
	// CordonedLogDirs (version 3+, tag 3, nullable).
	CordonedLogDirs *[]UUID `json:"cordonedLogDirs,omitempty"`
}

// RegisterControllerRecord (apiKey 27).
type RegisterControllerRecord struct {
	ControllerID     int32            `json:"controllerId"`
	IncarnationID    UUID             `json:"incarnationId"`
	ZkMigrationReady bool             `json:"zkMigrationReady"`
	EndPoints        []BrokerEndpoint `json:"endPoints"`
	Features         []BrokerFeature  `json:"features"`
}

// UnregisterControllerRecord (apiKey 29).
type UnregisterControllerRecord struct {
	ControllerID int32 `json:"controllerId"`
}

// FeatureLevelRecord (apiKey 12).
type FeatureLevelRecord struct {
	Name         string `json:"name"`
	FeatureLevel int16  `json:"featureLevel"`
}

// RemoveFeatureLevelRecord (apiKey 16), written only by early KRaft
// releases.
type RemoveFeatureLevelRecord struct {
	Name string `json:"name"`
}

// ZkMigrationStateRecord (apiKey 21): 0 None, 1 Migration, 2
// PreMigration, 3 PostMigration (Kafka 3.4 had 1 and 2 the other way
// round).
type ZkMigrationStateRecord struct {
	ZkMigrationState int8 `json:"zkMigrationState"`
}

// NoOpRecord (apiKey 20): the active controller's heartbeat in the log.
type NoOpRecord struct{}

// BeginTransactionRecord (apiKey 23) opens a metadata transaction: the
// records up to the matching End or Abort apply together.
type BeginTransactionRecord struct {
	// Name (tag 0, nullable) says what the transaction is for.
	Name *string `json:"name,omitempty"`
}

// EndTransactionRecord (apiKey 24) commits a metadata transaction.
type EndTransactionRecord struct{}

// AbortTransactionRecord (apiKey 25) drops a metadata transaction.
type AbortTransactionRecord struct {
	// Reason (tag 0, nullable).
	Reason *string `json:"reason,omitempty"`
}

func decodeProducerIds(c *cursor, _ uint32) any {
	r := &ProducerIdsRecord{BrokerID: c.int32("BrokerId"), BrokerEpoch: c.int64("BrokerEpoch"), NextProducerID: c.int64("NextProducerId")}
	c.tags(nil)
	return r
}

// endpoints reads the EndPoints array of a broker or controller
// registration.
func endpoints(c *cursor) []BrokerEndpoint {
	n := c.count(1+1+2+2+1, "EndPoints")
	out := make([]BrokerEndpoint, n)
	for i := 0; i < n && c.err == nil; i++ {
		e := &out[i]
		e.Name = c.string(true, "EndPoint Name")
		e.Host = c.named(FieldHost, true, "EndPoint Host")
		e.Port = c.uint16("EndPoint Port")
		e.SecurityProtocol = c.int16("EndPoint SecurityProtocol")
		c.tags(nil)
	}
	return out
}

// features reads the Features array of a broker or controller
// registration.
func features(c *cursor) []BrokerFeature {
	n := c.count(1+2+2+1, "Features")
	out := make([]BrokerFeature, n)
	for i := 0; i < n && c.err == nil; i++ {
		f := &out[i]
		f.Name = c.string(true, "Feature Name")
		f.MinSupportedVersion = c.int16("MinSupportedVersion")
		f.MaxSupportedVersion = c.int16("MaxSupportedVersion")
		c.tags(nil)
	}
	return out
}

func decodeRegisterBroker(c *cursor, version uint32) any {
	r := &RegisterBrokerRecord{BrokerID: c.int32("BrokerId")}
	if version >= 2 {
		v := c.bool("IsMigratingZkBroker")
		r.IsMigratingZkBroker = &v
	}
	r.IncarnationID = c.uuid("IncarnationId")
	r.BrokerEpoch = c.int64("BrokerEpoch")
	r.EndPoints = endpoints(c)
	r.Features = features(c)
	r.Rack = c.namedNullable(FieldRack, true, "Rack")
	r.Fenced = c.bool("Fenced")
	if version >= 1 {
		v := c.bool("InControlledShutdown")
		r.InControlledShutdown = &v
	}
	c.tags(func(tag uint32, f *cursor) {
		switch tag {
		case 0:
			if f.since(version, 3, tag) {
				r.LogDirs = f.uuids("LogDirs")
			}
		case 1:
			if f.since(version, 4, tag) {
				r.CordonedLogDirs = f.optUUIDs("CordonedLogDirs")
			}
		}
	})
	return r
}

func decodeUnregisterBroker(c *cursor, _ uint32) any {
	r := &UnregisterBrokerRecord{BrokerID: c.int32("BrokerId"), BrokerEpoch: c.int64("BrokerEpoch")}
	c.tags(nil)
	return r
}

func decodeFenceBroker(c *cursor, _ uint32) any {
	r := &FenceBrokerRecord{ID: c.int32("Id"), Epoch: c.int64("Epoch")}
	c.tags(nil)
	return r
}

func decodeUnfenceBroker(c *cursor, v uint32) any {
	return (*UnfenceBrokerRecord)(decodeFenceBroker(c, v).(*FenceBrokerRecord))
}

func decodeBrokerRegistrationChange(c *cursor, version uint32) any {
	r := &BrokerRegistrationChangeRecord{BrokerID: c.int32("BrokerId"), BrokerEpoch: c.int64("BrokerEpoch")}
	c.tags(func(tag uint32, f *cursor) {
		switch tag {
		case 0:
			r.Fenced = f.int8("Fenced")
		case 1:
			if f.since(version, 1, tag) {
				r.InControlledShutdown = f.int8("InControlledShutdown")
			}
		case 2:
			if f.since(version, 2, tag) {
				r.LogDirs = f.uuids("LogDirs")
			}
		case 3:
			if f.since(version, 3, tag) {
				r.CordonedLogDirs = f.optUUIDs("CordonedLogDirs")
			}
		}
	})
	return r
}

func decodeRegisterController(c *cursor, _ uint32) any {
	r := &RegisterControllerRecord{ControllerID: c.int32("ControllerId"), IncarnationID: c.uuid("IncarnationId"),
		ZkMigrationReady: c.bool("ZkMigrationReady")}
	r.EndPoints = endpoints(c)
	r.Features = features(c)
	c.tags(nil)
	return r
}

func decodeUnregisterController(c *cursor, _ uint32) any {
	r := &UnregisterControllerRecord{ControllerID: c.int32("ControllerId")}
	c.tags(nil)
	return r
}

func decodeFeatureLevel(c *cursor, _ uint32) any {
	r := &FeatureLevelRecord{Name: c.string(true, "Name"), FeatureLevel: c.int16("FeatureLevel")}
	c.tags(nil)
	return r
}

func decodeRemoveFeatureLevel(c *cursor, _ uint32) any {
	r := &RemoveFeatureLevelRecord{Name: c.string(true, "Name")}
	c.tags(nil)
	return r
}

func decodeZkMigration(c *cursor, _ uint32) any {
	r := &ZkMigrationStateRecord{ZkMigrationState: c.int8("ZkMigrationState")}
	c.tags(nil)
	return r
}

func decodeNoOp(c *cursor, _ uint32) any {
	c.tags(nil)
	return &NoOpRecord{}
}

func decodeBeginTransaction(c *cursor, _ uint32) any {
	r := &BeginTransactionRecord{}
	c.tags(func(tag uint32, f *cursor) {
		if tag == 0 {
			r.Name = f.nullableString(true, "Name")
		}
	})
	return r
}

func decodeEndTransaction(c *cursor, _ uint32) any {
	c.tags(nil)
	return &EndTransactionRecord{}
}

func decodeAbortTransaction(c *cursor, _ uint32) any {
	r := &AbortTransactionRecord{}
	c.tags(func(tag uint32, f *cursor) {
		if tag == 0 {
			r.Reason = f.nullableString(true, "Reason")
		}
	})
	return r
}
