package topics

import (
	"errors"
	"io"
	"sort"

	"github.com/ksleuth/ksleuth/segment"
)

// Stats counts the records of an internal topic by type.
type Stats struct {
	Records    int
	Tombstones int
	// Types counts records by Decoded.Type.
	Types map[string]int
	// Versions counts records by "Type key vK value vV" (or "Type vV" for
	// metadata records).
	Versions map[string]int
}

func (s *Stats) add(d *Decoded) {
	if s.Types == nil {
		s.Types, s.Versions = map[string]int{}, map[string]int{}
	}
	s.Records++
	if d.Tombstone {
		s.Tombstones++
	}
	s.Types[d.Type]++
	s.Versions[d.versionLabel()]++
}

func (d *Decoded) versionLabel() string {
	switch {
	case d.Metadata != nil || d.Control != nil || d.Remote != nil:
		return d.Type + " v" + itoa(int(d.ValueVersion))
	case d.Tombstone:
		return d.Type + " key v" + itoa(int(d.KeyVersion)) + " tombstone"
	}
	return d.Type + " key v" + itoa(int(d.KeyVersion)) + " value v" + itoa(int(d.ValueVersion))
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// Merge adds o's counts to s.
func (s *Stats) Merge(o Stats) {
	if s.Types == nil {
		s.Types, s.Versions = map[string]int{}, map[string]int{}
	}
	s.Records += o.Records
	s.Tombstones += o.Tombstones
	for k, v := range o.Types {
		s.Types[k] += v
	}
	for k, v := range o.Versions {
		s.Versions[k] += v
	}
}

// TypeNames lists the counted types, most frequent first.
func (s *Stats) TypeNames() []string {
	names := make([]string, 0, len(s.Types))
	for k := range s.Types {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if s.Types[names[i]] != s.Types[names[j]] {
			return s.Types[names[i]] > s.Types[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}

// Visit is called for each decoded record with its batch; both are views
// valid only during the call. d is never nil; a record that failed to
// decode is also reported as a Finding.
type Visit func(b *segment.Batch, r *segment.Record, d *Decoded)

// ReadSegment reads one .log segment or .checkpoint snapshot of topic t
// from r, decodes every record, and calls visit (which may be nil) for
// each. Damage to the segment itself comes back as findings wrapping the
// *segment.CorruptionError; the error is an I/O failure only.
func ReadSegment(path string, r io.Reader, t Topic, visit Visit) (Stats, []*Finding, error) {
	var st Stats
	var fs []*Finding
	sr := segment.NewReader(r, segment.Options{Path: path})
	defer sr.Close()
	for sr.Next() {
		if f := sr.Finding(); f != nil {
			fs = append(fs, &Finding{Path: path, Position: f.Offset, Offset: f.BaseOffset, Err: f})
			continue
		}
		b := sr.Batch()
		it := sr.Records()
		for it.Next() {
			rec := it.Record()
			d, err := Decode(t, rec)
			if err != nil {
				fs = append(fs, &Finding{Path: path, Position: b.Position, Offset: rec.Offset, Err: err})
			}
			st.add(d)
			if visit != nil {
				visit(b, rec, d)
			}
		}
		if err := it.Err(); err != nil {
			var ce *segment.CorruptionError
			if !errors.As(err, &ce) {
				return st, fs, err
			}
			fs = append(fs, &Finding{Path: path, Position: ce.Offset, Offset: ce.BaseOffset, Err: ce})
		}
	}
	return st, fs, sr.Err()
}
