package source

import (
	"os"
	"path/filepath"

	"github.com/ksleuth/ksleuth/snapshot"
)

// LaterSegment is the base offset of the first live segment (a .log file
// that is not .deleted, .cleaned, .swap or a leftover) named above the
// segment file in file's own directory, or -1 when there is none. Only
// the names of the directory are read, never a file.
//
// A segment given on its own is judged by it: the broker appends only to
// the live segment of the highest base offset, so with a later one beside
// it the file is a rolled segment, finished when the broker rolled it. An
// error says the directory could not be listed, so its place is unknown.
func LaterSegment(file string) (int64, error) {
	self := snapshot.ParseName(filepath.Base(file))
	es, err := os.ReadDir(filepath.Dir(file))
	if err != nil {
		return -1, err
	}
	next := int64(-1)
	for _, e := range es {
		if e.IsDir() {
			continue
		}
		n := snapshot.ParseName(e.Name())
		if n.Kind == snapshot.KindLog && n.Suffix == "" && !n.Leftover && n.Offset > self.Offset && (next < 0 || n.Offset < next) {
			next = n.Offset
		}
	}
	return next, nil
}
