package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The docs show commands run on the embedded sample with the output the
// binary printed. TestDocExamples runs every such example again and
// compares, so a change of wording, a new column or a new class cannot
// leave a page telling an older story; -update pastes the binary's output
// into the pages.
//
// An example is a line "$ ksleuth ARGS [| FILTER] [> /dev/null]" inside a
// fenced block, its output the lines up to the next "$ " line or the
// fence. Only examples whose inputs are all in the repository's testdata
// (and that write no files) are run; the others need a setup the page
// describes, and the real-broker and engine tests check their facts.

// docExample is one example of a page.
type docExample struct {
	page    string
	line    int      // of the "$ ksleuth" line, from 1
	args    []string // after "ksleuth"
	filter  []string // a pipe into grep, head or cut, as words
	discard bool     // "> /dev/null": the output shown is stderr's
	want    []string
}

// docPages are the pages whose examples are checked.
func docPages(t *testing.T) []string {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(pages, "README.md")
}

func TestDocExamples(t *testing.T) {
	t.Chdir("../..") // the examples name their inputs from the repository's root
	ran := 0
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		exs := docExamples(page, lines)
		var stale []docExample
		var got [][]string
		for _, ex := range exs {
			out := runDocExample(t, ex)
			ran++
			if !elidedMatch(ex.want, out) {
				stale = append(stale, ex)
				got = append(got, out)
			}
		}
		if len(stale) == 0 {
			continue
		}
		if !*update {
			for i, ex := range stale {
				t.Errorf("%s:%d: ksleuth %s prints other text than the page shows (go test ./cmd/ksleuth -run TestDocExamples "+
					"-update pastes it):\n%s", ex.page, ex.line, strings.Join(ex.args, " "), lineDiff(ex.want, got[i]))
			}
			continue
		}
		var paste []docExample
		var pasteGot [][]string
		for i, ex := range stale {
			if elided(ex.want) {
				t.Errorf("%s:%d: ksleuth %s: the page shortens its output with …; paste it by hand:\n%s", ex.page, ex.line,
					strings.Join(ex.args, " "), lineDiff(ex.want, got[i]))
				continue
			}
			paste, pasteGot = append(paste, ex), append(pasteGot, got[i])
		}
		if err := os.WriteFile(page, []byte(strings.Join(pasteExamples(lines, paste, pasteGot), "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("ran %d examples of the docs", ran)
	if ran < 10 {
		t.Errorf("ran %d examples of the docs: the pages show more on the sample than that", ran)
	}
}

// elided tells whether a page shortens an example's output with "…".
func elided(want []string) bool {
	for _, w := range want {
		if strings.Contains(w, "…") {
			return true
		}
	}
	return false
}

// elidedMatch tells whether got is what want shows: a line "…" stands for
// any number of lines, and "…" within a line for any text.
func elidedMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "…" {
		for i := 0; i <= len(got); i++ {
			if elidedMatch(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatch(want[0], got[0]) && elidedMatch(want[1:], got[1:])
}

// lineMatch matches one line, "…" standing for any text.
func lineMatch(want, got string) bool {
	parts := strings.Split(want, "…")
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}

// pasteExamples returns the page's lines with each stale example's output
// replaced by what the binary printed.
func pasteExamples(lines []string, stale []docExample, got [][]string) []string {
	var out []string
	next := 0
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if next < len(stale) && stale[next].line == i+1 {
			out = append(out, got[next]...)
			i += len(stale[next].want)
			next++
		}
	}
	return out
}

// docExamples finds the runnable examples of a page.
func docExamples(page string, lines []string) []docExample {
	var exs []docExample
	inBlock := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock || !strings.HasPrefix(l, "$ ksleuth ") {
			continue
		}
		ex, ok := parseDocExample(l)
		if !ok {
			continue
		}
		ex.page, ex.line = page, i+1
		for j := i + 1; j < len(lines) && !strings.HasPrefix(lines[j], "```") && !strings.HasPrefix(lines[j], "$ "); j++ {
			ex.want = append(ex.want, lines[j])
		}
		exs = append(exs, ex)
	}
	return exs
}

// parseDocExample splits an example's command line; ok is false when it
// is not one to run here.
func parseDocExample(l string) (docExample, bool) {
	words, ok := shellWords(strings.TrimPrefix(l, "$ ksleuth "))
	if !ok {
		return docExample{}, false
	}
	var ex docExample
	sample := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == ">" && i+1 < len(words) && words[i+1] == "/dev/null" && i+2 == len(words):
			ex.discard = true
			i++
		case w == "|":
			ex.filter = words[i+1:]
			if !knownFilter(ex.filter) {
				return docExample{}, false
			}
			i = len(words)
		case w == "#":
			i = len(words)
		case strings.HasPrefix(w, "testdata/"):
			sample = true
			ex.args = append(ex.args, w)
		case strings.HasPrefix(w, "/") || strings.HasPrefix(w, "..") || w == "--out" || w == "--html" || w == ">" || w == "<":
			return docExample{}, false // a file outside the repository, or one written
		default:
			ex.args = append(ex.args, w)
		}
	}
	return ex, sample
}

// knownFilter tells whether a pipe's command is one the test applies.
func knownFilter(f []string) bool {
	if len(f) < 2 || strings.Contains(strings.Join(f, " "), "|") {
		return false
	}
	switch f[0] {
	case "grep":
		return len(f) == 2 || len(f) == 3 && (f[1] == "-E" || f[1] == "-c")
	case "head":
		return len(f) == 2 && strings.HasPrefix(f[1], "-")
	case "cut":
		return len(f) == 2 && strings.HasPrefix(f[1], "-c1-")
	}
	return false
}

// shellWords splits a command line as a POSIX shell would for the forms
// the docs use: words, single and double quotes, backslash escapes.
func shellWords(s string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 || strings.ContainsAny(s[i+1:i+1+j], `$\`+"`") {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			i++
			inWord = true
		case c == '$' || c == '`' || c == ';' || c == '&' || c == '*' || c == '(':
			return nil, false
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// runDocExample runs an example in-process and returns the lines it
// shows.
func runDocExample(t *testing.T, ex docExample) []string {
	t.Helper()
	stdout, stderr, _ := runCLI(t, ex.args...)
	out := stdout + stderr
	if ex.discard {
		out = stderr
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if out == "" {
		lines = nil
	}
	return applyFilter(t, ex, lines)
}

// applyFilter applies an example's grep, head or cut to its lines.
func applyFilter(t *testing.T, ex docExample, lines []string) []string {
	f := ex.filter
	if len(f) == 0 {
		return lines
	}
	switch f[0] {
	case "grep":
		re, err := regexp.Compile(f[len(f)-1])
		if err != nil {
			t.Fatalf("%s:%d: %v", ex.page, ex.line, err)
		}
		var kept []string
		for _, l := range lines {
			if re.MatchString(l) {
				kept = append(kept, l)
			}
		}
		if f[1] == "-c" {
			return []string{strconv.Itoa(len(kept))}
		}
		return kept
	case "head":
		n, err := strconv.Atoi(strings.TrimPrefix(f[1], "-"))
		if err != nil {
			t.Fatalf("%s:%d: %v", ex.page, ex.line, err)
		}
		return lines[:min(n, len(lines))]
	case "cut":
		n, err := strconv.Atoi(strings.TrimPrefix(f[1], "-c1-"))
		if err != nil {
			t.Fatalf("%s:%d: %v", ex.page, ex.line, err)
		}
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = l[:min(n, len(l))] // cut -c counts bytes
		}
		return out
	}
	return lines
}

// lineDiff shows the first lines where two texts part.
func lineDiff(want, got []string) string {
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(want), len(got)) && shown < 6; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d\n  page:   %q\n  binary: %q\n", i+1, w, g)
			shown++
		}
	}
	if len(want) != len(got) {
		fmt.Fprintf(&b, "the page shows %d lines, the binary prints %d\n", len(want), len(got))
	}
	return b.String()
}
