package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// writeInternalSegment writes one segment into dir/<partDir>/ and returns
// its path.
func writeInternalSegment(t *testing.T, partDir string, recs []segtest.Record) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), partDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "00000000000000000000.log")
	b := segtest.Batch{Magic: 2, FirstTimestamp: 1700000000000, AutoDeltas: true, Records: recs}.Encode()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// be encodes the fields of an internal topic's record (segtest.Fields).
func be(vs ...any) []byte { return segtest.Fields(vs...) }

func TestDumpDecodeTransactionState(t *testing.T) {
	t.Parallel()
	key := be(int16(0), "payments-app")
	// v1 (flexible): pid 4001, epoch 0, timeout 60000, CompleteCommit,
	// one partition orders-2, timestamps, tags PreviousProducerId=4000 and
	// ClientTransactionVersion=2.
	v1 := be(int16(1), int64(4001), int16(0), int32(60000), int8(4),
		[]byte{2, 7}, []byte("orders"), []byte{2}, int32(2), []byte{0},
		int64(1700000000500), int64(1700000000000),
		[]byte{2, 0, 8}, int64(4000), []byte{2, 2}, int16(2))
	p := writeInternalSegment(t, "__transaction_state-7", []segtest.Record{{Key: key, Value: v1}, {Key: key, Value: nil}, {Key: key, Value: be(int16(5))}})

	out, errOut, code := runCLIFlat(t, "dump", "--records", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"key: transaction_metadata::transactionalId=payments-app payload: producerId:4001,producerEpoch:0,state=CompleteCommit,partitions=[orders-2],txnLastUpdateTimestamp=1700000000500,txnTimeoutMs=60000,txnStartTimestamp=1700000000000,previousProducerId=4000,nextProducerId=-1,nextProducerEpoch=-1,clientTransactionVersion=2",
		"| offset: 1 CreateTime: 1700000000000 keySize: 16 valueSize: -1 sequence: -1 headerKeys: [] key: transaction_metadata::transactionalId=payments-app payload: <DELETE>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, ": warning unknown-version at byte 0 (offset 2): topics: unknown version: TransactionLogValue version 5") {
		t.Errorf("stderr: %s", errOut)
	}

	out, _, _ = runCLIFlat(t, "dump", "--records", "--json", p)
	var rec map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] == "record" && m["offset"] == 0.0 {
			rec = m
		}
		if m["type"] == "finding" && (m["kind"] != "unknown-version" || m["offset"] != 2.0) {
			t.Errorf("finding %v", m)
		}
	}
	dec, _ := rec["decoded"].(map[string]any)
	v, _ := dec["txnValue"].(map[string]any)
	k, _ := dec["txnKey"].(map[string]any)
	if k["transactionalId"] != "payments-app" || v["producerId"] != 4001.0 || v["previousProducerId"] != 4000.0 || v["state"] != "CompleteCommit" {
		t.Errorf("decoded %v", dec)
	}

	out, _, _ = runCLIFlat(t, "dump", "--records", "--payload", "--decode", "none", p)
	if strings.Contains(out, "transaction_metadata") || !strings.Contains(out, "key: 0x") {
		t.Errorf("--decode none decoded anyway:\n%s", out)
	}
	if _, _, code := runCLIFlat(t, "dump", "--decode", "yes", p); code != 2 {
		t.Errorf("--decode yes: exit %d, want 2", code)
	}
}

func TestDumpDecodeConsumerOffsetsAndMetadata(t *testing.T) {
	t.Parallel()
	key := be(int16(1), "g1", "orders", int32(3))
	val := be(int16(3), int64(42), int32(5), "", int64(1700000000000))
	p := writeInternalSegment(t, "__consumer_offsets-12", []segtest.Record{{Key: key, Value: val}})
	out, errOut, code := runCLI(t, "dump", "--records", p)
	want := `key: {"type":1,"group":"g1","topic":"orders","partition":3} payload: {"version":3,"offset":42,"leaderEpoch":5,"metadata":"","commitTimestamp":1700000000000,"expireTimestamp":-1}`
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d %s\n%s", code, errOut, out)
	}

	// ProducerIdsRecord v0 built by hand from its schema: broker 1, epoch 5, next 2000.
	pids := []byte{0x01, 0x0f, 0x00, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0x07, 0xd0, 0x00}
	p = writeInternalSegment(t, "__cluster_metadata-0", []segtest.Record{{Value: pids}, {Value: []byte{1, 20, 0, 0}}})
	out, errOut, code = runCLI(t, "dump", "--records", p)
	for _, want := range []string{
		`payload: {"type":"PRODUCER_IDS_RECORD","version":0,"data":{"brokerId":1,"brokerEpoch":5,"nextProducerId":2000}}`,
		`payload: {"type":"NO_OP_RECORD","version":0,"data":{}}`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d %s: missing %s in\n%s", code, errOut, want, out)
		}
	}
}

// TestDumpDecodeCorpus dumps the real __transaction_state and a KRaft
// snapshot with decoding: no findings, and the decoded forms appear.
func TestDumpDecodeCorpus(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..", "shared", "corpus", "real")
	if _, err := os.Stat(root); err != nil {
		t.Skip("corpus not present")
	}
	txn := filepath.Join(root, "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions", "kafka-data", "__transaction_state-44", "00000000000000000000.log")
	out, errOut, code := runCLI(t, "dump", "--records", "--fail-on-findings", txn)
	if code != 0 || strings.Count(out, "transactionalId=default_") != 4 || !strings.Contains(out, "state=PrepareCommit") {
		t.Errorf("exit %d %s\n%s", code, errOut, out)
	}
	snaps, _ := filepath.Glob(filepath.Join(root, "Danielowo2000__BigDataTechnologies-Version-2", "kafka_data", "__cluster_metadata-0", "*.checkpoint"))
	if len(snaps) == 0 {
		t.Fatal("no KRaft snapshot")
	}
	out, errOut, code = runCLI(t, "dump", "--records", "--fail-on-findings", snaps[len(snaps)-1]) // the later one, after the ProducerIds record at offset 13101
	if code != 0 || !strings.Contains(out, `"type":"SNAPSHOT_HEADER"`) || !strings.Contains(out, `"type":"PRODUCER_IDS_RECORD"`) {
		t.Errorf("exit %d %s", code, errOut)
	}
}

// TestDumpMetadataFields dumps a PartitionChange (ISR shrink to [1,2],
// leader 2: tags 0 and 1) and a PartitionChange of an unknown version 9:
// the first prints field by field in kafka-dump-log's form and nests the
// same fields under decoded.metadata.data with --json; the second prints
// kafka-dump-log's error form and a finding that names the type, version
// and byte.
func TestDumpMetadataFields(t *testing.T) {
	t.Parallel()
	topicID := make([]byte, 16)
	topicID[15] = 1
	isr := []byte{3, 0, 0, 0, 1, 0, 0, 0, 2} // compact count 2+1, then 1, 2
	pc := append([]byte{1, 5, 0}, be(int32(0))...)
	pc = append(pc, topicID...)
	pc = append(pc, 2, 0, byte(len(isr)))
	pc = append(pc, isr...)
	pc = append(pc, 1, 4)
	pc = append(pc, be(int32(2))...)
	p := writeInternalSegment(t, "__cluster_metadata-0", []segtest.Record{{Value: pc}, {Value: []byte{1, 5, 9, 0}}})

	out, errOut, code := runCLIFlat(t, "dump", "--records", p)
	want := `payload: {"type":"PARTITION_CHANGE_RECORD","version":0,"data":{"partitionId":0,"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","isr":[1,2],"leader":2}}`
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "| offset: 1 ") ||
		!strings.Contains(out, "payload: Error at 1, skipping. PartitionChange record v9 not decoded (1-byte body)") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if !strings.Contains(errOut, "warning unknown-version at byte 0 (offset 1): topics: unknown version: PartitionChangeRecord version 9 (known up to 2), at byte 2 of the value\n") {
		t.Errorf("finding: %s", errOut)
	}

	out, _, _ = runCLIFlat(t, "dump", "--records", "--json", p)
	var rec struct {
		Type    string `json:"type"`
		Decoded struct {
			Metadata struct {
				KafkaType string `json:"kafkaType"`
				Data      struct {
					Isr    []int32 `json:"isr"`
					Leader *int32  `json:"leader"`
				} `json:"data"`
			} `json:"metadata"`
		} `json:"decoded"`
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"type":"record"`) && strings.Contains(line, `"offset":0`) {
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if m := rec.Decoded.Metadata; m.KafkaType != "PARTITION_CHANGE_RECORD" || len(m.Data.Isr) != 2 || m.Data.Leader == nil || *m.Data.Leader != 2 {
		t.Errorf("--json record: %+v\n%s", rec, out)
	}
}
