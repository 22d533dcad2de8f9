package export

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// MetaPandas is the footer key pandas reads its column types from, when
// pyarrow converts a table to a DataFrame.
const MetaPandas = "pandas"

// pandasMeta is the JSON of the pandas key, as pyarrow's pandas_compat
// reads it.
type pandasMeta struct {
	IndexColumns  []string       `json:"index_columns"`
	ColumnIndexes []string       `json:"column_indexes"`
	Columns       []pandasColumn `json:"columns"`
	Creator       struct {
		Library string `json:"library"`
		Version string `json:"version"`
	} `json:"creator"`
}

type pandasColumn struct {
	Name       string            `json:"name"`
	FieldName  string            `json:"field_name"`
	PandasType string            `json:"pandas_type"`
	NumpyType  string            `json:"numpy_type"`
	Metadata   map[string]string `json:"metadata"`
}

// pandasMetadata is the pandas key of a table of schema s. By default
// pandas reads an integer column holding a null as float64, which rounds
// producer ids above 2^53; this key names the nullable extension types
// (Int64, Int32, boolean) of such columns, which pandas restores, so that
// a plain pd.read_parquet reads every value exactly. Columns that cannot
// be null keep their numpy types; a nullable column of another kind reads
// exactly as it is (strings and bytes as objects, timestamps as NaT).
func pandasMetadata(s *parquet.Schema, version string) string {
	m := pandasMetaOf(s, version)
	return string(m.appendJSON(make([]byte, 0, 128*len(m.Columns))))
}

func pandasMetaOf(s *parquet.Schema, version string) *pandasMeta {
	m := &pandasMeta{IndexColumns: []string{}, ColumnIndexes: []string{}}
	m.Creator.Library, m.Creator.Version = "ksleuth", version
	for _, f := range s.Fields() {
		c := pandasColumn{Name: f.Name(), FieldName: f.Name(), PandasType: "object", NumpyType: "object"}
		if f.Leaf() {
			c.PandasType, c.NumpyType, c.Metadata = pandasLeaf(f)
		}
		m.Columns = append(m.Columns, c)
	}
	return m
}

// appendJSON appends m as json.Marshal writes it (TestPandasJSON): by hand,
// since encoding/json's reflection costs a tenth of a millisecond per
// table of each scan.
func (m *pandasMeta) appendJSON(b []byte) []byte {
	b = append(b, `{"index_columns":`...)
	b = appendJSONStrings(b, m.IndexColumns)
	b = append(b, `,"column_indexes":`...)
	b = appendJSONStrings(b, m.ColumnIndexes)
	b = append(b, `,"columns":`...)
	if m.Columns == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range m.Columns {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendJSONString(b, c.Name)
			b = append(b, `,"field_name":`...)
			b = appendJSONString(b, c.FieldName)
			b = append(b, `,"pandas_type":`...)
			b = appendJSONString(b, c.PandasType)
			b = append(b, `,"numpy_type":`...)
			b = appendJSONString(b, c.NumpyType)
			b = append(b, `,"metadata":`...)
			b = appendJSONMap(b, c.Metadata)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"creator":{"library":`...)
	b = appendJSONString(b, m.Creator.Library)
	b = append(b, `,"version":`...)
	b = appendJSONString(b, m.Creator.Version)
	return append(b, "}}"...)
}

// appendJSONString appends s quoted; a string with anything but printable
// ASCII that JSON and encoding/json leave as it is goes through
// encoding/json, for its escapes.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONMap appends m with its keys sorted, as encoding/json does.
func appendJSONMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := slices.Sorted(maps.Keys(m))
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSONString(b, m[k])
	}
	return append(b, '}')
}

// pandasLeaf is the pandas and numpy type of a leaf column.
func pandasLeaf(f parquet.Field) (pandasType, numpyType string, meta map[string]string) {
	var lt format.LogicalTypeValue
	if l := f.Type().LogicalType(); l != nil {
		lt = l.Value
	}
	switch v := lt.(type) {
	case *format.TimestampType:
		if v.IsAdjustedToUTC {
			return "datetimetz", "datetime64[ms]", map[string]string{"timezone": "UTC"}
		}
		return "datetime", "datetime64[ms]", nil
	case *format.StringType:
		return "unicode", "object", nil
	}
	switch f.Type().Kind() {
	case parquet.Int32:
		if f.Optional() {
			return "int32", "Int32", nil
		}
		return "int32", "int32", nil
	case parquet.Int64:
		if f.Optional() {
			return "int64", "Int64", nil
		}
		return "int64", "int64", nil
	case parquet.Boolean:
		if f.Optional() {
			return "bool", "boolean", nil
		}
		return "bool", "bool", nil
	case parquet.ByteArray:
		return "bytes", "object", nil
	}
	return "object", "object", nil
}
