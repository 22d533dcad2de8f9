package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// plainAnomalyRow is AnomalyRow as it was before Kind and Severity had
// types of their own: plain strings, with the same tags.
type plainAnomalyRow struct {
	Input      int32   `parquet:"input" json:"input"`
	Source     string  `parquet:"source,dict" json:"source"`
	Topic      *string `parquet:"topic,optional,dict" json:"topic"`
	Partition  *int32  `parquet:"partition,optional" json:"partition"`
	Kind       string  `parquet:"kind,dict" json:"kind"`
	Severity   string  `parquet:"severity,dict" json:"severity"`
	File       string  `parquet:"file,dict" json:"file"`
	Position   *int64  `parquet:"position,optional" json:"position"`
	Line       *int32  `parquet:"line,optional" json:"line"`
	Offset     *int64  `parquet:"offset,optional" json:"offset"`
	ProducerID *int64  `parquet:"producer_id,optional" json:"producer_id"`
	Message    string  `parquet:"message" json:"message"`
	Omitted    *int64  `parquet:"omitted,optional" json:"omitted"`
	CausedBy   *string `parquet:"caused_by,optional,dict" json:"caused_by"`
}

// TestTypedVocabularyKeepsTables: typing AnomalyRow's Kind and Severity
// (and GapRow's Severity) changes neither the Parquet schema of
// anomalies.parquet and gaps.parquet nor the JSON finding lines, which
// are the contract of docs/tables.md.
func TestTypedVocabularyKeepsTables(t *testing.T) {
	if reflect.TypeFor[plainAnomalyRow]().NumField() != reflect.TypeFor[AnomalyRow]().NumField() {
		t.Fatalf("plainAnomalyRow no longer mirrors AnomalyRow's fields")
	}
	got, want := columnsOf(AnomalyRow{}), columnsOf(plainAnomalyRow{})
	if got != want {
		t.Errorf("anomalies schema\n%s\nwant\n%s", got, want)
	}
	type plainGap struct {
		Cause    string `parquet:"cause,dict" json:"cause"`
		Severity string `parquet:"severity,dict" json:"severity"`
	}
	type typedGap struct {
		Cause    string   `parquet:"cause,dict" json:"cause"`
		Severity Severity `parquet:"severity,dict" json:"severity"`
	}
	if g, w := columnsOf(typedGap{}), columnsOf(plainGap{}); g != w {
		t.Errorf("gap severity column %s, want %s", g, w)
	}
	if f, ok := reflect.TypeFor[GapRow]().FieldByName("Severity"); !ok || f.Type != reflect.TypeFor[Severity]() {
		t.Errorf("GapRow.Severity is not the Severity whose column is checked here")
	}

	topic, part, pos := "t", int32(3), int64(9)
	typed := AnomalyRow{Input: 1, Topic: &topic, Partition: &part, Kind: "crc-mismatch", Severity: "error", File: "t-3/0.log", Position: &pos, Message: "m"}
	plain := plainAnomalyRow{Input: 1, Topic: &topic, Partition: &part, Kind: "crc-mismatch", Severity: "error", File: "t-3/0.log", Position: &pos, Message: "m"}
	a, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(plain)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("JSON finding line %s, want %s", a, b)
	}

	// Written with the typed row and read back as plain strings: the
	// bytes in the file are the same text.
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []AnomalyRow{typed}); err != nil {
		t.Fatal(err)
	}
	back, err := parquet.Read[plainAnomalyRow](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || back[0].Kind != "crc-mismatch" || back[0].Severity != "error" {
		t.Errorf("read back %+v", back)
	}
}

// columnsOf is the columns of the Parquet schema of a row type: name,
// physical and logical type, repetition and encoding (dictionary or not).
func columnsOf(row any) string {
	var b bytes.Buffer
	for _, f := range parquet.SchemaOf(row).Fields() {
		var enc string
		if e := f.Encoding(); e != nil {
			enc = e.String()
		}
		fmt.Fprintf(&b, "%s %s optional=%v encoding=%s\n", f.Name(), f.Type(), f.Optional(), enc)
	}
	return b.String()
}
