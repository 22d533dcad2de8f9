package export

import (
	"encoding/binary"
	"errors"

	"github.com/parquet-go/parquet-go/format"
)

// The footer of an empty table in Thrift's compact protocol, written field
// by field. parquet-go's encoder walks the footer's structs by reflection,
// a cost that showed in every empty table of a scan; the footer of a file
// with no row group holds few kinds of field, written here in the order
// and form that encoder gives them (fields by increasing id, each header
// the id's delta from the previous field and the type; an optional field
// left out when it is unset or zero; booleans in the header). A logical
// type not spelled out below makes appendEmptyFooter fail, and its caller
// falls back to parquet-go's encoder. TestEmptyTables compares the bytes.

// Compact protocol type codes.
const (
	ctTrue   = 1
	ctFalse  = 2
	ctI8     = 3
	ctI32    = 5
	ctI64    = 6
	ctBinary = 8
	ctList   = 9
	ctStruct = 12
)

var errUnspelled = errors.New("export: a footer field the compact writer does not spell")

// compact appends one struct's fields, tracking the last field id.
type compact struct {
	b    []byte
	last int16
}

func (c *compact) field(id int16, typ byte) {
	if d := id - c.last; d > 0 && d <= 15 {
		c.b = append(c.b, byte(d)<<4|typ)
	} else {
		c.b = append(c.b, typ)
		c.b = binary.AppendVarint(c.b, int64(id))
	}
	c.last = id
}

func (c *compact) i32(id int16, v int32) {
	c.field(id, ctI32)
	c.b = binary.AppendVarint(c.b, int64(v))
}

func (c *compact) i64(id int16, v int64) {
	c.field(id, ctI64)
	c.b = binary.AppendVarint(c.b, v)
}

func (c *compact) str(id int16, v string) {
	c.field(id, ctBinary)
	c.b = binary.AppendUvarint(c.b, uint64(len(v)))
	c.b = append(c.b, v...)
}

func (c *compact) boolean(id int16, v bool) {
	if v {
		c.field(id, ctTrue)
	} else {
		c.field(id, ctFalse)
	}
}

// list writes a list field's header: n elements of type typ follow.
func (c *compact) list(id int16, n int, typ byte) {
	c.field(id, ctList)
	if n <= 14 {
		c.b = append(c.b, byte(n)<<4|typ)
		return
	}
	c.b = append(c.b, 0xF0|typ)
	c.b = binary.AppendUvarint(c.b, uint64(n))
}

// begin and end bracket a nested struct: its field ids start again at
// zero, and the outer ones go on after it.
func (c *compact) begin() int16 { last := c.last; c.last = 0; return last }
func (c *compact) end(last int16) {
	c.b = append(c.b, 0)
	c.last = last
}

// emptyStruct writes a struct field with no fields of its own, the form
// of most union members.
func (c *compact) emptyStruct(id int16) {
	c.field(id, ctStruct)
	c.b = append(c.b, 0)
}

// appendEmptyFooter appends the footer md of a file with no row group.
func appendEmptyFooter(dst []byte, md *format.FileMetaData) ([]byte, error) {
	if len(md.RowGroups) > 0 || md.EncryptionAlgorithm.Value != nil || len(md.FooterSigningKeyMetadata) > 0 {
		return dst, errUnspelled
	}
	c := &compact{b: dst}
	c.i32(1, md.Version)
	c.list(2, len(md.Schema), ctStruct)
	for i := range md.Schema {
		if err := c.schemaElement(&md.Schema[i]); err != nil {
			return dst, err
		}
	}
	c.i64(3, md.NumRows)
	c.list(4, 0, ctStruct)
	if len(md.KeyValueMetadata) > 0 {
		c.list(5, len(md.KeyValueMetadata), ctStruct)
		for _, kv := range md.KeyValueMetadata {
			last := c.begin()
			c.str(1, kv.Key)
			c.str(2, kv.Value)
			c.end(last)
		}
	}
	if md.CreatedBy != "" {
		c.str(6, md.CreatedBy)
	}
	if len(md.ColumnOrders) > 0 {
		c.list(7, len(md.ColumnOrders), ctStruct)
		for _, o := range md.ColumnOrders {
			last := c.begin()
			switch o.Value.(type) {
			case nil:
			case *format.TypeDefinedOrder:
				c.emptyStruct(1)
			default:
				return dst, errUnspelled
			}
			c.end(last)
		}
	}
	c.b = append(c.b, 0)
	return c.b, nil
}

func (c *compact) schemaElement(el *format.SchemaElement) error {
	last := c.begin()
	if v, ok := el.Type.Get(); ok {
		c.i32(1, int32(v))
	}
	if v, ok := el.TypeLength.Get(); ok {
		c.i32(2, v)
	}
	if v, ok := el.RepetitionType.Get(); ok {
		c.i32(3, int32(v))
	}
	c.str(4, el.Name)
	if v, ok := el.NumChildren.Get(); ok {
		c.i32(5, v)
	}
	if v, ok := el.ConvertedType.Get(); ok {
		c.i32(6, int32(v))
	}
	if v, ok := el.Scale.Get(); ok {
		c.i32(7, v)
	}
	if v, ok := el.Precision.Get(); ok {
		c.i32(8, v)
	}
	if el.FieldID != 0 {
		c.i32(9, el.FieldID)
	}
	if el.LogicalType.Value != nil {
		c.field(10, ctStruct)
		if err := c.logicalType(el.LogicalType.Value); err != nil {
			return err
		}
	}
	c.end(last)
	return nil
}

// logicalType writes the union's one member: the logical types of
// ksleuth's tables and the other members without fields.
func (c *compact) logicalType(v format.LogicalTypeValue) error {
	last := c.begin()
	switch t := v.(type) {
	case *format.StringType:
		c.emptyStruct(1)
	case *format.MapType:
		c.emptyStruct(2)
	case *format.ListType:
		c.emptyStruct(3)
	case *format.EnumType:
		c.emptyStruct(4)
	case *format.DateType:
		c.emptyStruct(6)
	case *format.TimestampType:
		c.field(8, ctStruct)
		inner := c.begin()
		c.boolean(1, t.IsAdjustedToUTC)
		c.field(2, ctStruct)
		unit := c.begin()
		switch t.Unit.Value.(type) {
		case *format.MilliSeconds:
			c.emptyStruct(1)
		case *format.MicroSeconds:
			c.emptyStruct(2)
		case *format.NanoSeconds:
			c.emptyStruct(3)
		default:
			return errUnspelled
		}
		c.end(unit)
		c.end(inner)
	case *format.IntType:
		c.field(10, ctStruct)
		inner := c.begin()
		c.field(1, ctI8)
		c.b = append(c.b, byte(t.BitWidth))
		c.boolean(2, t.IsSigned)
		c.end(inner)
	case *format.JsonType:
		c.emptyStruct(12)
	case *format.BsonType:
		c.emptyStruct(13)
	case *format.UUIDType:
		c.emptyStruct(14)
	default:
		return errUnspelled
	}
	c.end(last)
	return nil
}
