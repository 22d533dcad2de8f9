package realcheck

import "testing"

// TestParseDumpLog checks the kafka-dump-log parser on lines of each
// kind, as the releases print them; it needs no Kafka.
func TestParseDumpLog(t *testing.T) {
	out := `Dumping a/00000000000000000000.log
Log starting offset: 0
baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 0 lastSequence: 1 producerId: 7 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 5 size: 90 magic: 2 compresscodec: zstd crc: 1 isvalid: true
| offset: 0 CreateTime: 5 keySize: 3 valueSize: 11 sequence: 0 headerKeys: [h1,h2] key: k:1 payload: value: with colons
| offset: 1 CreateTime: 5 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 0
| offset: 2 CreateTime: 5 keySize: 4 valueSize: 19 sequence: -1 headerKeys: [] LeaderChange: {"version":0,"leaderId":1}
| offset: 3 CreateTime: 5 keySize: 4 valueSize: 19 sequence: -1 headerKeys: [] controlType: LEADER_CHANGE(2)
Dumping a/00000000000000000000.index
offset: 55 position: 6120
Dumping a/00000000000000000000.timeindex
timestamp: 17 offset: 55
Dumping a/00000000000000000000.txnindex
version: 0 producerId: 0 firstOffset: 94 lastOffset: 106 lastStableOffset: 107
Dumping a/00000000000000000062.snapshot
producerId: 0 producerEpoch: 6 coordinatorEpoch: 0 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 17
`
	files := ParseDumpLog(out)
	log := files["a/00000000000000000000.log"]
	if log == nil || len(log.entries) != 5 || len(log.other) != 1 {
		t.Fatalf("log: %+v", log)
	}
	if b := log.entries[0]; b.kind != "batch" || b.fields["producerId"] != "7" || b.fields["compresscodec"] != "zstd" || len(b.names) != 18 {
		t.Errorf("batch: %+v", b)
	}
	r := log.entries[1]
	if r.fields["headerKeys"] != "h1,h2" || r.key != "k:1" || r.payload != "value: with colons" || !r.hasKey || !r.hasPayload {
		t.Errorf("record: %+v", r)
	}
	if _, ok := r.fields["payload"]; ok {
		t.Errorf("payload text parsed as a field: %+v", r.fields)
	}
	if m := log.entries[2]; m.fields["endTxnMarker"] != "COMMIT" || m.fields["coordinatorEpoch"] != "0" || m.hasPayload {
		t.Errorf("marker: %+v", m)
	}
	if c := log.entries[3]; c.control != `LeaderChange: {"version":0,"leaderId":1}` {
		t.Errorf("control: %+v", c)
	}
	if c := log.entries[4]; c.fields["controlType"] != "LEADER_CHANGE(2)" || c.control != "" {
		t.Errorf("old control: %+v", c)
	}
	for name, kind := range map[string]string{
		"a/00000000000000000000.index": "index_entry", "a/00000000000000000000.timeindex": "timeindex_entry",
		"a/00000000000000000000.txnindex": "txn_entry", "a/00000000000000000062.snapshot": "snapshot_entry",
	} {
		f := files[name]
		if f == nil || len(f.entries) != 1 || f.entries[0].kind != kind {
			t.Errorf("%s: %+v", name, f)
		}
	}
	if got := files["a/00000000000000000062.snapshot"].entries[0].fields["lastTimestamp"]; got != "17" {
		t.Errorf("snapshot lastTimestamp %q", got)
	}
}

func TestMetadataTypeName(t *testing.T) {
	for ks, dl := range map[string]string{"FeatureLevel": "FEATURE_LEVEL_RECORD", "RegisterBroker": "REGISTER_BROKER_RECORD",
		"ZkMigration": "ZK_MIGRATION_STATE_RECORD"} {
		if got := metadataTypeName(ks); got != dl {
			t.Errorf("%s: %s, want %s", ks, got, dl)
		}
	}
}
