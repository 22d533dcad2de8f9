package topics

import (
	"github.com/ksleuth/ksleuth/segment"
)

// ControlRecord is a decoded KRaft control record of the metadata log or a
// .checkpoint snapshot: the value has no version prefix and is always in
// the flexible version-0 layout.
type ControlRecord struct {
	Type string `json:"type"`
	// TypeID is the control type from the record key.
	TypeID int16 `json:"typeId"`
	// Version is the record's own Version field.
	Version int16 `json:"version"`
	// LastContainedLogTimestamp (SnapshotHeader).
	LastContainedLogTimestamp *int64 `json:"lastContainedLogTimestamp,omitempty"`
	// KRaftVersion (KRaftVersion record).
	KRaftVersion *int16 `json:"kraftVersion,omitempty"`
	// LeaderID, Voters and GrantingVoters (LeaderChange); Voters also for
	// KRaftVoters.
	LeaderID       *int32  `json:"leaderId,omitempty"`
	Voters         []Voter `json:"voters,omitempty"`
	GrantingVoters []Voter `json:"grantingVoters,omitempty"`
}

// Voter is one voter of a LeaderChange or KRaftVoters record.
type Voter struct {
	VoterID          int32           `json:"voterId"`
	VoterDirectoryID *UUID           `json:"voterDirectoryId,omitempty"`
	Endpoints        []VoterEndpoint `json:"endpoints,omitempty"`
}

// VoterEndpoint is one listener of a KRaftVoters voter.
type VoterEndpoint struct {
	Name string `json:"name"`
	Host string `json:"host"`
	Port uint16 `json:"port"`
}

// DecodeControl decodes the value of a KRaft control record. ABORT and
// COMMIT markers are left to package segment (Record.CoordinatorEpoch);
// unknown types are named and not decoded.
func DecodeControl(typ int16, value []byte) (*ControlRecord, error) {
	return decodeControl(typ, value, nil)
}

func decodeControl(typ int16, value []byte, ed *editor) (*ControlRecord, error) {
	r := &ControlRecord{Type: segment.ControlTypeName(typ), TypeID: typ}
	switch typ {
	case segment.ControlLeaderChange, segment.ControlSnapshotHeader, segment.ControlSnapshotFooter,
		segment.ControlKRaftVersion, segment.ControlKRaftVoters:
	default:
		return r, nil
	}
	c := &cursor{b: value, part: "control value", ed: ed}
	r.Version = c.int16("Version")
	switch typ {
	case segment.ControlLeaderChange:
		id := c.int32("LeaderId")
		r.LeaderID = &id
		r.Voters = leaderVoters(c, "Voters")
		r.GrantingVoters = leaderVoters(c, "GrantingVoters")
	case segment.ControlSnapshotHeader:
		ts := c.int64("LastContainedLogTimestamp")
		r.LastContainedLogTimestamp = &ts
	case segment.ControlKRaftVersion:
		v := c.int16("KRaftVersion")
		r.KRaftVersion = &v
	case segment.ControlKRaftVoters:
		n := c.arrayLen(true, 4+16+1+2+2+1+1, "Voters")
		if c.err == nil && n > 0 {
			r.Voters = make([]Voter, n)
			for i := range r.Voters {
				v := &r.Voters[i]
				v.VoterID = c.int32("VoterId")
				d := c.uuid("VoterDirectoryId")
				v.VoterDirectoryID = &d
				if m := c.arrayLen(true, 1+1+2+1, "Endpoints"); c.err == nil && m > 0 {
					v.Endpoints = make([]VoterEndpoint, m)
					for j := range v.Endpoints {
						e := &v.Endpoints[j]
						e.Name = c.string(true, "Endpoint Name")
						e.Host = c.named(FieldHost, true, "Endpoint Host")
						e.Port = c.uint16("Endpoint Port")
						c.tags(nil)
					}
				}
				c.int16("MinSupportedVersion")
				c.int16("MaxSupportedVersion")
				c.tags(nil) // KRaftVersionFeature
				c.tags(nil) // voter
				if c.err != nil {
					break
				}
			}
		}
	}
	c.tags(nil)
	return r, c.done()
}

func leaderVoters(c *cursor, what string) []Voter {
	n := c.arrayLen(true, 5, what)
	if c.err != nil || n <= 0 {
		return nil
	}
	vs := make([]Voter, n)
	for i := range vs {
		vs[i].VoterID = c.int32("VoterId")
		c.tags(nil)
	}
	return vs
}
