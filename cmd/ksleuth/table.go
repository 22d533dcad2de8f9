package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// terminalWidth is the width the text tables are fitted to unless --wide:
// names that would make a table wider are shortened with an ellipsis.
const terminalWidth = 120

// minNameWidth is as far as a name column is shortened: past it a name no
// longer tells topics or paths apart, and the table may stay wider.
const minNameWidth = 16

// cut says how a column's cells are shortened to fit terminalWidth.
type cut int

const (
	keepWhole cut = iota // numbers, times, kinds: never shortened
	cutMiddle            // names and paths: both ends kept, where similar names differ
	cutEnd               // free text: the start kept
)

type column struct {
	head  string
	right bool // aligned right, as numbers are
	cut   cut
	// drop > 0 marks a column that may be left out when the table is
	// still too wide once names are shortened: the highest first. The
	// table then says which it left out.
	drop int
	// dates marks a column of fmtTimeRange cells: when all share one
	// date, it moves into the heading.
	dates bool
}

// textTable is a table of text cells printed in aligned columns, two
// spaces apart, each line after indent.
type textTable struct {
	cols   []column
	rows   [][]string
	indent string
	noHead bool
}

// fit makes the table fit terminalWidth, in the order that loses least:
// a date common to a time column moves into its heading, names are
// shortened (see widths), and then droppable columns are left out. It
// returns the headings of the columns left out.
func (t *textTable) fit() (dropped []string) {
	if t.total(t.widths(false)) > terminalWidth {
		t.factorDates()
	}
	for t.total(t.widths(false)) > terminalWidth {
		j := -1
		for i, c := range t.cols {
			if c.drop > 0 && (j < 0 || c.drop > t.cols[j].drop) {
				j = i
			}
		}
		if j < 0 {
			break
		}
		dropped = append(dropped, t.cols[j].head)
		t.cols = append(t.cols[:j:j], t.cols[j+1:]...)
		for r := range t.rows {
			if j < len(t.rows[r]) {
				t.rows[r] = append(t.rows[r][:j:j], t.rows[r][j+1:]...)
			}
		}
	}
	return dropped
}

func (t *textTable) total(w []int) int {
	n := width(t.indent) + 2*(len(w)-1)
	for _, x := range w {
		n += x
	}
	return n
}

// factorDates moves the date out of a time column whose every range
// starts and ends on the same date: "2023-11-15 11:26:35..11:26:44"
// becomes "11:26:35..11:26:44" under "TIME (UTC, 2023-11-15)".
func (t *textTable) factorDates() {
	for i, c := range t.cols {
		if !c.dates {
			continue
		}
		date := ""
		ok := true
		for _, r := range t.rows {
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
		for _, r := range t.rows {
			if i < len(r) && r[i] != "-" {
				r[i] = strings.TrimPrefix(r[i], date+" ")
			}
		}
		t.cols[i].head = strings.TrimSuffix(c.head, ")") + ", " + date + ")"
	}
}

func (t *textTable) add(cells ...string) { t.rows = append(t.rows, cells) }

func width(s string) int { return utf8.RuneCountInString(s) }

// widths are the columns' widths: their widest cell, less what the name
// columns give up (the widest first) for the table to fit terminalWidth,
// unless wide.
func (t *textTable) widths(wide bool) []int {
	w := make([]int, len(t.cols))
	for i, c := range t.cols {
		if !t.noHead {
			w[i] = width(c.head)
		}
		for _, r := range t.rows {
			if i < len(r) {
				w[i] = max(w[i], width(r[i]))
			}
		}
	}
	if wide {
		return w
	}
	total := t.total(w)
	for total > terminalWidth {
		j := -1
		for i, c := range t.cols {
			floor := max(minNameWidth, width(c.head))
			if c.cut != keepWhole && w[i] > floor && (j < 0 || w[i] > w[j]) {
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
func shorten(s string, n int, how cut) string {
	if width(s) <= n || how == keepWhole || n < 2 {
		return s
	}
	r := []rune(s)
	if how == cutEnd {
		return string(r[:n-1]) + "…"
	}
	tail := (n - 1) / 2
	return string(r[:n-1-tail]) + "…" + string(r[len(r)-tail:])
}

// write prints the table; wide prints every cell and column whole.
func (t *textTable) write(w io.Writer, wide bool) error {
	var dropped []string
	if !wide {
		dropped = t.fit()
	}
	ws := t.widths(wide)
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString(t.indent)
		for i, c := range t.cols {
			cell := ""
			if i < len(cells) {
				cell = shorten(cells[i], ws[i], c.cut)
			}
			pad := strings.Repeat(" ", max(0, ws[i]-width(cell)))
			switch {
			case c.right:
				b.WriteString(pad + cell)
			case i < len(t.cols)-1:
				b.WriteString(cell + pad)
			default:
				b.WriteString(cell) // no trailing blanks
			}
			if i < len(t.cols)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
	}
	if !t.noHead {
		heads := make([]string, len(t.cols))
		for i, c := range t.cols {
			heads[i] = c.head
		}
		line(heads)
	}
	for _, r := range t.rows {
		line(r)
	}
	if len(dropped) > 0 {
		fmt.Fprintf(&b, "%s(left out to fit %d columns: %s; --wide prints them)\n", t.indent, terminalWidth, strings.Join(dropped, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func addWideFlag(f *pflag.FlagSet, wide *bool) {
	f.BoolVar(wide, "wide", false, "print tables with every column and every name whole, however wide (default: fit 120 columns)")
}

// fmtTimeRange is a time range in UTC: whole with --wide, otherwise
// without the T and Z and with the date of its end left out when it is
// that of its start.
func fmtTimeRange(first, last *int64, wide bool) string {
	if first == nil && last == nil {
		return "-"
	}
	if wide || first == nil || last == nil {
		return fmtTime(first) + ".." + fmtTime(last)
	}
	a, z := time.UnixMilli(*first).UTC(), time.UnixMilli(*last).UTC()
	end := z.Format("2006-01-02 15:04:05")
	if a.Format(time.DateOnly) == z.Format(time.DateOnly) {
		end = z.Format("15:04:05")
	}
	return a.Format("2006-01-02 15:04:05") + ".." + end
}
