package export

import (
	"encoding/json"

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
	m := pandasMeta{IndexColumns: []string{}, ColumnIndexes: []string{}}
	m.Creator.Library, m.Creator.Version = "ksleuth", version
	for _, f := range s.Fields() {
		c := pandasColumn{Name: f.Name(), FieldName: f.Name(), PandasType: "object", NumpyType: "object"}
		if f.Leaf() {
			c.PandasType, c.NumpyType, c.Metadata = pandasLeaf(f)
		}
		m.Columns = append(m.Columns, c)
	}
	b, _ := json.Marshal(&m)
	return string(b)
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
