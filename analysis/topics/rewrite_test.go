package topics_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/snapshot"
)

// bracket renames every field but the protocol type (which says how to
// read the subscriptions) to "<name>", and fills bytes by flipping them;
// unbracket undoes both, so that a record rewritten by one and then the
// other must come back byte for byte.
type bracket struct {
	undo  bool
	names map[topics.Field]int
}

func (b *bracket) Rename(f topics.Field, s string) string {
	if f == topics.FieldProtocolType {
		return s
	}
	if b.names != nil {
		b.names[f]++
	}
	if b.undo {
		return strings.TrimSuffix(strings.TrimPrefix(s, "<"), ">")
	}
	return "<" + s + ">"
}

func (b *bracket) Fill(p []byte) {
	for i := range p {
		p[i] ^= 0xff
	}
}

// internalRecord is one record of an internal topic's file.
type internalRecord struct {
	t          topics.Topic
	key, value []byte
	control    bool
}

// internalRecords returns every record of the internal topics' segments
// and KRaft snapshots under root.
func internalRecords(t *testing.T, root string) []internalRecord {
	t.Helper()
	var out []internalRecord
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		k := snapshot.KindOf(de.Name())
		tp := topics.TopicOf(filepath.Base(filepath.Dir(p)))
		switch {
		case k == snapshot.KindKRaftSnapshot:
			tp = topics.ClusterMetadata
		case k != snapshot.KindLog || tp == topics.None || tp == topics.RemoteLogMetadata:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r := segment.NewReaderBytes(data, segment.Options{})
		defer r.Close()
		for r.Next() {
			if r.Batch() == nil {
				continue
			}
			it := r.Records()
			for it.Next() {
				x := it.Record()
				out = append(out, internalRecord{tp, bytes.Clone(x.Key), bytes.Clone(x.Value), x.IsControl})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRewriteRoundTrip rewrites every record of the internal topics of
// the real corpus and of the attribution log dir: each rewritten record
// decodes, names the renamed fields, and rewritten back is the original
// byte for byte, so that nothing but the names moved (lengths, tagged
// fields, subscriptions and assignments included).
func TestRewriteRoundTrip(t *testing.T) {
	attribution := t.TempDir()
	if err := segtest.WriteAttributionLogDir(attribution); err != nil {
		t.Fatal(err)
	}
	recs := append(internalRecords(t, corpusDir(t)), internalRecords(t, attribution)...)
	fwd := &bracket{names: map[topics.Field]int{}}
	back := &bracket{undo: true}
	changed := map[topics.Topic]int{}
	for _, r := range recs {
		k, v, err := topics.Rewrite(r.t, r.key, r.value, r.control, fwd)
		if err != nil {
			t.Errorf("%v record %q: %v", r.t, r.key, err)
			continue
		}
		if !bytes.Equal(k, r.key) || !bytes.Equal(v, r.value) {
			changed[r.t]++
		}
		if (v == nil) != (r.value == nil) {
			t.Errorf("%v record %q: a tombstone's value became %q", r.t, r.key, v)
		}
		checkDecodes(t, r, k, v)
		k2, v2, err := topics.Rewrite(r.t, k, v, r.control, back)
		if err != nil || !bytes.Equal(k2, r.key) || !bytes.Equal(v2, r.value) {
			t.Errorf("%v record %q: rewritten back to %q %q (%v)", r.t, r.key, k2, v2, err)
		}
	}
	for _, tp := range []topics.Topic{topics.TransactionState, topics.ConsumerOffsets, topics.ClusterMetadata} {
		if changed[tp] < 3 {
			t.Errorf("only %d %v records rewritten", changed[tp], tp)
		}
	}
	for _, f := range []topics.Field{topics.FieldTopic, topics.FieldGroup, topics.FieldMember, topics.FieldClientID, topics.FieldClientHost,
		topics.FieldProtocol, topics.FieldCommitMetadata, topics.FieldTransactionalID, topics.FieldHost} {
		if fwd.names[f] == 0 {
			t.Errorf("no field %d renamed", f)
		}
	}
	t.Logf("%d records, rewritten %v, fields %v", len(recs), changed, fwd.names)
}

// checkDecodes decodes a rewritten record: it must decode as the
// original did, with "<" names.
func checkDecodes(t *testing.T, r internalRecord, k, v []byte) {
	t.Helper()
	var err error
	switch {
	case r.control && r.t == topics.ClusterMetadata:
		_, err = topics.DecodeControl(int16(binary.BigEndian.Uint16(k[2:])), v)
	case r.control:
	case r.t == topics.TransactionState:
		var key *topics.TxnKey
		if key, err = topics.DecodeTxnKey(k); err == nil && !strings.HasPrefix(key.TransactionalID, "<") {
			t.Errorf("transactional id %q", key.TransactionalID)
		}
		if err == nil {
			_, err = topics.DecodeTxnValue(v)
		}
	case r.t == topics.ConsumerOffsets:
		var key *topics.GroupKey
		if key, err = topics.DecodeGroupKey(k); err == nil && !strings.HasPrefix(key.Group, "<") {
			t.Errorf("group %q", key.Group)
		}
		switch {
		case err != nil:
		case key.Type <= topics.GroupTypeOffsetCommit:
			_, err = topics.DecodeOffsetCommitValue(v)
		case key.Type == topics.GroupTypeGroupMetadata:
			_, err = topics.DecodeGroupMetadataValue(v)
		}
	case r.t == topics.ClusterMetadata:
		var m *topics.MetadataRecord
		if m, err = topics.DecodeMetadata(v); err == nil {
			// The dump of the metadata log prints KafkaJSON.
			if _, ok := m.Data.(*topics.TopicRecord); ok && !bytes.Contains(m.KafkaJSON(), []byte(`"name":"<`)) {
				t.Errorf("topic record dumped as %s", m.KafkaJSON())
			}
		}
	}
	if err != nil {
		t.Errorf("%v record %q rewritten to %q %q does not decode: %v", r.t, r.key, k, v, err)
	}
}

// TestRewriteGroupMetadataSubscription: a consumer group's member keeps
// its subscription and assignment readable, with their topics renamed
// and their user data filled; a Connect group's are filled whole.
func TestRewriteGroupMetadataSubscription(t *testing.T) {
	sub := (&enc{}).i16(1).i32(2).str(false, "orders").str(false, "payments").bytes(false, []byte("user")).
		i32(1).str(false, "orders").i32s(false, []int32{0, 3}).b
	asg := (&enc{}).i16(0).i32(1).str(false, "orders").i32s(false, []int32{3}).bytes(false, nil).b
	value := func(protocolType string) []byte {
		return (&enc{}).i16(3).str(false, protocolType).i32(5).nstr(false, sp("range")).nstr(false, sp("m-1")).i64(1700000000000).
			i32(1).str(false, "m-1").nstr(false, sp("inst-1")).str(false, "app").str(false, "/10.0.0.7").i32(300000).i32(45000).
			bytes(false, sub).bytes(false, asg).b
	}
	key := (&enc{}).i16(2).str(false, "billing").b
	k, v, err := topics.Rewrite(topics.ConsumerOffsets, key, value("consumer"), false, &bracket{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := topics.DecodeGroupMetadataValue(v)
	if err != nil {
		t.Fatal(err)
	}
	m := g.Members[0]
	if string(k[4:]) != "<billing>" || *g.Protocol != "<range>" || *g.Leader != "<m-1>" || m.MemberID != "<m-1>" || *m.GroupInstanceID != "<inst-1>" ||
		m.ClientID != "<app>" || m.ClientHost != "</10.0.0.7>" {
		t.Errorf("rewritten to key %q, %+v, member %+v", k, g, m)
	}
	wantSub := (&enc{}).i16(1).i32(2).str(false, "<orders>").str(false, "<payments>").bytes(false, []byte{^byte('u'), ^byte('s'), ^byte('e'), ^byte('r')}).
		i32(1).str(false, "<orders>").i32s(false, []int32{0, 3}).b
	wantAsg := (&enc{}).i16(0).i32(1).str(false, "<orders>").i32s(false, []int32{3}).bytes(false, nil).b
	if !bytes.Contains(v, wantSub) || !bytes.Contains(v, wantAsg) || m.SubscriptionSize != len(wantSub) || m.AssignmentSize != len(wantAsg) {
		t.Errorf("the subscription and assignment became %q", v)
	}
	_, v, err = topics.Rewrite(topics.ConsumerOffsets, key, value("connect"), false, &bracket{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(v, []byte("orders")) || !bytes.Contains(v, append(be16(int16(len(sub)>>16)), be16(int16(len(sub)))...)) {
		t.Errorf("a connect group's subscription became %q", v)
	}
}
