package text

import (
	"io"
	"strings"
)

// Wrap prints s on lines of at most TerminalWidth columns broken at
// spaces, the first after indent and the others after more. A word wider
// than a line of its own (a long path) is broken after a slash where one
// fits, else at the width, so that no line passes TerminalWidth.
func Wrap(w io.Writer, s, indent, more string) {
	var b strings.Builder
	lead, line := indent, indent
	// Only blanks break a line: a name may hold other white space (a
	// carriage return, which the terminal-safe writer escapes later).
	for word := range strings.SplitSeq(s, " ") {
		if word == "" {
			continue
		}
		if line != lead && width(line)+1+width(word) > TerminalWidth {
			b.WriteString(line + "\n")
			lead, line = more, more
		}
		if line != lead {
			line += " "
		}
		for width(line)+width(word) > TerminalWidth && width(more) < TerminalWidth-1 {
			head, tail := breakWord(word, TerminalWidth-width(line))
			if head == "" { // nothing fits after what the line holds
				b.WriteString(strings.TrimRight(line, " ") + "\n")
				lead, line = more, more
				continue
			}
			b.WriteString(line + head + "\n")
			lead, line, word = more, more, tail
		}
		line += word
	}
	if line != lead {
		b.WriteString(line + "\n")
	}
	io.WriteString(w, b.String())
}

// breakWord splits word so that its head fits n columns: after the last
// slash that fits, unless that leaves less than half of the line used,
// else at n; the head is "" when n leaves no room.
func breakWord(word string, n int) (head, tail string) {
	r := []rune(word)
	if n <= 0 || len(r) <= n {
		return "", word
	}
	cut := n
	if i := strings.LastIndex(string(r[:n]), "/"); i >= 0 {
		cut = len([]rune(string(r[:n])[:i+1]))
	}
	if cut < n/2 {
		cut = n
	}
	return string(r[:cut]), string(r[cut:])
}
