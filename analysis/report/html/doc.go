// Package html renders the post-mortem page of `ksleuth report` and
// `ksleuth scan --html`: one self-contained HTML file (inline CSS, inline
// SVG, a small inline script, no external assets, a Content-Security-Policy
// that forbids any network access) with what was analysed, the integrity
// findings, the producer timeline per partition, the duplicate runs and
// per-topic totals.
//
//	c := html.NewCollector()
//	// feed c.Batches, c.Records from the scan and c.Duplicates from
//	// dups.Detector.Finish, then:
//	m := html.Build(html.NewRun(res, sum)) // with Collected: c
//	err := html.Write(w, m)
//
// The page draws itself from Model, which is also embedded in the page as
// JSON (<script type="application/json" id="ksleuth-data">, the data
// section) for tools and tests. Its field names follow the Parquet columns
// of the same things.
//
// The timeline has one lane per producer session (PID and epoch) and one
// link per duplicate run (dups.Runs), from the original records to the
// copies, coloured by class; the x axis is offsets or time, with zoom and
// pan. A partition with more than CollapseLanes sessions starts collapsed:
// sessions that do not overlap in offsets share a row.
//
// Pure computation: no files, no clock (the caller passes the time).
package html
