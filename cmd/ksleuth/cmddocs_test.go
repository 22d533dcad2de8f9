package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command reference in docs/commands/ (Markdown) and docs/man/ (roff)
// is made from the cobra tree, so it says what --help says. TestCommandDocs
// fails when a page is stale, missing or left over; go test ./cmd/ksleuth
// -run TestCommandDocs -update rewrites them.
const (
	commandDocsDir = "../../docs/commands"
	manDir         = "../../docs/man"
)

// docCommands is the tree in the order the pages link to it: the root
// first, then every available command depth first.
func docCommands(root *cobra.Command) []*cobra.Command {
	cmds := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() {
			cmds = append(cmds, docCommands(c)...)
		}
	}
	return cmds
}

// docName is the page name of a command: "ksleuth_scan" for Markdown,
// "ksleuth-scan" for a man page.
func docName(c *cobra.Command, sep string) string {
	return strings.ReplaceAll(c.CommandPath(), " ", sep)
}

// docFlags are a command's own flags, in name order, help last.
func docFlags(c *cobra.Command) []*pflag.Flag {
	var fl []*pflag.Flag
	c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			fl = append(fl, f)
		}
	})
	sort.Slice(fl, func(i, j int) bool { return fl[i].Name < fl[j].Name })
	return fl
}

// flagDefault is the default worth printing: none for a boolean that is
// off, an empty string or list, or a zero number.
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]":
		return ""
	}
	return f.DefValue
}

// descBlocks splits a Long text into paragraphs and indented blocks (lists
// and tables written with spaces), which both formats keep as they are.
func descBlocks(long string) (blocks []string, indented []bool) {
	for _, para := range strings.Split(strings.TrimSpace(long), "\n\n") {
		lines := strings.Split(para, "\n")
		start := 0
		for i := 0; i <= len(lines); i++ {
			if i == len(lines) || (i > start && isIndented(lines[i]) != isIndented(lines[start])) {
				if i > start {
					blocks = append(blocks, strings.Join(lines[start:i], "\n"))
					indented = append(indented, isIndented(lines[start]))
				}
				start = i
			}
		}
	}
	return blocks, indented
}

// isIndented tells a line of a list or a table from one of prose; the
// continuation lines of a "  - item" are indented too.
func isIndented(l string) bool { return strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") }

func markdownPage(c *cobra.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s.\n\n", c.CommandPath(), strings.TrimSuffix(c.Short, "."))
	fmt.Fprintf(&b, "## Usage\n\n```\n%s\n```\n", c.UseLine())
	if c.Long != "" {
		b.WriteString("\n## Description\n\n")
		blocks, indented := descBlocks(c.Long)
		for i, blk := range blocks {
			if i > 0 {
				b.WriteString("\n")
			}
			if indented[i] {
				fmt.Fprintf(&b, "```\n%s\n```\n", blk)
			} else {
				fmt.Fprintf(&b, "%s\n", blk)
			}
		}
	}
	if fl := docFlags(c); len(fl) > 0 {
		b.WriteString("\n## Flags\n\n| flag | default | meaning |\n|---|---|---|\n")
		for _, f := range fl {
			name, usage := pflag.UnquoteUsage(f)
			flag := "--" + f.Name
			if f.Shorthand != "" {
				flag = "-" + f.Shorthand + ", " + flag
			}
			if name != "" {
				flag += " " + name
			}
			def := flagDefault(f)
			if def != "" {
				def = "`" + def + "`"
			}
			usage = strings.Join(strings.Fields(usage), " ")
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", flag, def, strings.ReplaceAll(usage, "|", `\|`))
		}
	}
	var see []string
	if p := c.Parent(); p != nil {
		see = append(see, fmt.Sprintf("[%s](%s.md)", p.CommandPath(), docName(p, "_")))
	}
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() && !s.IsAdditionalHelpTopicCommand() {
			see = append(see, fmt.Sprintf("[%s](%s.md): %s", s.CommandPath(), docName(s, "_"), s.Short))
		}
	}
	if len(see) > 0 {
		b.WriteString("\n## See also\n\n")
		for _, s := range see {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	fmt.Fprintf(&b, "\n<!-- Made from the command tree (cmd/ksleuth TestCommandDocs -update); edit the help text there. -->\n")
	return b.String()
}

// roff escapes text for a man page: backslashes, hyphens (which roff
// would otherwise hyphenate or render as a dash), and a dot or quote that
// starts a line.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

func manPage(c *cobra.Command) string {
	var b strings.Builder
	name := docName(c, "-")
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"ksleuth\" \"ksleuth manual\"\n", strings.ToUpper(name))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(name), roff(strings.TrimSuffix(c.Short, ".")))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B %s\n%s\n", roff(c.CommandPath()), roff(strings.TrimSpace(strings.TrimPrefix(c.UseLine(), c.CommandPath()))))
	if c.Long != "" {
		b.WriteString(".SH DESCRIPTION\n")
		blocks, indented := descBlocks(c.Long)
		for i, blk := range blocks {
			if i > 0 {
				b.WriteString(".PP\n")
			}
			if indented[i] {
				fmt.Fprintf(&b, ".nf\n%s\n.fi\n", roff(blk))
			} else {
				fmt.Fprintf(&b, "%s\n", roff(blk))
			}
		}
	}
	if fl := docFlags(c); len(fl) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, f := range fl {
			name, usage := pflag.UnquoteUsage(f)
			b.WriteString(".TP\n")
			if f.Shorthand != "" {
				fmt.Fprintf(&b, `\fB\-%s\fR, `, f.Shorthand)
			}
			fmt.Fprintf(&b, `\fB\-\-%s\fR`, roff(f.Name))
			if name != "" {
				fmt.Fprintf(&b, ` \fI%s\fR`, roff(name))
			}
			b.WriteString("\n")
			usage = strings.Join(strings.Fields(usage), " ")
			if def := flagDefault(f); def != "" {
				usage += " (default: " + def + ")"
			}
			fmt.Fprintf(&b, "%s\n", roff(usage))
		}
	}
	var see []string
	if p := c.Parent(); p != nil {
		see = append(see, fmt.Sprintf(".BR %s (1)", docName(p, "-")))
	}
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() && !s.IsAdditionalHelpTopicCommand() {
			see = append(see, fmt.Sprintf(".BR %s (1)", docName(s, "-")))
		}
	}
	if len(see) > 0 {
		fmt.Fprintf(&b, ".SH SEE ALSO\n%s\n", strings.Join(see, ",\n"))
	}
	return b.String()
}

// commandDocs is every page by its path under the repository.
func commandDocs() map[string]string {
	pages := map[string]string{}
	for _, c := range docCommands(newRootCmd(defaultSettings())) {
		pages[filepath.Join(commandDocsDir, docName(c, "_")+".md")] = markdownPage(c)
		pages[filepath.Join(manDir, docName(c, "-")+".1")] = manPage(c)
	}
	return pages
}

func TestCommandDocs(t *testing.T) {
	t.Parallel()
	pages := commandDocs()
	for _, dir := range []string{commandDocsDir, manDir} {
		ents, err := os.ReadDir(dir)
		if err != nil && !(*update && os.IsNotExist(err)) {
			t.Fatalf("%v (go test ./cmd/ksleuth -run TestCommandDocs -update writes it)", err)
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			if _, ok := pages[p]; ok {
				continue
			}
			if *update {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s documents no command (go test ./cmd/ksleuth -run TestCommandDocs -update removes it)", p)
		}
	}
	for p, want := range pages {
		if *update {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Errorf("%s is stale or missing; go test ./cmd/ksleuth -run TestCommandDocs -update rewrites it", p)
		}
	}
}

// TestCommandDocsCover: every command and every flag has its page and its
// line, and a flag's help is in both formats.
func TestCommandDocsCover(t *testing.T) {
	t.Parallel()
	pages := commandDocs()
	for _, c := range docCommands(newRootCmd(defaultSettings())) {
		md := pages[filepath.Join(commandDocsDir, docName(c, "_")+".md")]
		man := pages[filepath.Join(manDir, docName(c, "-")+".1")]
		if !strings.Contains(md, "```\n"+c.UseLine()+"\n```") {
			t.Errorf("%s: the Markdown page lacks the usage line", c.CommandPath())
		}
		for _, f := range docFlags(c) {
			if !hasFlagRow(md, f.Name) {
				t.Errorf("%s: the Markdown page lacks --%s", c.CommandPath(), f.Name)
			}
			if !strings.Contains(man, `\fB\-\-`+roff(f.Name)+`\fR`) {
				t.Errorf("%s: the man page lacks --%s", c.CommandPath(), f.Name)
			}
		}
	}
	index, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range docCommands(newRootCmd(defaultSettings()))[1:] {
		if link := "(commands/" + docName(c, "_") + ".md)"; !strings.Contains(string(index), link) {
			t.Errorf("docs/commands.md does not link %s", link)
		}
	}
	if len(pages) < 2*8 {
		t.Errorf("%d pages for fewer commands than ksleuth has", len(pages))
	}
}

// hasFlagRow tells whether a Markdown page has the table row of a flag.
func hasFlagRow(md, name string) bool {
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| `") && (strings.Contains(l, "--"+name+"`") || strings.Contains(l, "--"+name+" ")) {
			return true
		}
	}
	return false
}
