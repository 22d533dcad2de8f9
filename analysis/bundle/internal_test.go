package bundle

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// internalNames adds to names what the records of an internal topic's
// file (a segment or KRaft snapshot of topic t) name, read with the
// decoders on their own (not through topics.Rewrite, whose choice of
// fields is what the leak test checks): group, member, client, instance
// and transactional ids, client and broker hosts, racks, commit metadata,
// protocols other than Kafka's own, and topics other than Kafka's.
func internalNames(t topics.Topic, data []byte, names map[string]bool) {
	add := func(ss ...string) {
		for _, s := range ss {
			if !strings.HasPrefix(s, "__") && !wellKnown[s] {
				names[s] = true
			}
		}
	}
	r := segment.NewReaderBytes(data, segment.Options{})
	defer r.Close()
	for r.Next() {
		if r.Batch() == nil {
			continue
		}
		it := r.Records()
		for it.Next() {
			rec := it.Record()
			switch {
			case rec.IsControl && t == topics.ClusterMetadata && len(rec.Key) >= 4:
				if c, err := topics.DecodeControl(int16(binary.BigEndian.Uint16(rec.Key[2:])), rec.Value); err == nil {
					for _, v := range c.Voters {
						for _, e := range v.Endpoints {
							add(e.Host)
						}
					}
				}
			case rec.IsControl:
			case t == topics.ConsumerOffsets:
				groupNames(rec.Key, rec.Value, add)
			case t == topics.TransactionState:
				if k, err := topics.DecodeTxnKey(rec.Key); err == nil {
					add(k.TransactionalID)
				}
				if v, err := topics.DecodeTxnValue(rec.Value); err == nil && v != nil {
					for _, p := range v.Partitions {
						add(p.Topic)
					}
				}
			case t == topics.ClusterMetadata:
				metadataNames(rec.Value, add)
			}
		}
	}
}

func groupNames(key, value []byte, add func(...string)) {
	k, err := topics.DecodeGroupKey(key)
	if err != nil {
		return
	}
	add(k.Group)
	if k.Topic != nil {
		add(*k.Topic)
	}
	if k.MemberID != nil {
		add(*k.MemberID)
	}
	switch {
	case k.Type <= topics.GroupTypeOffsetCommit:
		if v, err := topics.DecodeOffsetCommitValue(value); err == nil && v != nil {
			add(v.Metadata)
		}
	case k.Type == topics.GroupTypeGroupMetadata:
		v, err := topics.DecodeGroupMetadataValue(value)
		if err != nil || v == nil {
			return
		}
		add(v.ProtocolType)
		for _, p := range []*string{v.Protocol, v.Leader} {
			if p != nil {
				add(*p)
			}
		}
		for _, m := range v.Members {
			add(m.MemberID, m.ClientID, m.ClientHost)
			if m.GroupInstanceID != nil {
				add(*m.GroupInstanceID)
			}
		}
	}
}

func metadataNames(value []byte, add func(...string)) {
	m, err := topics.DecodeMetadata(value)
	if err != nil {
		return
	}
	switch d := m.Data.(type) {
	case *topics.TopicRecord:
		add(d.Name)
	case *topics.RegisterBrokerRecord:
		for _, e := range d.EndPoints {
			add(e.Host)
		}
		if d.Rack != nil {
			add(*d.Rack)
		}
	case *topics.RegisterControllerRecord:
		for _, e := range d.EndPoints {
			add(e.Host)
		}
	case *topics.ConfigRecord:
		if d.ResourceType == topics.ConfigResourceTopic || d.ResourceType == topics.ConfigResourceGroup {
			add(d.ResourceName)
		}
	}
}

// internalFile is the internal topic whose records a file of the inputs
// holds, or topics.None.
func internalFile(p string) topics.Topic {
	k := snapshot.KindOf(filepath.Base(p))
	t := topics.TopicOf(filepath.Base(filepath.Dir(p)))
	switch {
	case k == snapshot.KindKRaftSnapshot && t == topics.ClusterMetadata:
		return t
	case k != snapshot.KindLog || t == topics.RemoteLogMetadata:
		return topics.None
	}
	return t
}

// recordText is every key, value and header key of a segment's records,
// decompressed, control records included.
func recordText(data []byte) []byte {
	r := segment.NewReaderBytes(data, segment.Options{})
	defer r.Close()
	var out bytes.Buffer
	for r.Next() {
		if r.Batch() == nil {
			continue
		}
		it := r.Records()
		for it.Next() {
			rec := it.Record()
			out.Write(rec.Key)
			out.WriteByte(0)
			out.Write(rec.Value)
			out.WriteByte(0)
			for _, h := range rec.Headers {
				out.Write(h.Key)
				out.WriteByte(0)
			}
		}
	}
	return out.Bytes()
}
