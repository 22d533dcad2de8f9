package check

import (
	"path"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/finding"
)

// crashedPhrase is what a verdict adds for a copy that was not shut down
// cleanly, so that every command that prints the verdict says it.
const crashedPhrase = "not shut down cleanly: crashed, or running when copied"

// crashSigns lists the evidence that the copy's broker did not close it:
// a .lock in its log dir without .kafka_cleanshutdown (a clean shutdown
// removes the lock and writes the marker), and an index of the copy
// still preallocated (a broker trims an index when it closes a segment).
// A log dir whose root was not read gives no evidence either way.
func (p *partition) crashSigns() []string {
	var signs []string
	ld := p.c.logDirs[logDirKey{p.key.input, p.logDirName()}]
	if ld != nil && ld.lock && !ld.clean {
		signs = append(signs, "the log dir holds .lock and no .kafka_cleanshutdown")
	}
	if ld != nil && ld.clean {
		return signs
	}
	for _, f := range p.findings {
		if f.Kind == finding.KindIndexZeroTail && !strings.HasSuffix(f.File, ".deleted") {
			signs = append(signs, "an index is still preallocated ("+f.File+")")
			break
		}
	}
	return signs
}

// logDirName is the log dir a partition dir belongs to (logDirOfPartition
// without creating it).
func (p *partition) logDirName() string {
	if p.key.dir == "." || p.key.dir == "" {
		return ".."
	}
	return path.Dir(p.key.dir)
}
