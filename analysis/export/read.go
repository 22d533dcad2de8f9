package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// ReadMetadata returns the key-value metadata of a table's footer.
func ReadMetadata(path string) (map[string]string, error) {
	f, pf, err := openParquetFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	kv := map[string]string{}
	for _, p := range pf.Metadata().KeyValueMetadata {
		kv[p.Key] = p.Value
	}
	return kv, nil
}

func openParquetFile(path string) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		var pf *parquet.File
		if pf, err = parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true)); err == nil {
			return f, pf, nil
		}
	}
	f.Close()
	return nil, nil, fmt.Errorf("%s: %w", path, err)
}

// EachRow streams the rows of a Parquet file, decoding only T's columns.
func EachRow[T any](ctx context.Context, path string, fn func(*T) error) error {
	f, pf, err := openParquetFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	buf := make([]T, 1024)
	for {
		n, err := r.Read(buf)
		for i := range buf[:n] {
			if err := fn(&buf[i]); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}
