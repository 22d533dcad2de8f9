package text

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// TerminalWidth is the width the text tables are fitted to unless --wide:
// the columns least needed are left out first, so that names stay whole
// while they can, and only then are names shortened with an ellipsis.
const TerminalWidth = 120

// WideHint follows the columns a table left out: how to have them
// printed, in the words of the command line that prints the table
// ("; --wide prints them").
var WideHint = ""

// MinNameWidth is as far as a name column is shortened: past it a name no
// longer tells topics or paths apart, and the table may stay wider.
const MinNameWidth = 16

// Cut says how a column's cells are shortened to fit TerminalWidth.
type Cut int

const (
	KeepWhole Cut = iota // numbers, times, kinds: never shortened
	CutMiddle            // names and paths: both ends kept, where similar names differ
	CutEnd               // free text: the start kept
)

// Column is one column of a Table: its heading and how it is fitted.
type Column struct {
	Head  string
	Right bool // aligned right, as numbers are
	Cut   Cut
	// drop > 0 marks a Column that may be left out when the table is
	// still too wide once names are shortened: the highest first. The
	// table then says which it left out.
	Drop int
	// dates marks a Column of TimeRange cells: when all share one
	// date, it moves into the heading.
	Dates bool
}

// Table is a table of text cells printed in aligned columns, two
// spaces apart, each line after indent.
type Table struct {
	Cols   []Column
	Rows   [][]string
	Indent string
	NoHead bool
}

// fit makes the table fit TerminalWidth, in the order that loses least:
// a date common to a time column moves into its heading, droppable
// columns are left out while names whole would not fit (long names, such
// as Kafka Streams' topics, often differ only in the middle and tell rows
// apart only whole), and then names are shortened (see widths). It
// returns the headings of the columns left out.
func (t *Table) fit() (dropped []string) {
	if t.total(t.widths(false)) > TerminalWidth {
		t.factorDates()
	}
	for t.total(t.widths(true)) > TerminalWidth && t.dropOne(&dropped) {
	}
	for t.total(t.widths(false)) > TerminalWidth {
		if !t.dropOne(&dropped) {
			break
		}
	}
	return dropped
}

// dropOne leaves out the droppable column of the highest Drop, adding its
// heading to dropped; false when none is left.
func (t *Table) dropOne(dropped *[]string) bool {
	j := -1
	for i, c := range t.Cols {
		if c.Drop > 0 && (j < 0 || c.Drop > t.Cols[j].Drop) {
			j = i
		}
	}
	if j < 0 {
		return false
	}
	*dropped = append(*dropped, t.Cols[j].Head)
	t.Cols = append(t.Cols[:j:j], t.Cols[j+1:]...)
	for r := range t.Rows {
		if j < len(t.Rows[r]) {
			t.Rows[r] = append(t.Rows[r][:j:j], t.Rows[r][j+1:]...)
		}
	}
	return true
}

func (t *Table) total(w []int) int {
	n := width(t.Indent) + 2*(len(w)-1)
	for _, x := range w {
		n += x
	}
	return n
}

// factorDates moves the date out of a time column whose every range
// starts and ends on the same date: "2023-11-15 11:26:35..11:26:44"
// becomes "11:26:35..11:26:44" under "TIME (UTC, 2023-11-15)".
func (t *Table) factorDates() {
	for i, c := range t.Cols {
		if !c.Dates {
			continue
		}
		date := ""
		ok := true
		for _, r := range t.Rows {
			if i >= len(r) || r[i] == "-" {
				continue
			}
			d, rest, found := strings.Cut(r[i], " ")
			if !found || len(d) != len("2006-01-02") || strings.Contains(rest, " ") || (date != "" && d != date) {
				ok = false
				break
			}
			date = d
		}
		if !ok || date == "" {
			continue
		}
		for _, r := range t.Rows {
			if i < len(r) && r[i] != "-" {
				r[i] = strings.TrimPrefix(r[i], date+" ")
			}
		}
		t.Cols[i].Head = strings.TrimSuffix(c.Head, ")") + ", " + date + ")"
	}
}

func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

func width(s string) int { return utf8.RuneCountInString(s) }

// widths are the columns' widths: their widest cell, less what the name
// columns give up (the widest first) for the table to fit TerminalWidth,
// unless wide.
func (t *Table) widths(wide bool) []int {
	w := make([]int, len(t.Cols))
	for i, c := range t.Cols {
		if !t.NoHead {
			w[i] = width(c.Head)
		}
		for _, r := range t.Rows {
			if i < len(r) {
				w[i] = max(w[i], width(r[i]))
			}
		}
	}
	if wide {
		return w
	}
	total := t.total(w)
	for total > TerminalWidth {
		j := -1
		for i, c := range t.Cols {
			floor := max(MinNameWidth, width(c.Head))
			if c.Cut != KeepWhole && w[i] > floor && (j < 0 || w[i] > w[j]) {
				j = i
			}
		}
		if j < 0 {
			break // only columns that are never shortened are left
		}
		w[j]--
		total--
	}
	return w
}

// shorten fits s into n columns with an ellipsis.
func shorten(s string, n int, how Cut) string {
	if width(s) <= n || how == KeepWhole || n < 2 {
		return s
	}
	r := []rune(s)
	if how == CutEnd {
		return string(r[:n-1]) + "…"
	}
	tail := (n - 1) / 2
	return string(r[:n-1-tail]) + "…" + string(r[len(r)-tail:])
}

// Write prints the table; wide prints every cell and column whole.
func (t *Table) Write(w io.Writer, wide bool) error {
	var dropped []string
	if !wide {
		dropped = t.fit()
	}
	ws := t.widths(wide)
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString(t.Indent)
		for i, c := range t.Cols {
			cell := ""
			if i < len(cells) {
				cell = shorten(cells[i], ws[i], c.Cut)
			}
			pad := strings.Repeat(" ", max(0, ws[i]-width(cell)))
			switch {
			case c.Right:
				b.WriteString(pad + cell)
			case i < len(t.Cols)-1:
				b.WriteString(cell + pad)
			default:
				b.WriteString(cell) // no trailing blanks
			}
			if i < len(t.Cols)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
	}
	if !t.NoHead {
		heads := make([]string, len(t.Cols))
		for i, c := range t.Cols {
			heads[i] = c.Head
		}
		line(heads)
	}
	for _, r := range t.Rows {
		line(r)
	}
	if len(dropped) > 0 {
		fmt.Fprintf(&b, "%s(left out to fit %d columns: %s%s)\n", t.Indent, TerminalWidth, strings.Join(dropped, ", "), WideHint)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TimeRange is a time range in UTC: whole with --wide, otherwise
// without the T and Z and with the date of its end left out when it is
// that of its start.
func TimeRange(first, last *int64, wide bool) string {
	if first == nil && last == nil {
		return "-"
	}
	if wide || first == nil || last == nil {
		return Time(first) + ".." + Time(last)
	}
	a, z := time.UnixMilli(*first).UTC(), time.UnixMilli(*last).UTC()
	end := z.Format("2006-01-02 15:04:05")
	if a.Format(time.DateOnly) == z.Format(time.DateOnly) {
		end = z.Format("15:04:05")
	}
	return a.Format("2006-01-02 15:04:05") + ".." + end
}
