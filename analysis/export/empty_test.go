package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// emptyPair closes a ParquetSink of T that got no rows (an empty write
// included) and returns the file it left, and the file parquet-go's
// generic writer makes of no rows with the same options and footer: the
// reference the first must match byte for byte.
func emptyPair[T any](t *testing.T, meta *Metadata) (got, want []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.parquet")
	s, err := NewParquet[T](path, "v9.9.9", meta)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, s.opts...)
	w.SetKeyValueMetadata(MetaPandas, pandasMetadata(w.Schema(), "v9.9.9"))
	for _, kv := range meta.Pairs() {
		w.SetKeyValueMetadata(kv[0], kv[1])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum := s.fileSum(); sum.bytes != int64(len(got)) {
		t.Fatalf("the manifest's size %d, the file's %d", sum.bytes, len(got))
	}
	return got, buf.Bytes()
}

// TestEmptyTables: a table with no rows, written from its schema without
// parquet-go's writer, is byte for byte the file that writer makes, for
// every row type a scan writes; and the columnar writer's footer view of
// the batches schema is the one parquet-go writes.
func TestEmptyTables(t *testing.T) {
	meta := NewRunMetadata(RunFooter{Version: "v9.9.9", CommandLine: "ksleuth scan x --out y", Inputs: []RunInput{{"x", "/x", "logdir"}},
		Sources: []string{"x"}, Fingerprint: map[string]string{"algo": "xxh3"}})
	meta.Set(MetaRunID, "run-1")
	meta.SetRunEnd()
	check := func(name string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, parquet-go writes %d, and they differ", name, len(got), len(want))
		}
	}
	pairs := map[string]func() ([]byte, []byte){
		"files":           func() ([]byte, []byte) { return emptyPair[analysis.FileRow](t, meta) },
		"batches":         func() ([]byte, []byte) { return emptyPair[analysis.BatchRow](t, meta) },
		"records":         func() ([]byte, []byte) { return emptyPair[analysis.RecordRow](t, meta) },
		"payload records": func() ([]byte, []byte) { return emptyPair[analysis.PayloadRecordRow](t, meta) },
		"anomalies":       func() ([]byte, []byte) { return emptyPair[analysis.AnomalyRow](t, meta) },
		"gaps":            func() ([]byte, []byte) { return emptyPair[analysis.GapRow](t, meta) },
		"snapshots":       func() ([]byte, []byte) { return emptyPair[analysis.SnapshotRow](t, meta) },
		"producers":       func() ([]byte, []byte) { return emptyPair[analysis.ProducerRow](t, meta) },
		"duplicates":      func() ([]byte, []byte) { return emptyPair[analysis.DuplicateRow](t, meta) },
		"transactions":    func() ([]byte, []byte) { return emptyPair[analysis.TransactionRow](t, meta) },
		"pid_blocks":      func() ([]byte, []byte) { return emptyPair[analysis.PIDBlockRow](t, meta) },
		"replicas":        func() ([]byte, []byte) { return emptyPair[analysis.ReplicaRow](t, meta) },
		"cluster_events":  func() ([]byte, []byte) { return emptyPair[analysis.ClusterEventRow](t, meta) },
		"partition_txns":  func() ([]byte, []byte) { return emptyPair[analysis.PartitionTxnRow](t, meta) },
		"commits":         func() ([]byte, []byte) { return emptyPair[analysis.CommitRow](t, meta) },
		"groups":          func() ([]byte, []byte) { return emptyPair[analysis.GroupRow](t, meta) },
		"remote_segments": func() ([]byte, []byte) { return emptyPair[analysis.RemoteSegmentRow](t, meta) },
	}
	for name, pair := range pairs {
		got, want := pair()
		check(name, got, want)
	}
	// The empty batches table of the columnar writer, whose schema now
	// comes from layoutOf.
	path := filepath.Join(t.TempDir(), "b.parquet")
	c, err := NewColumnar[analysis.BatchRow](path, "v9.9.9", meta, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, want := emptyPair[analysis.BatchRow](t, meta)
	check("batches (columnar)", b, want)
}

// TestEmptyFooterSpelled: the compact writer spells the footer of every
// table a scan writes (no fallback to parquet-go's encoder), byte for byte
// as that encoder does.
func TestEmptyFooterSpelled(t *testing.T) {
	meta := &Metadata{}
	meta.Set("k", "v")
	for _, row := range []any{analysis.FileRow{}, analysis.BatchRow{}, analysis.RecordRow{}, analysis.PayloadRecordRow{},
		analysis.AnomalyRow{}, analysis.GapRow{}, analysis.SnapshotRow{}, analysis.ProducerRow{}, analysis.DuplicateRow{},
		analysis.TransactionRow{}, analysis.PIDBlockRow{}, analysis.ReplicaRow{}, analysis.ClusterEventRow{},
		analysis.PartitionTxnRow{}, analysis.CommitRow{}, analysis.GroupRow{}, analysis.RemoteSegmentRow{}} {
		schema := parquet.SchemaOf(row)
		l := layoutOf(schema)
		md := format.FileMetaData{Version: parquetFormatVersion, Schema: l.elems, KeyValueMetadata: footerKV(schema, "v", meta),
			CreatedBy: createdBy("v"), ColumnOrders: l.orders}
		got, err := appendEmptyFooter(nil, &md)
		if err != nil {
			t.Errorf("%s: %v", schema.Name(), err)
			continue
		}
		want, err := appendFooter(nil, &md)
		if err != nil {
			t.Fatal(err)
		}
		if want = want[:len(want)-8]; !bytes.Equal(got, want) {
			t.Errorf("%s: the compact writer's footer differs from parquet-go's encoder's", schema.Name())
		}
	}
}

// TestPandasJSON: the pandas key written by hand is what encoding/json
// writes of the same struct, for every table's schema and for versions
// and names that need escapes.
func TestPandasJSON(t *testing.T) {
	check := func(m *pandasMeta) {
		t.Helper()
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.appendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	for _, row := range []any{analysis.FileRow{}, analysis.BatchRow{}, analysis.PayloadRecordRow{}, analysis.ProducerRow{},
		analysis.DuplicateRow{}, analysis.CommitRow{}, analysis.RemoteSegmentRow{}} {
		for _, version := range []string{"v1.2.3", "(devel)", `v"1"<&>\ ü` + "\x00\xff\u2028"} {
			check(pandasMetaOf(parquet.SchemaOf(row), version))
		}
	}
	check(&pandasMeta{})
	check(&pandasMeta{IndexColumns: []string{"a", "b"}, Columns: []pandasColumn{{Name: "x<y", Metadata: map[string]string{"b": "1", "a": "2"}}}})
}
