package export

import (
	"fmt"
	"os"
)

// OpenFile locks the output file path for a run (a second run writing it
// is refused with a *BusyError) and removes the temporary files that
// killed runs left beside it, returning their names for the caller to
// report. A directory at path is refused, and so is an existing file
// unless replace: a *RefusedError of Why NotUsable or Exists, its Dir the
// path. Write the file with WriteFileAtomic, then release the lock.
func OpenFile(path string, replace bool) (*Lock, []string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, nil, &RefusedError{Why: NotUsable, Dir: path, msg: fmt.Sprintf("%s is a directory", path)}
	} else if err == nil && !replace {
		return nil, nil, &RefusedError{Why: Exists, Dir: path, msg: fmt.Sprintf("%s exists, and replacing it was not asked for", path)}
	}
	lock, err := LockPath(path)
	if err != nil {
		return nil, nil, err
	}
	removed, err := RemoveTemps(path)
	if err != nil {
		lock.Release()
		return nil, removed, err
	}
	return lock, removed, nil
}
