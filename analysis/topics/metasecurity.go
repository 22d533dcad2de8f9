package topics

// Metadata records about dynamic configuration, quotas and security:
// configs, client quotas, ACLs, delegation tokens and SCRAM credentials.
// See metabroker.go for how the JSON form follows kafka-dump-log.

// ConfigRecord resource types (ConfigResource.Type ids).
const (
	ConfigResourceTopic         = 2
	ConfigResourceBroker        = 4
	ConfigResourceBrokerLogger  = 8
	ConfigResourceClientMetrics = 16
	ConfigResourceGroup         = 32
)

// ConfigResourceName names a ConfigRecord resource type ("TOPIC" for 2),
// or "UNKNOWN(N)".
func ConfigResourceName(t int8) string {
	switch t {
	case ConfigResourceTopic:
		return "TOPIC"
	case ConfigResourceBroker:
		return "BROKER"
	case ConfigResourceBrokerLogger:
		return "BROKER_LOGGER"
	case ConfigResourceClientMetrics:
		return "CLIENT_METRICS"
	case ConfigResourceGroup:
		return "GROUP"
	}
	return "UNKNOWN(" + itoa(int(t)) + ")"
}

// ConfigRecord (apiKey 4): one dynamic config key of one resource was set,
// or removed when Value is nil. A broker resource with an empty name is
// the cluster-wide default.
type ConfigRecord struct {
	ResourceType int8    `json:"resourceType"`
	ResourceName string  `json:"resourceName"`
	Name         string  `json:"name"`
	Value        *string `json:"value"`
}

// QuotaEntity is one part of a client-quota entity (user, client-id or
// ip; a nil name is the default entity).
type QuotaEntity struct {
	EntityType string  `json:"entityType"`
	EntityName *string `json:"entityName"`
}

// ClientQuotaRecord (apiKey 14): one quota of one entity was set or, with
// Remove, removed.
type ClientQuotaRecord struct {
	Entity []QuotaEntity `json:"entity"`
	Key    string        `json:"key"`
	Value  JavaDouble    `json:"value"`
	Remove bool          `json:"remove"`
}

// AccessControlRecord (apiKey 6): the ACL record of Kafka 2.8's KRaft
// preview, replaced by AccessControlEntryRecord. Its only version is not
// flexible: classic int16-length strings and no tagged fields.
type AccessControlRecord struct {
	ResourceType   int8    `json:"resourceType"`
	ResourceName   *string `json:"resourceName"`
	PatternType    int8    `json:"patternType"`
	Principal      string  `json:"principal"`
	Host           string  `json:"host"`
	Operation      int8    `json:"operation"`
	PermissionType int8    `json:"permissionType"`
}

// AccessControlEntryRecord (apiKey 18): an ACL was created.
type AccessControlEntryRecord struct {
	ID             UUID   `json:"id"`
	ResourceType   int8   `json:"resourceType"`
	ResourceName   string `json:"resourceName"`
	PatternType    int8   `json:"patternType"`
	Principal      string `json:"principal"`
	Host           string `json:"host"`
	Operation      int8   `json:"operation"`
	PermissionType int8   `json:"permissionType"`
}

// RemoveAccessControlEntryRecord (apiKey 19): the ACL with this id was
// deleted.
type RemoveAccessControlEntryRecord struct {
	ID UUID `json:"id"`
}

// DelegationTokenRecord (apiKey 10): a delegation token was created or
// renewed.
type DelegationTokenRecord struct {
	Owner               string   `json:"owner"`
	Requester           string   `json:"requester"`
	Renewers            []string `json:"renewers"`
	IssueTimestamp      int64    `json:"issueTimestamp"`
	MaxTimestamp        int64    `json:"maxTimestamp"`
	ExpirationTimestamp int64    `json:"expirationTimestamp"`
	TokenID             string   `json:"tokenId"`
}

// RemoveDelegationTokenRecord (apiKey 26).
type RemoveDelegationTokenRecord struct {
	TokenID string `json:"tokenId"`
}

// UserScramCredentialRecord (apiKey 11): a SCRAM credential was set.
// Mechanism is 1 for SCRAM-SHA-256, 2 for SCRAM-SHA-512. The byte fields
// render in base64 in JSON, as Jackson writes binary nodes.
type UserScramCredentialRecord struct {
	Name       string `json:"name"`
	Mechanism  int8   `json:"mechanism"`
	Salt       []byte `json:"salt"`
	StoredKey  []byte `json:"storedKey"`
	ServerKey  []byte `json:"serverKey"`
	Iterations int32  `json:"iterations"`
}

// RemoveUserScramCredentialRecord (apiKey 22).
type RemoveUserScramCredentialRecord struct {
	Name      string `json:"name"`
	Mechanism int8   `json:"mechanism"`
}

func decodeConfig(c *cursor, _ uint32) any {
	r := &ConfigRecord{ResourceType: c.int8("ResourceType")}
	switch r.ResourceType {
	case ConfigResourceTopic:
		r.ResourceName = c.named(FieldTopic, true, "ResourceName")
	case ConfigResourceGroup:
		r.ResourceName = c.named(FieldGroup, true, "ResourceName")
	default:
		r.ResourceName = c.string(true, "ResourceName")
	}
	r.Name, r.Value = c.string(true, "Name"), c.nullableString(true, "Value")
	c.tags(nil)
	return r
}

func decodeClientQuota(c *cursor, _ uint32) any {
	n := c.count(1+1+1, "Entity")
	r := &ClientQuotaRecord{Entity: make([]QuotaEntity, n)}
	for i := 0; i < n && c.err == nil; i++ {
		e := &r.Entity[i]
		e.EntityType = c.string(true, "EntityType")
		switch e.EntityType {
		case "client-id":
			e.EntityName = c.namedNullable(FieldClientID, true, "EntityName")
		case "ip":
			e.EntityName = c.namedNullable(FieldHost, true, "EntityName")
		default:
			e.EntityName = c.nullableString(true, "EntityName")
		}
		c.tags(nil)
	}
	r.Key = c.string(true, "Key")
	r.Value = c.float64("Value")
	r.Remove = c.bool("Remove")
	c.tags(nil)
	return r
}

func decodeAccessControl(c *cursor, _ uint32) any {
	return &AccessControlRecord{ResourceType: c.int8("ResourceType"), ResourceName: c.nullableString(false, "ResourceName"),
		PatternType: c.int8("PatternType"), Principal: c.string(false, "Principal"), Host: c.string(false, "Host"),
		Operation: c.int8("Operation"), PermissionType: c.int8("PermissionType")}
}

func decodeAccessControlEntry(c *cursor, _ uint32) any {
	r := &AccessControlEntryRecord{ID: c.uuid("Id"), ResourceType: c.int8("ResourceType"), ResourceName: c.string(true, "ResourceName"),
		PatternType: c.int8("PatternType"), Principal: c.string(true, "Principal"), Host: c.string(true, "Host"),
		Operation: c.int8("Operation"), PermissionType: c.int8("PermissionType")}
	c.tags(nil)
	return r
}

func decodeRemoveAccessControlEntry(c *cursor, _ uint32) any {
	r := &RemoveAccessControlEntryRecord{ID: c.uuid("Id")}
	c.tags(nil)
	return r
}

func decodeDelegationToken(c *cursor, _ uint32) any {
	r := &DelegationTokenRecord{Owner: c.string(true, "Owner"), Requester: c.string(true, "Requester")}
	r.Renewers = c.strings("Renewers")
	r.IssueTimestamp = c.int64("IssueTimestamp")
	r.MaxTimestamp = c.int64("MaxTimestamp")
	r.ExpirationTimestamp = c.int64("ExpirationTimestamp")
	r.TokenID = c.string(true, "TokenId")
	c.tags(nil)
	return r
}

func decodeRemoveDelegationToken(c *cursor, _ uint32) any {
	r := &RemoveDelegationTokenRecord{TokenID: c.string(true, "TokenId")}
	c.tags(nil)
	return r
}

func decodeUserScramCredential(c *cursor, _ uint32) any {
	r := &UserScramCredentialRecord{Name: c.string(true, "Name"), Mechanism: c.int8("Mechanism")}
	r.Salt = c.compactBytes("Salt")
	r.StoredKey = c.compactBytes("StoredKey")
	r.ServerKey = c.compactBytes("ServerKey")
	r.Iterations = c.int32("Iterations")
	c.tags(nil)
	return r
}

func decodeRemoveUserScramCredential(c *cursor, _ uint32) any {
	r := &RemoveUserScramCredentialRecord{Name: c.string(true, "Name"), Mechanism: c.int8("Mechanism")}
	c.tags(nil)
	return r
}
