package export

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// An output dir (scan --out) holds one complete table set. A run writes
// its set into a hidden staging dir beside the output dir, in the same
// parent, and puts it in place in one step when it completes:
//
//	PARENT/.OUT.ksleuth-lock          flock'ed for the whole run; names its pid
//	PARENT/.OUT.ksleuth-stage-RUNID   the new set while it is written
//	PARENT/.OUT.ksleuth-old-RUNID     the old set, only between the two
//	                                  renames of the fallback protocol
//
// On Linux the staging dir and the output dir are swapped with
// renameat2(RENAME_EXCHANGE), and the old set, now under the staging
// name, is removed. Where that call is missing, the output dir is renamed
// to the old name and the staging dir to the output name; a kill between
// the two leaves no output dir and one old dir, which the next run renames
// back before anything else. Either way a kill at any moment leaves the
// old complete set or the new one under the output name; what else it
// leaves is removed by the next run, under the lock.

// Hidden names beside the output dir.
const (
	lockSuffix  = ".ksleuth-lock"
	stageInfix  = ".ksleuth-stage-"
	oldInfix    = ".ksleuth-old-"
	tmpInfix    = ".tmp-" // files and dataset dirs under their temporary names
	runIDMetaKy = "ksleuth.run_id"
)

// MetaRunID is the footer key holding the run id: the same in every table
// of a set, and in its manifest.
const MetaRunID = runIDMetaKy

var errNoExchange = errors.New("export: no atomic directory exchange on this system")

// exchangeDirs is exchange, replaced by a test of the fallback protocol.
var exchangeDirs = exchange

// BusyError is a lock held by another run.
type BusyError struct {
	Path string // what the other run writes
	PID  int    // 0 when the lock file does not name it (yet)
}

func (e *BusyError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("another ksleuth run (pid %d) is writing %s; wait for it to end, or choose another path", e.PID, e.Path)
	}
	return fmt.Sprintf("another ksleuth run is writing %s; wait for it to end, or choose another path", e.Path)
}

// RefusedError is an output dir a run will not replace. Its message names
// no command-line flag: Why tells the caller which option would change
// the outcome.
type RefusedError struct {
	Why  Refusal
	Dir  string // the output dir
	Name string // the table it holds (HoldsTables), or the file that is not one (Foreign)
	msg  string
}

func (e *RefusedError) Error() string { return e.msg }

// Refusal says why an output dir is refused.
type Refusal int

const (
	// NotUsable: not a directory, or a mount point.
	NotUsable Refusal = iota
	// HoldsTables: it holds tables, and the run was not told to replace
	// them.
	HoldsTables
	// Foreign: it holds a file that is not a ksleuth table; another
	// output dir must be chosen, or the file moved away.
	Foreign
	// Exists: an output file exists, and the run was not told to
	// replace it (OpenFile).
	Exists
)

// Lock is an exclusive lock on a path that a run writes: the file
// .NAME.ksleuth-lock beside it. The file is left in place when the lock is
// released: removing it would let a third run lock a new file while a
// second still waits on the old one.
type Lock struct{ f *os.File }

// LockPath locks path (which need not exist; its parent must) for this
// process, or returns a *BusyError naming the process that holds it.
func LockPath(path string) (*Lock, error) {
	lp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+lockSuffix)
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	busy, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if busy {
		var b [32]byte
		n, _ := f.ReadAt(b[:], 0)
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
		return nil, &BusyError{Path: path, PID: pid}
	}
	// The pid is for the message of a refused run; a failure to write it
	// costs only that.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Release lets the next run in.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// RemoveTemps removes the hidden temporary files .NAME.tmp-* that killed
// runs left beside path, and returns their names; call it with path locked.
func RemoveTemps(path string) ([]string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "."+base+tmpInfix) && e.Type().IsRegular() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return removed, err
			}
			removed = append(removed, filepath.Join(dir, e.Name()))
		}
	}
	return removed, nil
}

// Out is an output dir locked for one run.
type Out struct {
	// Dir is the output dir (absolute, symlinks resolved).
	Dir string
	// RunID names the run in every footer and in the manifest.
	RunID string
	// Removed lists the leftovers of killed runs that OpenOut removed, and
	// Restored the old set it renamed back to Dir (the fallback protocol
	// killed between its renames), for the caller to report.
	Removed  []string
	Restored string
	parent   string
	base     string
	lock     *Lock
}

// OpenOut locks the output dir dir for a run, repairs and removes what
// killed runs left, and checks that the run may replace what dir holds:
// only a table set of an earlier run (and only with force). A dir that
// holds anything ksleuth did not write is refused, --force or not: the
// set is replaced as a whole, and a user's files are never deleted.
func OpenOut(dir string, force bool) (*Out, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r // the swap acts on the dir, not on a link to it
	}
	o := &Out{Dir: abs, parent: filepath.Dir(abs), base: filepath.Base(abs), RunID: newRunID()}
	if err := os.MkdirAll(o.parent, 0o755); err != nil {
		return nil, err
	}
	if o.lock, err = LockPath(abs); err != nil {
		return nil, err
	}
	if err := o.prepare(force); err != nil {
		o.Close()
		return nil, err
	}
	// The staging dir is made now, so that a parent the run cannot write
	// fails before the scan rather than after it.
	if err := os.Mkdir(o.stageDir(), 0o755); err != nil {
		o.Close()
		return nil, fmt.Errorf("the new set is staged beside %s: %w", o.Dir, err)
	}
	return o, nil
}

// Close removes the staging dir if no set was committed from it (a run
// that failed before it wrote its tables) and releases the lock.
func (o *Out) Close() {
	os.RemoveAll(o.stageDir())
	o.lock.Release()
}

func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(b[:])
}

func (o *Out) prepare(force bool) error {
	ents, err := os.ReadDir(o.parent)
	if err != nil {
		return err
	}
	var stages, olds []string
	for _, e := range ents {
		switch n := e.Name(); {
		case strings.HasPrefix(n, "."+o.base+stageInfix):
			stages = append(stages, n)
		case strings.HasPrefix(n, "."+o.base+oldInfix):
			olds = append(olds, n)
		}
	}
	sort.Strings(olds)
	if _, err := os.Lstat(o.Dir); errors.Is(err, fs.ErrNotExist) && len(olds) > 0 {
		// The fallback protocol was killed between its renames: the newest
		// old set is the set of the output dir.
		last := filepath.Join(o.parent, olds[len(olds)-1])
		if err := os.Rename(last, o.Dir); err != nil {
			return err
		}
		o.Restored = last
		olds = olds[:len(olds)-1]
	}
	for _, n := range append(stages, olds...) {
		p := filepath.Join(o.parent, n)
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		o.Removed = append(o.Removed, p)
	}
	fi, err := os.Lstat(o.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return &RefusedError{Dir: o.Dir, msg: fmt.Sprintf("%s is not a directory", o.Dir)}
	}
	if pi, err := os.Stat(o.parent); err == nil && !sameDevice(fi, pi) {
		return &RefusedError{Dir: o.Dir, msg: fmt.Sprintf("%s is a mount point; a set is replaced by renames beside it, within one file system: choose a dir inside it", o.Dir)}
	}
	temps, err := removeDirTemps(o.Dir)
	o.Removed = append(o.Removed, temps...)
	if err != nil {
		return err
	}
	tables, err := o.contents()
	if err != nil {
		return err
	}
	if len(tables) > 0 && !force {
		return &RefusedError{Why: HoldsTables, Dir: o.Dir, Name: tables[0],
			msg: fmt.Sprintf("%s already holds %s, and replacing the tables was not asked for", o.Dir, tables[0])}
	}
	return nil
}

// removeDirTemps removes the temporary files and dataset dirs (.NAME.tmp-*)
// that killed runs of earlier versions left in the output dir itself.
func removeDirTemps(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, ".") || !strings.Contains(n, tmpInfix) || !ownedName(tableOf(n)) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
			return removed, err
		}
		removed = append(removed, filepath.Join(dir, n))
	}
	return removed, nil
}

// tableOf is the final name of a temporary name .NAME.tmp-XXXX.
func tableOf(tmp string) string {
	n, _, _ := strings.Cut(strings.TrimPrefix(tmp, "."), tmpInfix)
	return n
}

// ownedName reports whether a name in the output dir is one ksleuth writes.
func ownedName(n string) bool { return n == Manifest || slices.Contains(Tables, n) }

// contents lists the ksleuth tables in the output dir, or refuses the dir
// if it holds anything else.
func (o *Out) contents() ([]string, error) {
	ents, err := os.ReadDir(o.Dir)
	if err != nil {
		return nil, err
	}
	var tables []string
	for _, e := range ents {
		n := e.Name()
		p := filepath.Join(o.Dir, n)
		switch {
		case n == Records && e.IsDir():
			if err := onlyParts(p); err != nil {
				return nil, err
			}
		case ownedName(n) && e.Type().IsRegular():
		default:
			return nil, &RefusedError{Why: Foreign, Dir: o.Dir, Name: n, msg: fmt.Sprintf("%s holds %s, which is not a ksleuth table; %s", o.Dir, n, replaceRule)}
		}
		tables = append(tables, n)
	}
	sort.Strings(tables)
	return tables, nil
}

// onlyParts refuses a records dir holding anything but dirs and Parquet
// files.
func onlyParts(dir string) error {
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && (!e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".parquet")) {
			return &RefusedError{Why: Foreign, Dir: dir, Name: p, msg: fmt.Sprintf("%s is not a ksleuth table; %s", p, replaceRule)}
		}
		return nil
	})
}

// stageDir is where this run writes its set.
func (o *Out) stageDir() string { return filepath.Join(o.parent, "."+o.base+stageInfix+o.RunID) }

// replaceWith puts the complete set in stage under the output dir's name
// and removes the old set. It checks once more that the output dir holds
// nothing but tables: a file dropped into it during the run is not
// deleted with the old set.
func (o *Out) replaceWith(stage string) error {
	if _, err := os.Lstat(o.Dir); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(stage, o.Dir)
	}
	if _, err := o.contents(); err != nil {
		return err
	}
	err := exchangeDirs(stage, o.Dir)
	old := stage
	if err != nil {
		// No exchange here (another system, or a file system without
		// it): the two-rename protocol that prepare repairs.
		old = filepath.Join(o.parent, "."+o.base+oldInfix+o.RunID)
		if err := os.Rename(o.Dir, old); err != nil {
			return err
		}
		if err := os.Rename(stage, o.Dir); err != nil {
			return err
		}
	}
	return os.RemoveAll(old)
}

// replaceRule ends the refusal of an output dir holding a file ksleuth did
// not write; it names the output dir by its meaning, and the command line
// names its flag (RefusedError).
const replaceRule = "a scan replaces the whole dir and never deletes files it did not write: move it away, or choose another output dir"
