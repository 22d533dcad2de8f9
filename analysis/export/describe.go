package export

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Column is one top-level column of a table as docs/tables.md names its
// type: int32, int64, string, bool, timestamp (milliseconds, UTC),
// binary, or "list of struct(key string, value binary null)".
type Column struct {
	Name     string
	Type     string
	Nullable bool
}

// Describe lists the columns of a Parquet file written by ksleuth, in
// schema order, so that tests and tools can hold the documented types
// against the file's own schema.
func Describe(path string) ([]Column, int64, error) {
	f, pf, err := openParquetFile(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var cols []Column
	for _, fld := range pf.Schema().Fields() {
		typ, err := typeName(fld)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: column %s: %w", path, fld.Name(), err)
		}
		cols = append(cols, Column{Name: fld.Name(), Type: typ, Nullable: fld.Optional()})
	}
	return cols, pf.NumRows(), nil
}

func logical(f parquet.Field) format.LogicalTypeValue {
	if lt := f.Type().LogicalType(); lt != nil {
		return lt.Value
	}
	return nil
}

func typeName(f parquet.Field) (string, error) {
	if !f.Leaf() {
		if _, isList := logical(f).(*format.ListType); isList || f.Repeated() {
			elem, err := listElement(f)
			if err != nil {
				return "", err
			}
			return "list of " + elem, nil
		}
		return structName(f)
	}
	switch lt := logical(f).(type) {
	case *format.TimestampType:
		if _, ms := lt.Unit.Value.(*format.MilliSeconds); !ms || !lt.IsAdjustedToUTC {
			return "", fmt.Errorf("timestamp is not milliseconds UTC: %v", lt)
		}
		return "timestamp", nil
	case *format.StringType:
		return "string", nil
	}
	switch f.Type().Kind() {
	case parquet.Boolean:
		return "bool", nil
	case parquet.Int32:
		return "int32", nil
	case parquet.Int64:
		return "int64", nil
	case parquet.ByteArray:
		return "binary", nil
	}
	return "", fmt.Errorf("unexpected type %v", f.Type())
}

// listElement finds the element of a LIST column, in the three-level
// layout (list > repeated group > element) or a bare repeated field.
func listElement(f parquet.Field) (string, error) {
	if f.Repeated() {
		return structName(f)
	}
	fs := f.Fields()
	if len(fs) != 1 {
		return "", fmt.Errorf("list with %d children", len(fs))
	}
	inner := fs[0]
	if ifs := inner.Fields(); len(ifs) == 1 && !inner.Leaf() {
		inner = ifs[0]
	}
	if inner.Leaf() {
		return typeName(inner)
	}
	return structName(inner)
}

func structName(f parquet.Field) (string, error) {
	var parts []string
	for _, c := range f.Fields() {
		t, err := typeName(c)
		if err != nil {
			return "", err
		}
		p := c.Name() + " " + t
		if c.Optional() {
			p += " null"
		}
		parts = append(parts, p)
	}
	return "struct(" + strings.Join(parts, ", ") + ")", nil
}
