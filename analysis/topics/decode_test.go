package topics_test

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestTxnKey(t *testing.T) {
	k, err := topics.DecodeTxnKey(new(enc).i16(0).str(false, "payments-app-0").b)
	if err != nil || k.TransactionalID != "payments-app-0" {
		t.Fatalf("got %+v, %v", k, err)
	}
	_, err = topics.DecodeTxnKey(new(enc).i16(1).str(false, "x").b)
	if !errors.Is(err, topics.ErrUnknownVersion) {
		t.Errorf("key v1: %v, want unknown version", err)
	}
}

// txnV0 encodes a TransactionLogValue v0 (classic encoding).
func txnV0(pid int64, epoch int16, state int8, parts map[string][]int32, order []string) []byte {
	e := new(enc).i16(0).i64(pid).i16(epoch).i32(60000).i8(state)
	if parts == nil {
		e.count(false, -1)
	} else {
		e.count(false, len(order))
		for _, tp := range order {
			e.str(false, tp).i32s(false, parts[tp])
		}
	}
	return e.i64(1700000000100).i64(1700000000000).b
}

func TestTxnValueVersions(t *testing.T) {
	base := topics.TxnValue{
		ProducerID: 4000, ProducerEpoch: 7, TimeoutMs: 60000, State: topics.TxnOngoing,
		Partitions:   []topics.TxnPartitions{{Topic: "orders", PartitionIDs: []int32{0, 2}}, {Topic: "audit", PartitionIDs: []int32{1}}},
		LastUpdateMs: 1700000000100, StartMs: 1700000000000,
		PreviousProducerID: -1, NextProducerID: -1, NextProducerEpoch: -1,
	}
	v1 := func(tags ...tag) []byte {
		e := new(enc).i16(1).i64(4000).i16(7).i32(60000).i8(1).count(true, 2)
		e.str(true, "orders").i32s(true, []int32{0, 2}).tags()
		e.str(true, "audit").i32s(true, []int32{1}).tags()
		return e.i64(1700000000100).i64(1700000000000).tags(tags...).b
	}
	empty := base
	empty.State, empty.Partitions = topics.TxnEmpty, nil
	withTags := base
	withTags.Version = 1
	withTags.PreviousProducerID, withTags.NextProducerID, withTags.ClientTransactionVersion, withTags.NextProducerEpoch = 3000, 5000, 2, 0
	noTags := base
	noTags.Version = 1
	cases := []struct {
		name string
		in   []byte
		want *topics.TxnValue
	}{
		{"v0", txnV0(4000, 7, 1, map[string][]int32{"orders": {0, 2}, "audit": {1}}, []string{"orders", "audit"}), &base},
		{"v0 empty, null partitions", txnV0(4000, 7, 0, nil, nil), &empty},
		{"v1 defaults", v1(), &noTags},
		{"v1 tagged fields 0-3", v1(tag{0, be64(3000)}, tag{1, be64(5000)}, tag{2, be16(2)}, tag{3, be16(0)}), &withTags},
		{"v1 unknown tag skipped", v1(tag{9, []byte{1, 2, 3}}), &noTags},
		{"tombstone", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := topics.DecodeTxnValue(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
	if _, err := topics.DecodeTxnValue(new(enc).i16(2).i64(1).b); !errors.Is(err, topics.ErrUnknownVersion) {
		t.Errorf("v2: %v, want unknown version", err)
	}
}

// TestTxnValueKmsg checks the decoder against franz-go's encoder (a
// test-only oracle) for both versions.
func TestTxnValueKmsg(t *testing.T) {
	for _, version := range []int16{0, 1} {
		v := kmsg.NewTxnMetadataValue()
		v.Version = version
		v.ProducerID, v.ProducerEpoch, v.TimeoutMillis, v.State = 12345, 3, 900000, 4
		v.LastUpdateTimestamp, v.StartTimestamp = 1700000001000, 1700000000500
		v.Topics = []kmsg.TxnMetadataValueTopic{{Topic: "t", Partitions: []int32{5}}}
		if version == 1 {
			v.PreviousProducerID, v.NextProducerID, v.ClientTransactionVersion, v.NextProducerEpoch = 12000, 13000, 2, 0
		}
		got, err := topics.DecodeTxnValue(v.AppendTo(nil))
		if err != nil {
			t.Fatalf("v%d: %v", version, err)
		}
		if got.ProducerID != 12345 || got.ProducerEpoch != 3 || got.TimeoutMs != 900000 || got.State != topics.TxnCompleteCommit ||
			got.LastUpdateMs != 1700000001000 || got.StartMs != 1700000000500 || got.PartitionList() != "t-5" {
			t.Errorf("v%d: %+v", version, got)
		}
		if version == 1 && (got.PreviousProducerID != 12000 || got.NextProducerID != 13000 || got.ClientTransactionVersion != 2 || got.NextProducerEpoch != 0) {
			t.Errorf("v1 tags: %+v", got)
		}
	}
}

func TestGroupKeys(t *testing.T) {
	for typ := int16(0); typ <= 16; typ++ {
		e := new(enc).i16(typ).str(false, "g1")
		want := &topics.GroupKey{Type: typ, Group: "g1"}
		switch typ {
		case 0, 1:
			e.str(false, "orders").i32(3)
			want.Topic, want.Partition = sp("orders"), ip(3)
		case 5, 7, 8, 10, 13, 14:
			e.str(false, "member-1")
			want.MemberID = sp("member-1")
		}
		got, err := topics.DecodeGroupKey(e.b)
		if typ == 16 {
			if !errors.Is(err, topics.ErrUnknownType) || got.Group != "g1" {
				t.Errorf("type 16: %+v, %v; want the group and an unknown-type error", got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("type %d (%s): got %+v, %v", typ, topics.GroupTypeName(typ), got, err)
		}
		if typ >= 3 && got.TypeName() == "" {
			t.Errorf("type %d has no name", typ)
		}
	}
}

func TestOffsetCommitValueVersions(t *testing.T) {
	for v := int16(0); v <= 4; v++ {
		flex := v >= 4
		e := new(enc).i16(v).i64(81731)
		want := &topics.OffsetCommitValue{Version: v, Offset: 81731, LeaderEpoch: -1, Metadata: "meta", CommitTimestamp: 1700000000000, ExpireTimestamp: -1}
		if v >= 3 {
			e.i32(8)
			want.LeaderEpoch = 8
		}
		e.str(flex, "meta").i64(1700000000000)
		if v == 1 {
			e.i64(1700086400000)
			want.ExpireTimestamp = 1700086400000
		}
		if flex {
			e.tags(tag{7, []byte{0}})
		}
		got, err := topics.DecodeOffsetCommitValue(e.b)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("v%d: got %+v, %v\nwant %+v", v, got, err, want)
		}
		// franz-go's encoder agrees.
		k := kmsg.NewOffsetCommitValue()
		k.Version, k.Offset, k.LeaderEpoch, k.Metadata, k.CommitTimestamp = v, 81731, 8, "meta", 1700000000000
		k.ExpireTimestamp = 1700086400000
		got, err = topics.DecodeOffsetCommitValue(k.AppendTo(nil))
		if err != nil || got.Offset != 81731 || got.Metadata != "meta" || (v >= 3) != (got.LeaderEpoch == 8) || (v == 1) != (got.ExpireTimestamp == 1700086400000) {
			t.Errorf("kmsg v%d: got %+v, %v", v, got, err)
		}
	}
	if _, err := topics.DecodeOffsetCommitValue(new(enc).i16(5).i64(1).b); !errors.Is(err, topics.ErrUnknownVersion) {
		t.Errorf("v5: %v, want unknown version", err)
	}
}

func TestGroupMetadataValueVersions(t *testing.T) {
	for v := int16(0); v <= 4; v++ {
		flex := v >= 4
		e := new(enc).i16(v).str(flex, "consumer").i32(9).nstr(flex, sp("range")).nstr(flex, sp("m-1"))
		want := &topics.GroupMetadataValue{Version: v, ProtocolType: "consumer", Generation: 9, Protocol: sp("range"), Leader: sp("m-1"), CurrentStateTimestamp: -1}
		if v >= 2 {
			e.i64(1765403389575)
			want.CurrentStateTimestamp = 1765403389575
		}
		e.count(flex, 2)
		for i, id := range []string{"m-1", "m-2"} {
			m := topics.GroupMember{MemberID: id, ClientID: "rdkafka", ClientHost: "/172.18.0.7", RebalanceTimeout: -1, SessionTimeout: 60000, SubscriptionSize: 3, AssignmentSize: -1}
			e.str(flex, id)
			if v >= 3 {
				if i == 0 {
					e.nstr(flex, sp("static-1"))
					m.GroupInstanceID = sp("static-1")
				} else {
					e.nstr(flex, nil)
				}
			}
			e.str(flex, "rdkafka").str(flex, "/172.18.0.7")
			if v >= 1 {
				e.i32(300000)
				m.RebalanceTimeout = 300000
			}
			e.i32(60000).bytes(flex, []byte{0, 1, 2}).bytes(flex, nil)
			if flex {
				e.tags()
			}
			want.Members = append(want.Members, m)
		}
		if flex {
			e.tags()
		}
		got, err := topics.DecodeGroupMetadataValue(e.b)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("v%d: got %+v, %v\nwant %+v", v, got, err, want)
		}
		k := kmsg.NewGroupMetadataValue()
		k.Version, k.ProtocolType, k.Generation, k.Protocol, k.Leader = v, "consumer", 9, sp("range"), sp("m-1")
		k.Members = []kmsg.GroupMetadataValueMember{{MemberID: "m-1", ClientID: "c", ClientHost: "/h", RebalanceTimeoutMillis: 5, SessionTimeoutMillis: 6, Subscription: []byte{1}, Assignment: []byte{2, 3}}}
		got, err = topics.DecodeGroupMetadataValue(k.AppendTo(nil))
		if err != nil || len(got.Members) != 1 || got.Members[0].MemberID != "m-1" || got.Members[0].AssignmentSize != 2 || got.Members[0].SessionTimeout != 6 {
			t.Errorf("kmsg v%d: got %+v, %v", v, got, err)
		}
	}
	if _, err := topics.DecodeGroupMetadataValue(new(enc).i16(5).b); !errors.Is(err, topics.ErrUnknownVersion) {
		t.Errorf("v5: %v, want unknown version", err)
	}
}

func metaHeader(apiKey, version uint64) *enc { return new(enc).uv(1).uv(apiKey).uv(version) }

func TestMetadataProducerIds(t *testing.T) {
	// ProducerIdsRecord v0 built by hand from its schema: broker 1, epoch 5, next 2000.
	in := []byte{0x01, 0x0f, 0x00, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0x07, 0xd0, 0x00}
	m, err := topics.DecodeMetadata(in)
	if err != nil {
		t.Fatal(err)
	}
	want := &topics.ProducerIdsRecord{BrokerID: 1, BrokerEpoch: 5, NextProducerID: 2000}
	if m.Type != "ProducerIds" || m.APIKey != 15 || !reflect.DeepEqual(m.Data, want) {
		t.Errorf("got %+v (%+v)", m, m.Data)
	}
}

func TestControlRecords(t *testing.T) {
	r, err := topics.DecodeControl(3, new(enc).i16(0).i64(1692277637380).tags().b)
	if err != nil || r.Type != "SNAPSHOT_HEADER" || *r.LastContainedLogTimestamp != 1692277637380 {
		t.Errorf("header: %+v, %v", r, err)
	}
	r, err = topics.DecodeControl(4, new(enc).i16(0).tags().b)
	if err != nil || r.Type != "SNAPSHOT_FOOTER" {
		t.Errorf("footer: %+v, %v", r, err)
	}
	r, err = topics.DecodeControl(5, new(enc).i16(0).i16(1).tags().b)
	if err != nil || *r.KRaftVersion != 1 {
		t.Errorf("kraft version: %+v, %v", r, err)
	}
	lc := new(enc).i16(0).i32(1).count(true, 2).i32(1).tags().i32(2).tags().count(true, 1).i32(1).tags().tags()
	r, err = topics.DecodeControl(2, lc.b)
	if err != nil || *r.LeaderID != 1 || len(r.Voters) != 2 || len(r.GrantingVoters) != 1 {
		t.Errorf("leader change: %+v, %v", r, err)
	}
	vs := new(enc).i16(0).count(true, 1).i32(1).raw(make([]byte, 16)).count(true, 1).str(true, "CONTROLLER").str(true, "c1").i16(9093).tags().i16(0).i16(1).tags().tags().tags()
	r, err = topics.DecodeControl(6, vs.b)
	if err != nil || len(r.Voters) != 1 || r.Voters[0].Endpoints[0].Port != 9093 {
		t.Errorf("voters: %+v, %v", r, err)
	}
}

// TestTruncatedNeverPanics cuts every fixture at every length: each cut
// must be an error (or, for a cut exactly at a field boundary of a
// trailing optional part, a clean result), never a panic, and never an
// allocation from an unchecked count.
func TestTruncatedNeverPanics(t *testing.T) {
	fixtures := map[string][]byte{
		"txn":      txnV0(1, 2, 1, map[string][]int32{"a": {1, 2}}, []string{"a"}),
		"group":    new(enc).i16(3).str(false, "consumer").i32(1).nstr(false, nil).nstr(false, nil).i64(1).count(false, 1).str(false, "m").nstr(false, nil).str(false, "c").str(false, "h").i32(1).i32(1).bytes(false, []byte{1}).bytes(false, []byte{2}).b,
		"metadata": metaHeader(3, 2).i32(4).raw(make([]byte, 16)).i32s(true, []int32{1}).i32s(true, []int32{1}).i32s(true, nil).i32s(true, nil).i32(1).i32(3).i32(5).count(true, 0).tags(tag{1, []byte{2, 0, 0, 0, 1}}).b,
	}
	for name, in := range fixtures {
		for n := 0; n < len(in); n++ {
			cut := in[:n]
			var err error
			switch name {
			case "txn":
				_, err = topics.DecodeTxnValue(cut)
			case "group":
				_, err = topics.DecodeGroupMetadataValue(cut)
			case "metadata":
				_, err = topics.DecodeMetadata(cut)
			}
			if err == nil {
				t.Errorf("%s cut at %d of %d: no error", name, n, len(in))
			}
		}
	}
	// A hostile count must fail before allocating.
	huge := new(enc).i16(0).i64(1).i16(0).i32(1).i8(1).i32(0x7fffffff).b
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		topics.DecodeTxnValue(huge)
	}
	runtime.ReadMemStats(&after)
	perCall := (after.TotalAlloc - before.TotalAlloc) / 100
	if _, err := topics.DecodeTxnValue(huge); !errors.Is(err, topics.ErrMalformed) || perCall > 4096 {
		t.Errorf("huge partition count: %v, %d bytes allocated per call", err, perCall)
	}
	hugeFlex := metaHeader(3, 0).i32(0).raw(make([]byte, 16)).uv(1 << 31).b
	if _, err := topics.DecodeMetadata(hugeFlex); !errors.Is(err, topics.ErrMalformed) {
		t.Errorf("huge compact count: %v", err)
	}
}

func TestTopicOf(t *testing.T) {
	for name, want := range map[string]topics.Topic{
		"__transaction_state-44": topics.TransactionState, "__consumer_offsets-0": topics.ConsumerOffsets,
		"__cluster_metadata-0": topics.ClusterMetadata, "__consumer_offsets": topics.ConsumerOffsets,
		"__consumer_offsets-3.8a2b6d0e3c1e4f5a9b7c6d5e4f3a2b1c-delete": topics.ConsumerOffsets,
		"orders-0": topics.None, "__consumer_offsets_copy-1": topics.None, "__consumer_offsets-x": topics.None,
	} {
		if got := topics.TopicOf(name); got != want {
			t.Errorf("TopicOf(%q) = %v, want %v", name, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(uint8(0), []byte(nil), txnV0(1, 2, 1, map[string][]int32{"a": {1}}, []string{"a"}))
	f.Add(uint8(1), new(enc).i16(1).str(false, "g").str(false, "t").i32(0).b, new(enc).i16(3).i64(1).i32(1).str(false, "").i64(1).b)
	f.Add(uint8(2), []byte(nil), metaHeader(0, 3).i32(1).b)
	f.Fuzz(func(t *testing.T, which uint8, key, value []byte) {
		switch which % 3 {
		case 0:
			topics.DecodeTxnKey(key)
			topics.DecodeTxnValue(value)
		case 1:
			topics.DecodeGroupKey(key)
			topics.DecodeOffsetCommitValue(value)
			topics.DecodeGroupMetadataValue(value)
		case 2:
			topics.DecodeMetadata(value)
			for typ := int16(2); typ <= 6; typ++ {
				topics.DecodeControl(typ, value)
			}
		}
	})
}
