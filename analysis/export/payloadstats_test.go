package export

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/parquet-go/parquet-go"
)

// TestPayloadColumnsHaveNoBounds: a large value is not copied into the
// footer's or the page headers' statistics; offsets keep theirs, for
// pruning.
func TestPayloadColumnsHaveNoBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.parquet")
	s, err := NewParquet[analysis.PayloadRecordRow](path, "test", &Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 2<<20)
	decoded := `"` + string(big) + `"`
	rows := []analysis.PayloadRecordRow{
		{RecordRow: analysis.RecordRow{Topic: "t", Offset: 7}, Key: []byte("k"), Value: big, Headers: []analysis.Header{{Key: "h", Value: big}}, ValueDecoded: &decoded},
		{RecordRow: analysis.RecordRow{Topic: "t", Offset: 9}, Key: []byte("l"), Value: []byte("small")},
	}
	if err := s.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	offsetHasBounds := false
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			name := c.MetaData.PathInSchema
			st := c.MetaData.Statistics
			switch name[len(name)-1] {
			case "value", "key", "value_decoded":
				if len(st.MinValue)+len(st.MaxValue)+len(st.Min)+len(st.Max) > 0 {
					t.Errorf("column %v has bounds of %d and %d bytes", name, len(st.MinValue), len(st.MaxValue))
				}
			case "offset":
				offsetHasBounds = len(st.MinValue) > 0 && len(st.MaxValue) > 0
			}
		}
	}
	if !offsetHasBounds {
		t.Errorf("the offset column lost its bounds")
	}
	if st.Size() > 1<<20 {
		t.Logf("file is %d bytes (zstd of the payload)", st.Size())
	}
}
