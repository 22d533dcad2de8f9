package export

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Manifest is the file written last into a table set, naming every file
// of the set with its row count, size and SHA-256: a set is complete when
// its manifest is there and every file matches it (CheckSet).
const Manifest = "manifest.json"

// SetManifest is the content of manifest.json.
type SetManifest struct {
	Type    string          `json:"type"` // "manifest"
	RunID   string          `json:"run_id"`
	Version string          `json:"version"`
	Tables  []ManifestTable `json:"tables"`
}

// ManifestTable is one table: a Parquet file, or a dataset dir of parts.
type ManifestTable struct {
	Name  string         `json:"name"`
	Rows  int64          `json:"rows"`
	Files []ManifestFile `json:"files"`
}

// ManifestFile is one file of a table, by its slash-separated path in the
// set's dir.
type ManifestFile struct {
	Path   string `json:"path"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// writeManifest writes m into dir under a temporary name and renames it,
// so that its presence means every table before it is complete.
func writeManifest(dir string, m *SetManifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	f, err := tempFile(filepath.Join(dir, Manifest))
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, Manifest))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// CheckSet reads the manifest of the table set in dir and checks the set
// against it: every file it names is there, with its size, SHA-256, row
// count and the run id in its footer, and no other file is. It returns
// the manifest of a complete set, and an error naming the first mismatch
// otherwise.
func CheckSet(dir string) (*SetManifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, Manifest))
	if err != nil {
		return nil, fmt.Errorf("not a complete table set: %w", err)
	}
	var m SetManifest
	if err := json.Unmarshal(b, &m); err != nil || m.Type != "manifest" || m.RunID == "" {
		return nil, fmt.Errorf("%s: not a ksleuth manifest (%v)", filepath.Join(dir, Manifest), err)
	}
	listed := map[string]bool{Manifest: true}
	for _, t := range m.Tables {
		var rows int64
		for _, mf := range t.Files {
			if !filepath.IsLocal(filepath.FromSlash(mf.Path)) || listed[mf.Path] {
				return nil, fmt.Errorf("manifest: bad or repeated path %q", mf.Path)
			}
			listed[mf.Path] = true
			if err := checkFile(dir, m.RunID, mf); err != nil {
				return nil, err
			}
			rows += mf.Rows
		}
		if rows != t.Rows {
			return nil, fmt.Errorf("%s: %d rows in its files, %d in the manifest", t.Name, rows, t.Rows)
		}
	}
	var extra []string
	err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !listed[filepath.ToSlash(rel)] {
			extra = append(extra, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, fmt.Errorf("%s: %d file(s) not in the manifest, e.g. %s", dir, len(extra), extra[0])
	}
	return &m, nil
}

func checkFile(dir, runID string, mf ManifestFile) error {
	p := filepath.Join(dir, filepath.FromSlash(mf.Path))
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if n != mf.Bytes || hex.EncodeToString(h.Sum(nil)) != mf.SHA256 {
		return fmt.Errorf("%s: %d bytes and SHA-256 %s, the manifest says %d and %s", p, n, hex.EncodeToString(h.Sum(nil)), mf.Bytes, mf.SHA256)
	}
	pf, pq, err := openParquetFile(p)
	if err != nil {
		return err
	}
	defer pf.Close()
	if pq.NumRows() != mf.Rows {
		return fmt.Errorf("%s: %d rows, the manifest says %d", p, pq.NumRows(), mf.Rows)
	}
	if v, _ := pq.Lookup(MetaRunID); v != runID {
		return fmt.Errorf("%s: run id %q, the manifest's is %q", p, v, runID)
	}
	return nil
}
