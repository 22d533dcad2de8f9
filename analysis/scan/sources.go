package scan

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Sources names each input for the source column: the path as given
// (cleaned, slash-separated), plus "#broker=N" when the input is a log dir
// whose meta.properties gives a broker.id or node.id. Archives are named
// by their path alone: their meta.properties may come after the records.
func Sources(inputs []*source.Input) []string {
	out := make([]string, 0, len(inputs))
	for _, in := range inputs {
		name := filepath.ToSlash(filepath.Clean(in.Path))
		if in.Kind == source.Dir {
			if id, ok := brokerOf(filepath.Join(in.Abs, "meta.properties")); ok {
				name += fmt.Sprintf("#broker=%d", id)
			}
		}
		out = append(out, name)
	}
	return out
}

// brokerOf reads the broker or node id of a log dir's meta.properties
// (a few lines; anything larger or unreadable gives no id).
func brokerOf(path string) (int32, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil || len(data) > maxStateBytes {
		return 0, false
	}
	m, _ := snapshot.ParseMetaProperties(path, data)
	if m == nil || m.ID() < 0 {
		return 0, false
	}
	return m.ID(), true
}
