package export

import (
	"bytes"
	"encoding/binary"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Most tables of a scan are empty (no transactions, no cluster events, no
// remote segments...), and parquet-go's writer costs the same to set up
// whether rows come or not: a buffer and a page per column, and the
// row-to-column functions it builds by reflection. For every table, that
// setup is about half of the CPU a scan spends whatever its input's size.
// A Parquet file of no rows has no row group: it is the magic, the footer
// and the magic again, and its footer is the schema, the column orders,
// the created-by and the key-value metadata. So a table is written from
// its schema alone until its first row (ParquetSink), and the columnar
// writer takes its schema from here too. TestEmptyTables checks the bytes
// against parquet-go's writer for every table.

// parquetFormatVersion is the version parquet-go writes in every footer.
const parquetFormatVersion = 2

// layout is what a footer says of a schema: its elements, the root first
// and then every node depth first, and the sort order of each leaf column.
type layout struct {
	elems  []format.SchemaElement
	orders []format.ColumnOrder
}

// layoutOf builds the footer's view of schema the way parquet-go's writer
// does: the root has no repetition, groups name their number of children,
// leaves their physical, converted and logical types and length.
func layoutOf(schema *parquet.Schema) layout {
	var l layout
	var walk func(name string, n parquet.Node, root bool)
	walk = func(name string, n parquet.Node, root bool) {
		t := n.Type()
		el := format.SchemaElement{Name: name, FieldID: int32(n.ID())}
		if !root {
			el.RepetitionType = repetitionOf(n)
		}
		if lt := t.LogicalType(); lt != nil {
			el.LogicalType = *lt
			if d, ok := lt.Value.(*format.DecimalType); ok {
				el.Scale.Set(d.Scale)
				el.Precision.Set(d.Precision)
			}
		}
		if k := int32(t.Length()); k > 0 {
			el.TypeLength.Set(k)
		}
		if !n.Leaf() {
			el.NumChildren.Set(int32(len(n.Fields())))
		}
		if pt := t.PhysicalType(); pt != nil {
			el.Type.Set(*pt)
		}
		if ct := t.ConvertedType(); ct != nil {
			el.ConvertedType.Set(*ct)
		}
		l.elems = append(l.elems, el)
		if n.Leaf() {
			l.orders = append(l.orders, *t.ColumnOrder())
			return
		}
		for _, f := range n.Fields() {
			walk(f.Name(), f, false)
		}
	}
	walk(schema.Name(), schema, true)
	return l
}

func repetitionOf(n parquet.Node) thrift.Null[format.FieldRepetitionType] {
	switch {
	case n.Required():
		return thrift.New(format.Required)
	case n.Optional():
		return thrift.New(format.Optional)
	case n.Repeated():
		return thrift.New(format.Repeated)
	}
	return thrift.Null[format.FieldRepetitionType]{}
}

// createdBy is the footer's created-by of a table written by this version,
// as parquet.CreatedBy("ksleuth", version, "") spells it.
func createdBy(version string) string { return "ksleuth version " + version + "(build )" }

// footerKV is the key-value metadata of a table's footer: the pandas key,
// then meta's pairs in the order they were first set.
func footerKV(schema *parquet.Schema, version string, meta *Metadata) []format.KeyValue {
	kv := []format.KeyValue{{Key: MetaPandas, Value: pandasMetadata(schema, version)}}
	if meta != nil {
		for _, p := range meta.Pairs() {
			kv = append(kv, format.KeyValue{Key: p[0], Value: p[1]})
		}
	}
	return kv
}

// appendFooter appends md, its length and the closing magic.
func appendFooter(dst []byte, md *format.FileMetaData) ([]byte, error) {
	var b bytes.Buffer
	if err := thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&b)).Encode(md); err != nil {
		return dst, err
	}
	dst = append(dst, b.Bytes()...)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(b.Len()))
	return append(dst, "PAR1"...), nil
}

// emptyFile is the Parquet file of schema with no rows, byte for byte the
// one parquet-go's writer makes with the same created-by and metadata.
func emptyFile(schema *parquet.Schema, version string, meta *Metadata) ([]byte, error) {
	l := layoutOf(schema)
	md := format.FileMetaData{Version: parquetFormatVersion, Schema: l.elems, KeyValueMetadata: footerKV(schema, version, meta),
		CreatedBy: createdBy(version), ColumnOrders: l.orders}
	b := append(make([]byte, 0, 4<<10), "PAR1"...)
	b, err := appendEmptyFooter(b, &md)
	if err != nil {
		return appendFooter(b[:4], &md)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(b)-4))
	return append(b, "PAR1"...), nil
}
