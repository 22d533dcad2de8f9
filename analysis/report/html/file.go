package html

import (
	"io"

	"github.com/ksleuth/ksleuth/analysis/export"
)

// WriteFile writes the page of m to path under a temporary name, renamed
// over path when it is complete: a page cut short never looks whole.
func WriteFile(path string, m *Model) error {
	return export.WriteFileAtomic(path, func(w io.Writer) error { return Write(w, m) })
}
