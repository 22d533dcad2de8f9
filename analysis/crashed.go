package analysis

import (
	"fmt"
	"path"
)

// CrashedCopies counts the partition copies whose broker did not shut
// them down cleanly (Verdict.Crashed: a .lock without
// .kafka_cleanshutdown, an index still preallocated) and the log dirs
// they lie in. Every command says it in the same one line (Line), and
// its JSON summary carries the two counts.
type CrashedCopies struct {
	Copies  int `json:"crashed_copies"`
	LogDirs int `json:"crashed_log_dirs"`
}

// CountCrashed counts the crashed copies among verdicts.
func CountCrashed(verdicts []Verdict) CrashedCopies {
	type logDir struct {
		input int32
		dir   string
	}
	var c CrashedCopies
	dirs := map[logDir]bool{}
	for i := range verdicts {
		v := &verdicts[i]
		if !v.Crashed {
			continue
		}
		c.Copies++
		if k := (logDir{v.Input, path.Dir(v.Dir)}); !dirs[k] {
			dirs[k] = true
			c.LogDirs++
		}
	}
	return c
}

// Line is the one line every command prints of the crashed copies, ""
// when there is none: such a copy's tail was being written, so its last
// batches and checkpoints may disagree, and a broker recovers its log
// from the recovery point at its next start.
func (c CrashedCopies) Line() string {
	switch {
	case c.Copies == 0:
		return ""
	case c.Copies == 1:
		return "1 partition copy was not shut down cleanly (crashed, or running when copied): " +
			"its tail may be torn, and a broker recovers its log at its next start"
	}
	dirs := "1 log dir"
	if c.LogDirs > 1 {
		dirs = fmt.Sprintf("%d log dirs", c.LogDirs)
	}
	return fmt.Sprintf("%d partition copies in %s were not shut down cleanly (crashed, or running when copied): "+
		"their tails may be torn, and a broker recovers their logs at its next start", c.Copies, dirs)
}
