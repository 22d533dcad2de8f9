package export

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// ColumnKind is the physical type a column is read as by EachColumns.
type ColumnKind int

const (
	KindInt32 ColumnKind = iota
	KindInt64
	KindBool
	KindBytes // BYTE_ARRAY: strings
)

// ReadColumn names a top-level column of a table and the type it must have.
type ReadColumn struct {
	Name string
	Kind ColumnKind
}

// ErrColumnLayout is returned by EachColumns, before any block, when a
// table lacks one of the columns or holds it as another type: a table of
// another layout, for the caller to read row by row instead.
var ErrColumnLayout = errors.New("not the expected column layout")

// ColumnBlock is a block of consecutive rows of the chosen columns, valid
// only during the callback: column c of row i through the typed accessor
// of c's kind.
type ColumnBlock struct {
	Rows int
	vals [][]parquet.Value
}

func (b *ColumnBlock) Int32(c, i int) int32  { return b.vals[c][i].Int32() }
func (b *ColumnBlock) Int64(c, i int) int64  { return b.vals[c][i].Int64() }
func (b *ColumnBlock) Bool(c, i int) bool    { return b.vals[c][i].Boolean() }
func (b *ColumnBlock) Bytes(c, i int) []byte { return b.vals[c][i].ByteArray() }
func (b *ColumnBlock) Null(c, i int) bool    { return b.vals[c][i].IsNull() }

// columnBlockRows is the rows of one block: enough to amortise the
// per-block work, few enough that a block's values stay in cache.
const columnBlockRows = 4096

// EachColumns streams the chosen columns of a Parquet file, a block of
// rows at a time, decoding only their pages. It is the reading path for a
// table of millions of rows of which a few columns are needed: parquet-go's
// generic reader (EachRow) rebuilds every row through reflection and a
// per-value conversion, several times the cost of decoding the pages
// (BenchmarkEachColumns). Only flat columns are supported.
func EachColumns(ctx context.Context, path string, cols []ReadColumn, fn func(*ColumnBlock) error) error {
	f, pf, err := openParquetFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	idx := make([]int, len(cols))
	for i, c := range cols {
		leaf, ok := pf.Schema().Lookup(c.Name)
		if !ok || leaf.MaxRepetitionLevel != 0 || !kindIs(leaf.Node.Type().Kind(), c.Kind) {
			return fmt.Errorf("%s: column %s: %w", path, c.Name, ErrColumnLayout)
		}
		idx[i] = leaf.ColumnIndex
	}
	b := &ColumnBlock{vals: make([][]parquet.Value, len(cols))}
	for i := range b.vals {
		b.vals[i] = make([]parquet.Value, columnBlockRows)
	}
	for _, rg := range pf.RowGroups() {
		if err := eachBlock(ctx, rg, idx, cols, b, fn); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

func kindIs(k parquet.Kind, want ColumnKind) bool {
	switch want {
	case KindInt32:
		return k == parquet.Int32
	case KindInt64:
		return k == parquet.Int64
	case KindBool:
		return k == parquet.Boolean
	default:
		return k == parquet.ByteArray
	}
}

// eachBlock reads one row group's chosen columns in lockstep.
func eachBlock(ctx context.Context, rg parquet.RowGroup, idx []int, cols []ReadColumn, b *ColumnBlock, fn func(*ColumnBlock) error) error {
	chunks := rg.ColumnChunks()
	cur := make([]colCursor, len(idx))
	for i, ci := range idx {
		cur[i].pages = chunks[ci].Pages()
		cur[i].bytes = cols[i].Kind == KindBytes
	}
	defer func() {
		for i := range cur {
			cur[i].pages.Close()
		}
	}()
	for {
		rows := columnBlockRows
		for i := range cur {
			if !cur[i].bytes {
				continue
			}
			ok, err := cur[i].next()
			if err != nil {
				return err
			}
			if ok {
				rows = min(rows, int(cur[i].rem))
			}
		}
		n := -1
		for i := range cur {
			m, err := cur[i].fill(b.vals[i][:rows])
			if err != nil {
				return err
			}
			if n >= 0 && m != n {
				return fmt.Errorf("column %s holds %d values where %s holds %d", cols[i].Name, m, cols[0].Name, n)
			}
			n = m
		}
		if n <= 0 {
			return nil
		}
		b.Rows = n
		if err := fn(b); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// colCursor reads the values of one column chunk across its pages.
type colCursor struct {
	pages parquet.Pages
	vals  parquet.ValueReader
	rem   int64 // values left in the current page
	// bytes: the values are byte arrays, which may point into their
	// page's buffer, valid only until the column's next page is read; a
	// block never reads past the current page of such a column.
	bytes bool
}

// next makes sure c has a page with values left; false at the end of the
// chunk.
func (c *colCursor) next() (bool, error) {
	for c.vals == nil || c.rem <= 0 {
		p, err := c.pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		c.vals, c.rem = p.Values(), p.NumValues()
	}
	return true, nil
}

// fill reads values until buf is full or the chunk ends.
func (c *colCursor) fill(buf []parquet.Value) (int, error) {
	n := 0
	for n < len(buf) {
		if ok, err := c.next(); !ok || err != nil {
			return n, err
		}
		m, err := c.vals.ReadValues(buf[n:min(len(buf), n+int(c.rem))])
		n += m
		c.rem -= int64(m)
		if errors.Is(err, io.EOF) {
			c.vals, c.rem = nil, 0
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, fmt.Errorf("page of %d values left read none", c.rem)
		}
	}
	return n, nil
}

// RowCount returns the rows of a Parquet file, from its footer.
func RowCount(path string) (int64, error) {
	f, pf, err := openParquetFile(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return pf.NumRows(), nil
}
