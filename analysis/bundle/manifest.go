package bundle

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"time"

	"github.com/ksleuth/ksleuth/segment"
)

// ManifestName is the bundle's last entry: what every other entry was.
const ManifestName = "ksleuth-bundle.json"

// Manifest describes a bundle: which files of which inputs it holds, each
// with its original size and SHA-256 and where its bytes went.
type Manifest struct {
	Format   int       `json:"format"`
	Version  string    `json:"ksleuth_version"`
	Command  string    `json:"command"`
	Created  time.Time `json:"created"`
	Redacted bool      `json:"redacted"`
	// SecretID names the secret a redacted bundle was made with (an HMAC
	// of a fixed text): the sender can tell which secret goes with which
	// bundle, and nobody can find the secret from it.
	SecretID string `json:"secret_id,omitempty"`
	// Names: topic names and header keys were replaced by tokens, which
	// only the sender's names map turns back into names.
	Names  bool    `json:"names_redacted,omitempty"`
	Inputs []Input `json:"inputs"`
	Files  []File  `json:"files"`
}

// Input is one PATH the bundle was made from, and the dir of the bundle
// its files are under.
type Input struct {
	Path   string `json:"path"`
	Prefix string `json:"prefix"`
}

// File is one file of an input and its entry in the bundle.
type File struct {
	Input  int    `json:"input"`
	Path   string `json:"path"`   // relative to the input, as every finding names it
	Bundle string `json:"bundle"` // the entry's name in the bundle
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// BundleSize and BundleSHA256 are those of the entry, which differ
	// from the original's when it was redacted.
	BundleSize   int64  `json:"bundle_size"`
	BundleSHA256 string `json:"bundle_sha256"`
	Redacted     bool   `json:"redacted,omitempty"`
	// Moves are the batches of a redacted segment whose length changed,
	// or the topic names of a checkpoint's entries replaced by tokens of
	// another length; Position maps a byte through them.
	Moves []segment.Move `json:"moves,omitempty"`
	// Index: an offset index whose positions were rewritten for the
	// moves of its segment.
	Index bool `json:"index_rewritten,omitempty"`
}

// Position is the byte of the bundle's entry that holds byte pos of the
// original file.
func (f *File) Position(pos int64) int64 { return segment.MapPosition(f.Moves, pos) }

// Dir is the dir of the bundle that holds what the input's dir rel (as a
// finding or verdict names it, relative to the input) held.
func (m *Manifest) Dir(input int, rel string) string {
	if input < 0 || input >= len(m.Inputs) {
		return rel
	}
	return path.Join(m.Inputs[input].Prefix, rel)
}

// Lookup returns the file of input whose path relative to it is rel.
func (m *Manifest) Lookup(input int, rel string) *File {
	for i := range m.Files {
		if f := &m.Files[i]; f.Input == input && f.Path == rel {
			return f
		}
	}
	return nil
}

// decodeManifest reads a manifest, refusing a format it does not know.
func decodeManifest(r io.Reader) (*Manifest, error) {
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(r, 1<<30)).Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	if m.Format != 1 {
		return nil, fmt.Errorf("%s: format %d; this ksleuth reads format 1", ManifestName, m.Format)
	}
	return &m, nil
}
