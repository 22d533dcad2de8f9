package export

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// ColumnarSink writes a Parquet file of rows of T one column at a time,
// for a table with many rows of a few simple kinds of column (the batches
// table: a row per batch of every segment). parquet-go's generic writer
// spends 600-1000 ns a row on such a table (BenchmarkBatchesTable): it
// moves every row through its row-to-column path and looks every string
// up in a dictionary map. Here each column is a typed slice filled
// straight from the rows' fields, a block of rows at a time; strings that
// repeat the previous row's value (a segment's path for thousands of
// batches) reuse its dictionary index without a lookup; and pages are
// encoded with parquet-go's own encoders. About 370 ns a row, most of it
// zstd.
//
// The file is the one the generic writer would write for T, as readers
// see it: the columns come from T's fields and parquet tags (columnsOf),
// and the schema and column orders are those parquet-go's writer puts in
// a footer for T (layoutOf), so the Go struct stays the one definition of
// the table. Column chunks hold data pages of version 1: dictionary-encoded
// strings (RLE_DICTIONARY), DELTA_BINARY_PACKED or PLAIN integers, PLAIN booleans, nulls as RLE definition levels; every
// page compressed with the tables' zstd; chunk statistics (min, max, null
// count) as parquet-go computes them. Like ParquetSink it writes under a
// temporary name and renames on Close.
type ColumnarSink[T any] struct {
	final string
	f     *tmpFile
	bw    *bufio.Writer
	meta  *Metadata
	done  bool
	err   error
	// version goes into the pandas key's creator.
	version string

	schema    *parquet.Schema
	layout    layout // schema elements and column orders
	cols      []column
	pageRows  int // rows per data page
	groupRows int // rows per row group
	inPage    int // rows in the current page
	inGroup   int // rows in the current row group
	off       int64
	groups    []format.RowGroup
	numRows   int64

	scratch []byte  // uncompressed page
	v32     []int32 // an int32 page for the delta encoder
	zbuf    []byte  // compressed page
	hbuf    bytes.Buffer
}

// columnKind is how one column of a ColumnarSink is stored.
type columnKind int

const (
	int32Delta columnKind = iota // INT32, DELTA_BINARY_PACKED
	int32Plain                   // INT32, PLAIN
	int64Delta                   // INT64, DELTA_BINARY_PACKED
	int64Plain                   // INT64, PLAIN
	boolPlain                    // BOOLEAN, PLAIN
	dictString                   // BYTE_ARRAY (STRING), RLE_DICTIONARY
	optInt64                     // optional INT64, PLAIN values, RLE definition levels
)

// column is one leaf column: where its field sits in a row, its current
// page and its current column chunk.
type column struct {
	name string
	kind columnKind
	off  uintptr // of the field in T
	phys format.Type

	// the current page
	ints  []int64
	bools []bool
	idx   []int32
	defs  []int32 // optInt64: definition levels (1: value present)

	// the dictionary of the current column chunk
	dict     map[string]int32
	dictVals []string
	last     string
	lastIdx  int32

	// the current column chunk: its encoded data pages and statistics
	pages        bytes.Buffer
	uncompressed int64 // of the data pages, headers included
	values       int64
	nulls        int64
	hasMinMax    bool
	min, max     int64 // integers; booleans as 0 and 1
}

// columnsOf derives the columns of T from its fields and their parquet
// tags: int32 and int64 (DELTA_BINARY_PACKED with the delta option, else
// PLAIN), bool, string with the dict option, *int64 with the optional
// option. Any other field is an error: T needs the generic writer.
func columnsOf(t reflect.Type) ([]column, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("export: %v is not a struct", t)
	}
	var cols []column
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("parquet")
		if tag == "-" {
			continue // carried for the engine, not a column
		}
		if !ok || !f.IsExported() {
			return nil, fmt.Errorf("export: field %s has no parquet column", f.Name)
		}
		opts := strings.Split(tag, ",")
		has := func(o string) bool { return slices.Contains(opts[1:], o) }
		c := column{name: opts[0], off: f.Offset}
		if c.name == "" {
			c.name = f.Name
		}
		switch {
		case f.Type.Kind() == reflect.Int32:
			c.kind, c.phys = int32Plain, format.Int32
			if has("delta") {
				c.kind = int32Delta
			}
		case f.Type.Kind() == reflect.Int64:
			c.kind, c.phys = int64Plain, format.Int64
			if has("delta") {
				c.kind = int64Delta
			}
		case f.Type.Kind() == reflect.Bool:
			c.kind, c.phys = boolPlain, format.Boolean
		case f.Type.Kind() == reflect.String && has("dict"):
			c.kind, c.phys = dictString, format.ByteArray
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Int64 && has("optional"):
			c.kind, c.phys = optInt64, format.Int64
		default:
			return nil, fmt.Errorf("export: field %s (%v, %q) is not a kind the columnar writer stores", f.Name, f.Type, tag)
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// DefaultPageRows is the number of rows of a data page: at 8 bytes a value
// an integer page is 256 KiB before encoding, parquet-go's page size.
const DefaultPageRows = 32 << 10

// NewColumnar starts writing path (under a temporary name) for rows of T,
// whose fields must all be of the kinds columnsOf accepts. pageRows and
// groupRows of zero mean DefaultPageRows and MaxRowsPerRowGroup.
func NewColumnar[T any](path, version string, meta *Metadata, pageRows, groupRows int) (*ColumnarSink[T], error) {
	cols, err := columnsOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	schema := parquet.SchemaOf(new(T))
	lay := layoutOf(schema)
	leaves := lay.elems[1:]
	if len(leaves) != len(cols) {
		return nil, fmt.Errorf("export: %d fields for a schema of %d columns", len(cols), len(leaves))
	}
	s := &ColumnarSink[T]{meta: meta, version: version, schema: schema, layout: lay, pageRows: pageRows, groupRows: groupRows, cols: cols}
	if s.pageRows <= 0 {
		s.pageRows = DefaultPageRows
	}
	if s.groupRows <= 0 {
		s.groupRows = MaxRowsPerRowGroup
	}
	for i := range s.cols {
		c, el := &s.cols[i], leaves[i]
		rep := format.Required
		if c.kind == optInt64 {
			rep = format.Optional
		}
		nc, _ := el.NumChildren.Get()
		typ, ok1 := el.Type.Get()
		r, ok2 := el.RepetitionType.Get()
		if el.Name != c.name || nc != 0 || !ok1 || !ok2 || typ != c.phys || r != rep {
			return nil, fmt.Errorf("export: column %d (%q) is not what parquet-go makes of field %q", i, el.Name, c.name)
		}
		if !signedOrder(&el) {
			return nil, fmt.Errorf("export: column %q has logical type %s, whose statistics this writer does not order", el.Name, el.LogicalType.String())
		}
		c.reset(s.pageRows)
	}
	f, err := tempFile(path)
	if err != nil {
		return nil, err
	}
	s.final, s.f, s.bw = path, f, bufio.NewWriterSize(f, 64<<10)
	s.write([]byte("PAR1"))
	return s, nil
}

// signedOrder reports whether the column's statistics order as this
// writer computes them: integers signed (plain, signed INT, TIMESTAMP),
// strings byte by byte (STRING). An unsigned integer, say, would need
// unsigned min and max.
func signedOrder(el *format.SchemaElement) bool {
	if ct, ok := el.ConvertedType.Get(); ok {
		switch ct {
		case deprecated.UTF8, deprecated.TimestampMillis, deprecated.TimestampMicros,
			deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
		default:
			return false
		}
	}
	switch v := el.LogicalType.Value.(type) {
	case nil, *format.StringType, *format.TimestampType:
		return true
	case *format.IntType:
		return v.IsSigned
	}
	return false
}

// firstPageRows is the room a column's page buffers start with; past it
// they take a full page (reserve) at once. Sized for a full page up front,
// the batches table alone allocated and cleared about 5 MB per scan,
// however few batches the scan read.
const firstPageRows = 1 << 10

// reset empties the column chunk, keeping the page buffers, with room for
// at least firstPageRows values (at most pageRows).
func (c *column) reset(pageRows int) {
	pages := c.pages.Bytes()[:0]
	*c = column{pages: *bytes.NewBuffer(pages), name: c.name, kind: c.kind, off: c.off, phys: c.phys,
		ints: c.ints[:0], bools: c.bools[:0], idx: c.idx[:0], defs: c.defs[:0]}
	n := min(pageRows, firstPageRows)
	switch c.kind {
	case int32Delta, int32Plain, int64Delta, int64Plain:
		c.ints = slices.Grow(c.ints, n)
	case boolPlain:
		c.bools = slices.Grow(c.bools, n)
	case dictString:
		c.idx = slices.Grow(c.idx, n)
	case optInt64:
		c.ints, c.defs = slices.Grow(c.ints, n), slices.Grow(c.defs, n)
	}
}

func (s *ColumnarSink[T]) write(b []byte) {
	if s.err != nil {
		return
	}
	_, s.err = s.bw.Write(b)
	s.off += int64(len(b))
}

// Write appends rows.
func (s *ColumnarSink[T]) Write(rows []T) error {
	if s.done {
		return errors.New("export: write to a closed table")
	}
	for len(rows) > 0 && s.err == nil {
		n := min(len(rows), s.pageRows-s.inPage, s.groupRows-s.inGroup)
		s.add(rows[:n])
		s.inPage += n
		s.inGroup += n
		rows = rows[n:]
		if s.inPage == s.pageRows || s.inGroup == s.groupRows {
			s.flushPage()
		}
		if s.inGroup == s.groupRows {
			s.flushGroup()
		}
	}
	return s.err
}

// add appends the values of rows to the columns' pages, a block of rows
// at a time: the block stays in the cache while each column takes its
// field from every row of it in a loop of its own kind. A field is read
// at its offset in the row, with the type columnsOf found there.
func (s *ColumnarSink[T]) add(rows []T) {
	const block = 64
	size := unsafe.Sizeof(*new(T))
	for k := range s.cols {
		s.cols[k].reserve(len(rows), s.pageRows)
	}
	for len(rows) > 0 {
		n := min(len(rows), block)
		base := unsafe.Pointer(unsafe.SliceData(rows))
		for k := range s.cols {
			s.cols[k].add(base, size, n)
		}
		rows = rows[n:]
	}
}

// add appends the field of n rows of size bytes from base. The page's
// slices are held in locals: appended through c, each would be reloaded
// after every store, which the compiler cannot prove leaves c alone. The
// field of row i is at base + i*size + c.off: a pointer is never moved
// past the rows (the garbage collector and -race's checkptr forbid that).
func (c *column) add(base unsafe.Pointer, size uintptr, n int) {
	field := func(i int) unsafe.Pointer { return unsafe.Add(base, uintptr(i)*size+c.off) }
	switch c.kind {
	case int32Delta, int32Plain:
		ints := c.ints
		for i := range n {
			ints = append(ints, int64(*(*int32)(field(i))))
		}
		c.ints = ints
	case int64Delta, int64Plain:
		ints := c.ints
		for i := range n {
			ints = append(ints, *(*int64)(field(i)))
		}
		c.ints = ints
	case boolPlain:
		bs := c.bools
		for i := range n {
			bs = append(bs, *(*bool)(field(i)))
		}
		c.bools = bs
	case dictString:
		idx, last, lastIdx := c.idx, c.last, c.lastIdx
		if c.dict == nil && n > 0 {
			last = *(*string)(field(0))
			lastIdx = c.lookup(last)
		}
		for i := range n {
			if v := *(*string)(field(i)); v != last {
				lastIdx = c.lookup(v)
				last = v
			}
			idx = append(idx, lastIdx)
		}
		c.idx, c.last, c.lastIdx = idx, last, lastIdx
	case optInt64:
		ints, defs := c.ints, c.defs
		for i := range n {
			if v := *(**int64)(field(i)); v != nil {
				defs = append(defs, 1)
				ints = append(ints, *v)
			} else {
				defs = append(defs, 0)
			}
		}
		c.ints, c.defs = ints, defs
	}
}

// reserve makes room in the page buffers for n more values, up to a full
// page of pageRows at once: grown by append, a buffer would be copied at
// every step of a quarter on its way to a page.
func (c *column) reserve(n, pageRows int) {
	switch c.kind {
	case int32Delta, int32Plain, int64Delta, int64Plain:
		c.ints = toPage(c.ints, n, pageRows)
	case boolPlain:
		c.bools = toPage(c.bools, n, pageRows)
	case dictString:
		c.idx = toPage(c.idx, n, pageRows)
	case optInt64:
		c.ints, c.defs = toPage(c.ints, n, pageRows), toPage(c.defs, n, pageRows)
	}
}

// toPage returns s with room for n more values: as it is if they fit,
// else grown to hold a page of pageRows (or len(s)+n, if more).
func toPage[E any](s []E, n, pageRows int) []E {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, pageRows-len(s)))
}

func (c *column) lookup(v string) int32 {
	if c.dict == nil {
		c.dict = map[string]int32{}
	}
	i, ok := c.dict[v]
	if !ok {
		i = int32(len(c.dictVals))
		c.dict[v] = i
		c.dictVals = append(c.dictVals, v)
	}
	return i
}

// flushPage encodes every column's current page into its chunk.
func (s *ColumnarSink[T]) flushPage() {
	if s.inPage == 0 {
		return
	}
	for k := range s.cols {
		c := &s.cols[k]
		if s.err != nil {
			return
		}
		var enc format.Encoding
		nulls := int64(len(c.defs) - len(c.ints)) // optInt64 only; zero elsewhere
		if c.kind != optInt64 {
			nulls = 0
		}
		s.scratch, enc = c.encodePage(s.scratch[:0], &s.v32)
		// The header's statistics are always written (parquet-go's format
		// marks them so): their null count must be the page's.
		hdr := format.PageHeader{Type: format.DataPage, UncompressedPageSize: int32(len(s.scratch)),
			DataPageHeader: thrift.New(format.DataPageHeader{NumValues: int32(s.inPage), Encoding: enc,
				DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE,
				Statistics: format.Statistics{NullCount: nulls}})}
		n, err := s.appendPage(&c.pages, &hdr)
		if err != nil {
			s.err = err
			return
		}
		c.uncompressed += n + int64(len(s.scratch))
		c.values += int64(s.inPage)
	}
	s.inPage = 0
}

// appendPage compresses s.scratch as the body of the page hdr describes
// and appends header and body to dst. It returns the header's size.
func (s *ColumnarSink[T]) appendPage(dst *bytes.Buffer, hdr *format.PageHeader) (int64, error) {
	if len(s.scratch) > math.MaxInt32 {
		return 0, errors.New("export: page over 2 GiB")
	}
	z, err := zstdCodec.Encode(s.zbuf[:0], s.scratch)
	if err != nil {
		return 0, err
	}
	s.zbuf = z
	hdr.CompressedPageSize = int32(len(z))
	s.hbuf.Reset()
	if err := thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&s.hbuf)).Encode(hdr); err != nil {
		return 0, err
	}
	n := int64(s.hbuf.Len())
	dst.Write(s.hbuf.Bytes())
	dst.Write(z)
	return n, nil
}

// encodePage appends the column's current page, uncompressed, to dst and
// resets the page. It also folds the page into the chunk's statistics.
func (c *column) encodePage(dst []byte, v32 *[]int32) ([]byte, format.Encoding) {
	switch c.kind {
	case int32Delta, int32Plain, int64Delta, int64Plain:
		c.stats(c.ints)
		enc := format.DeltaBinaryPacked
		switch c.kind {
		case int32Delta:
			*v32 = (*v32)[:0]
			for _, v := range c.ints {
				*v32 = append(*v32, int32(v))
			}
			dst, _ = (&delta.BinaryPackedEncoding{}).EncodeInt32(dst, *v32)
		case int64Delta:
			dst, _ = (&delta.BinaryPackedEncoding{}).EncodeInt64(dst, c.ints)
		case int32Plain:
			enc = format.Plain
			for _, v := range c.ints {
				dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
			}
		default:
			enc = format.Plain
			for _, v := range c.ints {
				dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
			}
		}
		c.ints = c.ints[:0]
		return dst, enc
	case boolPlain:
		var b byte
		for i, v := range c.bools {
			if v {
				b |= 1 << (i % 8)
				c.minMax(1)
			} else {
				c.minMax(0)
			}
			if i%8 == 7 {
				dst, b = append(dst, b), 0
			}
		}
		if len(c.bools)%8 != 0 {
			dst = append(dst, b)
		}
		c.bools = c.bools[:0]
		return dst, format.Plain
	case dictString:
		maxIdx := int32(0)
		for _, i := range c.idx {
			maxIdx = max(maxIdx, i)
		}
		width := max(1, bits.Len32(uint32(maxIdx)))
		dst = append(dst, byte(width))
		dst = appendRuns(dst, c.idx, (width+7)/8)
		c.idx = c.idx[:0]
		return dst, format.RLEDictionary
	case optInt64:
		lenAt := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		c.nulls += int64(len(c.defs) - len(c.ints))
		dst = appendRuns(dst, c.defs, 1)
		binary.LittleEndian.PutUint32(dst[lenAt:], uint32(len(dst)-lenAt-4))
		c.stats(c.ints)
		for _, v := range c.ints {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
		}
		c.ints, c.defs = c.ints[:0], c.defs[:0]
		return dst, format.Plain
	}
	return dst, format.Plain
}

func (c *column) stats(vs []int64) {
	if len(vs) == 0 {
		return
	}
	if !c.hasMinMax {
		c.min, c.max, c.hasMinMax = vs[0], vs[0], true
	}
	lo, hi := c.min, c.max
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	c.min, c.max = lo, hi
}

func (c *column) minMax(v int64) {
	if !c.hasMinMax {
		c.min, c.max, c.hasMinMax = v, v, true
		return
	}
	c.min, c.max = min(c.min, v), max(c.max, v)
}

// appendRuns appends vs in the RLE/bit-packed hybrid encoding using only
// RLE runs (a run header, then the value in width bytes): the columns it
// encodes repeat in long runs.
func appendRuns(dst []byte, vs []int32, width int) []byte {
	for i := 0; i < len(vs); {
		j := i + 1
		for j < len(vs) && vs[j] == vs[i] {
			j++
		}
		dst = binary.AppendUvarint(dst, uint64(j-i)<<1)
		for k := 0; k < width; k++ {
			dst = append(dst, byte(uint32(vs[i])>>(8*k)))
		}
		i = j
	}
	return dst
}

// flushGroup writes the row group's column chunks and records its
// metadata.
func (s *ColumnarSink[T]) flushGroup() {
	s.flushPage()
	if s.inGroup == 0 || s.err != nil {
		return
	}
	rg := format.RowGroup{NumRows: int64(s.inGroup), FileOffset: s.off, Ordinal: int16(len(s.groups))}
	for i := range s.cols {
		c := &s.cols[i]
		start := s.off
		md := format.ColumnMetaData{Type: c.phys, PathInSchema: []string{c.name}, Codec: format.Zstd,
			NumValues: c.values, Statistics: format.Statistics{NullCount: c.nulls}}
		dataEnc := format.Plain
		total := c.uncompressed
		switch c.kind {
		case int32Delta, int64Delta:
			dataEnc = format.DeltaBinaryPacked
		case dictString:
			dataEnc = format.RLEDictionary
			s.scratch = s.scratch[:0]
			lo, hi := "", ""
			for k, v := range c.dictVals {
				s.scratch = binary.LittleEndian.AppendUint32(s.scratch, uint32(len(v)))
				s.scratch = append(s.scratch, v...)
				if k == 0 || v < lo {
					lo = v
				}
				if k == 0 || v > hi {
					hi = v
				}
			}
			if len(c.dictVals) > 0 {
				md.Statistics.MinValue, md.Statistics.MaxValue = []byte(lo), []byte(hi)
			}
			var dp bytes.Buffer
			hdr := format.PageHeader{Type: format.DictionaryPage, UncompressedPageSize: int32(len(s.scratch)),
				DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(len(c.dictVals)), Encoding: format.Plain})}
			n, err := s.appendPage(&dp, &hdr)
			if err != nil {
				s.err = err
				return
			}
			total += n + int64(len(s.scratch))
			md.DictionaryPageOffset = s.off
			s.write(dp.Bytes())
		}
		if c.hasMinMax {
			md.Statistics.MinValue, md.Statistics.MaxValue = plainValue(c.phys, c.min), plainValue(c.phys, c.max)
		}
		switch c.kind {
		case dictString: // a PLAIN dictionary page, indices in the RLE hybrid
			md.Encoding = []format.Encoding{format.Plain, format.RLE, format.RLEDictionary}
		case optInt64: // RLE definition levels
			md.Encoding = []format.Encoding{dataEnc, format.RLE}
		default:
			md.Encoding = []format.Encoding{dataEnc}
		}
		md.DataPageOffset = s.off
		s.write(c.pages.Bytes())
		md.TotalUncompressedSize = total
		md.TotalCompressedSize = s.off - start
		// file_offset is deprecated; writers leave it 0, as parquet-go does.
		rg.Columns = append(rg.Columns, format.ColumnChunk{MetaData: md})
		rg.TotalByteSize += total
		rg.TotalCompressedSize += md.TotalCompressedSize
		c.reset(s.pageRows)
	}
	s.groups = append(s.groups, rg)
	s.numRows += int64(s.inGroup)
	s.inGroup = 0
}

// plainValue is v in PLAIN encoding for a statistic of type t.
func plainValue(t format.Type, v int64) []byte {
	switch t {
	case format.Boolean:
		return []byte{byte(v)}
	case format.Int32:
		return binary.LittleEndian.AppendUint32(nil, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(nil, uint64(v))
}

// Close writes the last row group and the footer (with the metadata), and
// renames the file to its final name. On error the temporary file is
// removed.
func (s *ColumnarSink[T]) Close() error {
	if s.done {
		return nil
	}
	s.flushGroup()
	md := format.FileMetaData{Version: parquetFormatVersion, Schema: s.layout.elems, NumRows: s.numRows, RowGroups: s.groups,
		KeyValueMetadata: footerKV(s.schema, s.version, s.meta), CreatedBy: createdBy(s.version), ColumnOrders: s.layout.orders}
	if s.err == nil {
		var footer []byte
		footer, s.err = appendFooter(nil, &md)
		s.write(footer)
	}
	return finish(&s.done, s.f, s.bw, s.final, s.err)
}

// Abort removes the temporary file.
func (s *ColumnarSink[T]) Abort() { abort(&s.done, s.f) }

func (s *ColumnarSink[T]) fileSum() fileSum { return s.f.sum() }
