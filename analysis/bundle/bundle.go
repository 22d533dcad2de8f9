// Package bundle writes an evidence bundle: the Kafka files of the inputs
// in one .tar.zst with a manifest, their payloads optionally replaced by
// keyed hashes (redacted), and compares what the analysis finds in a
// bundle with what it finds in the inputs it was made from (docs/bundle.md).
package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// Options are what a bundle holds and how.
type Options struct {
	// Topic keeps only the partitions whose topic matches (nil: all);
	// files outside partition dirs are always kept.
	Topic *regexp.Regexp
	// Secret, when set, redacts the payloads with it.
	Secret []byte
	// Version and Command go into the manifest; Now is its creation time.
	Version, Command string
	Now              time.Time
	// Force replaces an existing bundle.
	Force bool
	// Offsets, when set, keeps only the segments that can hold offsets
	// of the range, with their indexes (selection).
	Offsets *records.Range
	// Names, with Secret, replaces topic names (in partition dirs' names,
	// checkpoints and the manifest), header keys and the names in the
	// internal topics' records (group, member, client and transactional
	// ids, hosts, racks, the topics they name) by tokens; Result.Names
	// says which.
	Names bool
	// Window, when not always, keeps only the live segments that can
	// hold a record whose timestamp lies in it, with their indexes.
	Window records.Window
}

// ExistsError says that the output exists and Options.Force was not set.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string { return e.Path + " exists; it is left as it is" }

// internalTopics hold structure, not payloads: their records say which
// groups committed what, which transaction is where and what the cluster
// is; they are kept as they are, or under Options.Names rewritten with
// their names replaced (internal.go).
var internalTopics = map[string]bool{"__consumer_offsets": true, "__transaction_state": true, "__cluster_metadata": true}

// Result is what Write wrote.
type Result struct {
	Manifest *Manifest
	// InputBytes are the bytes of the files bundled, BundleBytes those
	// of the .tar.zst.
	InputBytes, BundleBytes int64
	// Names are the tokens of Options.Names and what they stand for.
	Names *NamesMap
	// InternalKept: under Options.Names, the records of the internal
	// topics that did not decode (damaged, or of a version this ksleuth
	// does not know) and so were kept as they are, names and all.
	InternalKept int64
}

// Write writes the bundle of inputs to out: written under a temporary
// name beside it and renamed when complete, never inside an input.
func Write(ctx context.Context, out string, inputs []*source.Input, o Options) (res *Result, err error) {
	if err := source.CheckOutput(out, source.OutputFile, inputs); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(out); err == nil && !o.Force {
		return nil, &ExistsError{Path: out}
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	cw := &countWriter{w: tmp}
	zw, err := zstd.NewWriter(cw, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	w := newWriter(tar.NewWriter(zw), o)
	w.inputs = len(inputs)
	defer w.close()
	for _, in := range inputs {
		if err := w.input(ctx, in); err != nil {
			return nil, err
		}
	}
	if err := w.manifest(); err != nil {
		return nil, err
	}
	if err := errors.Join(w.tw.Close(), zw.Close(), tmp.Sync(), tmp.Close()); err != nil {
		return nil, err
	}
	res = &Result{Manifest: w.man, BundleBytes: cw.n, InternalKept: w.kept}
	if w.names != nil {
		res.Names = w.names.names(w.man.SecretID)
	}
	for _, f := range w.man.Files {
		res.InputBytes += f.Size
	}
	return res, os.Rename(tmp.Name(), out)
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writer is one bundle being written.
type writer struct {
	tw     *tar.Writer
	o      Options
	man    *Manifest
	fill   *filler
	red    *segment.Redactor
	now    time.Time
	used   map[string]bool
	moves  map[string][]segment.Move // redacted segments' moves, by segKey
	idx    []pending                 // offset indexes waiting for their segment
	sha    hash.Hash
	data   []byte // the last segment read, its memory reused by the next
	sel    *selection
	prefix string
	in     int
	inputs int // how many inputs the bundle is made of
	names  *namer
	// rewrite rewrites the internal topics' records under names, those
	// of the topic internal; kept counts the records it kept as they were.
	rewrite  *segment.Redactor
	internal topics.Topic
	kept     int64
}

// pending is an offset index held until its segment is written.
type pending struct {
	e    *source.Entry
	data []byte
}

func newWriter(tw *tar.Writer, o Options) *writer {
	w := &writer{tw: tw, o: o, now: o.Now, used: map[string]bool{}, sha: sha256.New(),
		man: &Manifest{Format: 1, Version: o.Version, Command: o.Command, Created: o.Now.UTC(), Redacted: o.Secret != nil}}
	if o.Secret != nil {
		w.fill = newFiller(o.Secret)
		w.red = segment.NewRedactor(w.fill.fill)
		w.man.SecretID = secretID(o.Secret)
		if o.Names {
			w.names, w.man.Names = newNamer(o.Secret), true
			w.names.fill = w.fill.fill
			w.red.MapHeaderKeys(w.names.headerKey)
			w.rewrite = segment.NewRedactor(nil)
			w.rewrite.RewriteRecords(w.rewriteRecord)
		}
	}
	return w
}

func (w *writer) close() {
	if w.red != nil {
		w.red.Close()
	}
	if w.rewrite != nil {
		w.rewrite.Close()
	}
}

// input writes every Kafka file of one input under a dir of its own.
func (w *writer) input(ctx context.Context, in *source.Input) error {
	w.in = len(w.man.Inputs)
	w.prefix = w.prefixOf(in)
	w.man.Inputs = append(w.man.Inputs, Input{Path: in.Path, Prefix: w.prefix})
	w.moves, w.idx, w.sel = map[string][]segment.Move{}, nil, nil
	var empty []*source.Entry // partition dirs without a file: evidence too
	opts := source.Options{Topic: w.o.Topic, EmptyDir: func(e *source.Entry) { empty = append(empty, e) }}
	if in.Kind == source.Archive {
		if w.selects() {
			files, outside, err := archiveFiles(ctx, in, source.Options{Topic: w.o.Topic}, w.window())
			if err != nil {
				return err
			}
			w.sel = newSelection(w.o.Offsets, files, outside)
		}
		err := in.Stream(ctx, opts, func(e *source.Entry, r io.Reader) error { return w.entry(e, r) })
		if err != nil {
			return err
		}
	} else {
		files, dirs, err := in.List(opts)
		if err != nil {
			return err
		}
		empty = dirs
		if w.selects() {
			outside, err := outsideWindow(ctx, files, w.window())
			if err != nil {
				return err
			}
			w.sel = newSelection(w.o.Offsets, files, outside)
		}
		for _, e := range files {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := w.file(e); err != nil {
				return err
			}
		}
	}
	for _, e := range empty {
		h := w.header(path.Join(w.prefix, w.rel(e))+"/", 0)
		h.Typeflag, h.Mode = tar.TypeDir, 0o755
		if err := w.tw.WriteHeader(h); err != nil {
			return err
		}
	}
	for _, p := range w.idx {
		moves := w.moves[segKey(p.e)]
		data := segment.RemapOffsetIndex(p.data, func(pos int64) int64 { return segment.MapPosition(moves, pos) })
		if err := w.put(p.e, data, int64(len(p.data)), hashOf(p.data), func(f *File) { f.Redacted, f.Index = true, true }); err != nil {
			return err
		}
	}
	return nil
}

// selects reports whether the options leave segments out.
func (w *writer) selects() bool { return w.o.Offsets != nil || !w.window().IsAlways() }

// window is the time window of the options; the zero Window is Always.
func (w *writer) window() records.Window {
	if w.o.Window == (records.Window{}) {
		return records.Always
	}
	return w.o.Window
}

// prefixOf names the dir of the bundle an input's files go under: the
// input's own name (for a file, its dir's, so that its partition dir is
// kept), made unique; of several inputs, numbered in their order, so
// that the bundle lists them in the order they were given, which is the
// order that picks between equal copies of a partition.
func (w *writer) prefixOf(in *source.Input) string {
	name := filepath.Base(in.Abs)
	switch {
	case in.Reader != nil:
		name = "stdin"
	case in.Kind == source.File:
		name = filepath.Base(filepath.Dir(in.Abs))
	case in.Kind == source.Archive:
		for _, ext := range []string{".tar.gz", ".tgz", ".tar.zst", ".tzst", ".tar"} {
			name = strings.TrimSuffix(name, ext)
		}
	}
	if name == "" || name == "." || name == "/" || name == ".." {
		name = "input"
	}
	if w.inputs > 1 {
		name = fmt.Sprintf("%0*d-%s", len(fmt.Sprint(w.inputs)), w.in+1, name)
	}
	p := name
	for i := 2; w.used[p]; i++ {
		p = fmt.Sprintf("%s-%d", name, i)
	}
	w.used[p] = true
	if w.names != nil && in.Kind == source.File {
		if pd, ok := source.ParsePartitionDir(p); ok {
			p = renamePath(p, pd.Topic, w.names.topic)
		}
	}
	return p
}

// rel is the name in the bundle of an entry's path relative to its
// input: with its partition dir renamed under Options.Names.
func (w *writer) rel(e *source.Entry) string {
	if w.names == nil || e.Partition == nil {
		return e.Path
	}
	return renamePath(e.Path, e.Partition.Topic, w.names.topic)
}

// file opens a dir or file input's entry and writes it.
func (w *writer) file(e *source.Entry) error {
	if !w.wanted(e) {
		return nil
	}
	f, err := e.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	e.Size = fi.Size()
	return w.entry(e, f)
}

// wanted: the Kafka files ksleuth reads; links, special files and
// anything else are left out.
func (w *writer) wanted(e *source.Entry) bool {
	return e.Skipped == "" && e.Err == nil && !strings.HasSuffix(e.Path, "/") && e.Name.Kind != snapshot.KindUnknown && w.sel.keeps(e)
}

// redactor returns what rewrites an entry's segments: the Redactor of
// payloads, or under names that of the internal topics' records; nil when
// they are kept as they are.
func (w *writer) redactor(e *source.Entry) *segment.Redactor {
	switch {
	case w.red == nil || e.Partition == nil:
		return nil
	case !internalTopics[e.Partition.Topic]:
		return w.red
	case w.rewrite != nil:
		w.internal = topics.TopicOf(e.Partition.Topic)
		return w.rewrite
	}
	return nil
}

// rewriteRecord rewrites one record of the internal topic w.internal
// with its names replaced; one that does not decode is kept, and counted.
func (w *writer) rewriteRecord(key, value []byte, control bool) ([]byte, []byte) {
	k, v, err := topics.Rewrite(w.internal, key, value, control, w.names)
	if err != nil {
		w.kept++
	}
	return k, v
}

// rewritten are the kinds of files a Redactor rewrites: segments, their
// offset indexes, and the KRaft snapshots, which are record batches too.
var rewritten = map[snapshot.Kind]bool{snapshot.KindLog: true, snapshot.KindIndex: true, snapshot.KindKRaftSnapshot: true}

// entry writes one file read from r: a segment or offset index to be
// redacted is read whole, anything else is copied as it is read.
func (w *writer) entry(e *source.Entry, r io.Reader) error {
	if !w.wanted(e) {
		return nil
	}
	if red := w.redactor(e); red != nil && rewritten[e.Name.Kind] {
		data, err := readSize(w.data[:0], r, e.Size)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		if e.Name.Kind == snapshot.KindIndex {
			w.idx = append(w.idx, pending{e: e, data: bytes.Clone(data)})
			return nil
		}
		w.data = data // reused by the next segment
		out, moves := red.Segment(e.Path, data)
		w.moves[segKey(e)] = moves
		return w.put(e, out, int64(len(data)), hashOf(data), func(f *File) { f.Redacted, f.Moves = true, moves })
	}
	if w.names != nil && checkpoints[e.Name.Kind] {
		data, err := readSize(nil, r, e.Size)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		out, moves := w.names.checkpoint(data)
		return w.put(e, out, e.Size, hashOf(data), func(f *File) { f.Redacted, f.Moves = true, moves })
	}
	return w.copy(e, r)
}

// checkpoints are the files that name topics: the four offset
// checkpoints.
var checkpoints = map[snapshot.Kind]bool{snapshot.KindRecoveryPointCheckpoint: true, snapshot.KindReplicationCheckpoint: true,
	snapshot.KindLogStartCheckpoint: true, snapshot.KindCleanerCheckpoint: true}

// segKey pairs a segment with its offset index: same dir, same base
// offset, same suffix (a .deleted segment's index is .deleted too).
func segKey(e *source.Entry) string {
	return fmt.Sprintf("%s/%d%s", path.Dir(e.Path), e.Name.Offset, e.Name.Suffix)
}

// readSize reads an entry of size bytes whole, into buf's memory when
// it is large enough.
func readSize(buf []byte, r io.Reader, size int64) ([]byte, error) {
	if int64(cap(buf)) < size {
		buf = make([]byte, 0, size)
	}
	bw := bytesWriter{b: buf[:0]}
	n, err := io.CopyN(&bw, r, size)
	if err == io.EOF {
		err = fmt.Errorf("%d bytes where %d were listed", n, size)
	}
	return bw.b, err
}

type bytesWriter struct{ b []byte }

func (b *bytesWriter) Write(p []byte) (int, error) {
	b.b = append(b.b, p...)
	return len(p), nil
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// copy writes an entry as it is, hashing it on the way.
func (w *writer) copy(e *source.Entry, r io.Reader) error {
	name := path.Join(w.prefix, w.rel(e))
	if err := w.tw.WriteHeader(w.header(name, e.Size)); err != nil {
		return err
	}
	w.sha.Reset()
	n, err := io.CopyN(io.MultiWriter(w.tw, w.sha), r, e.Size)
	if err == io.EOF {
		err = fmt.Errorf("%s: %d bytes where %d were listed", e.Path, n, e.Size)
	}
	if err != nil {
		return err
	}
	sum := hex.EncodeToString(w.sha.Sum(nil))
	w.man.Files = append(w.man.Files, File{Input: w.in, Path: w.rel(e), Bundle: name, Size: e.Size, SHA256: sum, BundleSize: e.Size, BundleSHA256: sum})
	return nil
}

// put writes data as the entry of e, whose original had size bytes of
// hash sum; set fills in what the manifest says of the rewrite.
func (w *writer) put(e *source.Entry, data []byte, size int64, sum string, set func(*File)) error {
	name := path.Join(w.prefix, w.rel(e))
	if err := w.tw.WriteHeader(w.header(name, int64(len(data)))); err != nil {
		return err
	}
	if _, err := w.tw.Write(data); err != nil {
		return err
	}
	f := File{Input: w.in, Path: w.rel(e), Bundle: name, Size: size, SHA256: sum, BundleSize: int64(len(data)), BundleSHA256: hashOf(data)}
	set(&f)
	w.man.Files = append(w.man.Files, f)
	return nil
}

func (w *writer) header(name string, size int64) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: w.now, Format: tar.FormatPAX}
}

// manifest writes the manifest as the last entry.
func (w *writer) manifest() error {
	if w.names != nil {
		// The command line and the inputs' paths may name topics too.
		w.man.Command = w.names.forward(w.man.Command)
		for i := range w.man.Inputs {
			w.man.Inputs[i].Path = w.names.forward(w.man.Inputs[i].Path)
		}
	}
	b, err := json.MarshalIndent(w.man, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := w.tw.WriteHeader(w.header(ManifestName, int64(len(b)))); err != nil {
		return err
	}
	_, err = w.tw.Write(b)
	return err
}
