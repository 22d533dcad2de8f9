package export

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Footer metadata keys every table of a run carries, beside MetaSources
// and MetaFingerprint.
const (
	MetaVersion     = "ksleuth.version"
	MetaCommandLine = "ksleuth.command_line"
	MetaInputs      = "ksleuth.inputs"    // JSON array: path, abs and kind of each input
	MetaRunStart    = "ksleuth.run_start" // RFC 3339, UTC
	MetaRunEnd      = "ksleuth.run_end"   // set when the run completes (SetRunEnd)
)

// RunInput is one input as a footer records it.
type RunInput struct {
	Path, Abs, Kind string
}

// RunFooter is what the footer of every table of one run records.
type RunFooter struct {
	Version     string
	CommandLine string
	Inputs      []RunInput
	// Sources name each input, by index (MetaSources).
	Sources []string
	// Fingerprint says how records.fingerprint was computed
	// (MetaFingerprint); it is stored as JSON.
	Fingerprint any
	Start       time.Time
}

// NewRunMetadata is the footer metadata of a run's tables; its end is
// set by SetRunEnd when the run completes.
func NewRunMetadata(r RunFooter) *Metadata {
	meta := &Metadata{}
	meta.Set(MetaVersion, r.Version)
	meta.Set(MetaCommandLine, r.CommandLine)
	roots := make([]map[string]string, len(r.Inputs))
	for i, in := range r.Inputs {
		roots[i] = map[string]string{"path": in.Path, "abs": in.Abs, "kind": in.Kind}
	}
	rootsJSON, _ := json.Marshal(roots)
	meta.Set(MetaInputs, string(rootsJSON))
	sourcesJSON, _ := json.Marshal(r.Sources)
	meta.Set(MetaSources, string(sourcesJSON))
	fpJSON, _ := json.Marshal(r.Fingerprint)
	meta.Set(MetaFingerprint, string(fpJSON))
	meta.Set(MetaRunStart, r.Start.UTC().Format(time.RFC3339Nano))
	meta.Set(MetaRunEnd, "")
	return meta
}

// SetRunEnd records the end of the run, now.
func (m *Metadata) SetRunEnd() { m.Set(MetaRunEnd, time.Now().UTC().Format(time.RFC3339Nano)) }

// WriteFileAtomic writes path through a temporary file in the same
// directory, renamed over path only when fn and the close succeeded, so
// that an output that is not complete never looks complete.
func WriteFileAtomic(path string, fn func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	if err = fn(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// HashFiles starts computing the SHA-256 of each path ("" is skipped and
// left "") while the caller works, and returns a func that waits for the
// hex digests.
func HashFiles(ctx context.Context, paths []string) func() ([]string, error) {
	out := make([]string, len(paths))
	done := make(chan error, 1)
	go func() {
		for i, p := range paths {
			if p == "" {
				continue
			}
			sum, err := SHA256File(ctx, p)
			if err != nil {
				done <- err
				return
			}
			out[i] = sum
		}
		done <- nil
	}()
	return func() ([]string, error) { return out, <-done }
}

// SHA256File is the hex SHA-256 of a file's content; it stops when ctx
// is cancelled.
func SHA256File(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
