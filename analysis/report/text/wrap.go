package text

import (
	"io"
	"strings"
)

// Wrap prints s on lines of at most TerminalWidth columns broken at
// spaces, the first after indent and the others after more; a word
// longer than a line (a path) stays whole on a line of its own.
func Wrap(w io.Writer, s, indent, more string) {
	var b strings.Builder
	lead, line := indent, indent
	for word := range strings.FieldsSeq(s) {
		if line != lead && width(line)+1+width(word) > TerminalWidth {
			b.WriteString(line + "\n")
			lead, line = more, more
		}
		if line != lead {
			line += " "
		}
		line += word
	}
	if line != lead {
		b.WriteString(line + "\n")
	}
	io.WriteString(w, b.String())
}
