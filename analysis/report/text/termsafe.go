package text

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Names in the evidence are anybody's bytes: a group id, a client id, a
// header key or a directory in a hostile archive can hold an escape
// sequence that clears the screen, moves the cursor over an earlier line
// or retitles the terminal, so that a finding is hidden from whoever reads
// the text. Text output therefore shows every control character as a
// visible escape (\x1b, \r, \u009b); newlines and tabs, which the text
// itself uses, stay. JSON lines are left alone: encoding/json escapes the
// C0 controls itself, and a script reads the exact value.

// SafeWriter writes text with the control characters made visible to W;
// Raw turns it into a plain writer (JSON lines).
type SafeWriter struct {
	W   io.Writer
	Raw bool
	buf []byte
}

func (t *SafeWriter) Write(p []byte) (int, error) {
	if t.Raw || !needsEscape(p) {
		return t.W.Write(p)
	}
	t.buf = escapeControls(t.buf[:0], p)
	if _, err := t.W.Write(t.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// needsEscape reports whether p holds a control character other than a
// newline or a tab: a C0 control, DEL, or a C1 control encoded in UTF-8.
func needsEscape(p []byte) bool {
	for i, c := range p {
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			return true
		}
	}
	return false
}

// escapeControls appends p to dst with each control character written as
// its escape.
func escapeControls(dst, p []byte) []byte {
	for len(p) > 0 {
		c := p[0]
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			dst = fmt.Appendf(dst, `\x%02x`, c)
			p = p[1:]
		case c == 0xc2 && len(p) > 1 && p[1] >= 0x80 && p[1] <= 0x9f:
			r, _ := utf8.DecodeRune(p)
			dst = fmt.Appendf(dst, `\u%04x`, r)
			p = p[2:]
		default:
			dst = append(dst, c)
			p = p[1:]
		}
	}
	return dst
}
