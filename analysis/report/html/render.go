package html

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

//go:embed page.html page.css page.js
var assets embed.FS

// Geometry of a timeline SVG, in user units (page.js uses the same).
const (
	svgW   = 1200.0
	plotX  = 150.0 // left edge of the plot; lane labels are left of it
	plotW  = 1030.0
	axisH  = 26.0
	rowH   = 20.0 // one lane per row
	rowHC  = 9.0  // collapsed rows
	padBot = 8.0
)

// page is parsed when a report is first written, not when the program
// starts: every command links this package, and parsing the template at
// start cost each of them most of a millisecond.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page.html").Funcs(template.FuncMap{
		"num":   func(v int64) string { return groupDigits(v) },
		"ms":    fmtMillis,
		"bytes": fmtBytes,
		"f":     func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
		"pct": func(a, b int64) string {
			if b <= 0 {
				return "0"
			}
			return strconv.FormatFloat(100*float64(a)/float64(b), 'f', 3, 64)
		},
		"pctw": func(a, b, size int64) string {
			if size <= 0 {
				return "0"
			}
			return strconv.FormatFloat(max(0.4, 100*float64(b-a)/float64(size)), 'f', 3, 64)
		},
		"deref": func(p *int64) int64 { return derefOr(p, -1) },
	}).ParseFS(assets, "page.html"))
})

// Write renders the model as one self-contained HTML page.
func Write(w io.Writer, m *Model) error {
	data, err := json.Marshal(m) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	css, err := assets.ReadFile("page.css")
	if err != nil {
		return err
	}
	js, err := assets.ReadFile("page.js")
	if err != nil {
		return err
	}
	v := &view{Model: m, Data: template.JS(data), CSS: template.CSS(css), Script: template.JS(js),
		Classes: pipeline.DupClasses, ClusterView: clusterLayout(m.Cluster)}
	for i := range m.Timelines {
		v.Panels = append(v.Panels, panel(m, &m.Timelines[i]))
	}
	for i := range m.Runs {
		v.RunRows = append(v.RunRows, runRow(m, &m.Runs[i]))
	}
	return page().Execute(w, v)
}

type view struct {
	*Model
	Data    template.JS
	CSS     template.CSS
	Script  template.JS
	Classes []string
	Panels  []*panelView
	RunRows []runRowView
	// ClusterView is the cluster timeline laid out (nil: none).
	ClusterView *clusterView
}

type panelView struct {
	*Timeline
	Title     string
	H         float64
	O0, O1    int64
	T0, T1    string // time domain, "" when no timestamps
	Ticks     []tick
	Lanes     []laneView
	Links     []linkView
	Note      string
	ClipID    string
	RunCount  int
	LaneRows  int
	Collapsed bool
}

type tick struct {
	X     float64
	Label string
}

type laneView struct {
	ID, Class  string
	Idx, Row   int
	Y, LabelY  float64
	Label      string
	Title      string
	Bar        rectView
	Aborted    []rectView
	Markers    []rectView
	Gaps       []rectView
	HasBar     bool
	Transacted bool
}

type rectView struct {
	X, Y, W, H float64
	O0, O1     int64
	T0, T1     string
	Title      string
	Class      string
}

type linkView struct {
	Run     int
	Class   string
	D       string
	O, T    string
	LA, LB  string
	Title   string
	Ext     bool
	Visible bool
}

type runRowView struct {
	*RunInfo
	Where, Writer, Ref, Offsets, RefOffsets, Time, Gap string
	TimeSort                                           int64
	Timeline                                           string
}

func panel(m *Model, tl *Timeline) *panelView {
	p := &panelView{Timeline: tl, Title: fmt.Sprintf("%s-%d", tl.Topic, tl.Partition), ClipID: "clip-" + tl.ID,
		RunCount: len(tl.Runs), Collapsed: tl.Collapsed}
	if len(m.Inputs) > 1 {
		p.Title += fmt.Sprintf(" (input #%d)", tl.Input)
	}
	g := newPanelGeom(m, tl, p)
	for i := range tl.Sessions {
		p.Lanes = append(p.Lanes, g.sessionLane(tl, i))
	}
	p.LaneRows = g.extraLanes(m, tl, p)
	p.H = axisH + float64(max(p.LaneRows, 1))*g.rh + padBot
	for _, i := range tl.Runs {
		p.Links = append(p.Links, g.link(&m.Runs[i], tl, p))
	}
	for _, t := range niceTicks(float64(g.o0), float64(g.o1)) {
		p.Ticks = append(p.Ticks, tick{X: g.x(int64(t)), Label: strconv.FormatInt(int64(t), 10)})
	}
	return p
}

// panelGeom places a timeline's lanes: the offset domain on the x axis,
// a lane's row height, and rows shared by sessions when collapsed.
type panelGeom struct {
	o0, o1    int64
	collapsed bool
	rh        float64
	maxRow    int
}

// newPanelGeom finds the panel's offset and time domains (set on p) from
// the partition, its sessions and the runs written into it.
func newPanelGeom(m *Model, tl *Timeline, p *panelView) *panelGeom {
	o0, o1 := int64(math.MaxInt64), int64(math.MinInt64)
	var t0, t1 *int64
	widen := func(a, b int64) { o0, o1 = min(o0, a), max(o1, b+1) }
	widenT := func(p *int64) { t0, t1 = minPtr(t0, p), maxPtr(t1, p) }
	if tl.FirstOffset != nil && tl.LastOffset != nil {
		widen(*tl.FirstOffset, *tl.LastOffset)
	}
	widenT(tl.FirstTimestamp)
	widenT(tl.LastTimestamp)
	for _, s := range tl.Sessions {
		widen(s.FirstOffset, s.LastOffset)
		widenT(s.FirstTimestamp)
		widenT(s.LastTimestamp)
	}
	for _, i := range tl.Runs {
		r := &m.Runs[i]
		widen(r.First, r.Last)
		if r.RefTimeline == tl.ID {
			widen(r.RefFirst, r.RefLast)
		}
	}
	if o0 > o1 {
		o0, o1 = 0, 1
	}
	p.O0, p.O1 = o0, o1
	if t0 != nil {
		p.T0, p.T1 = strconv.FormatInt(*t0, 10), strconv.FormatInt(max(*t1, *t0+1), 10)
	}
	g := &panelGeom{o0: o0, o1: o1, collapsed: tl.Collapsed, rh: rowH, maxRow: -1}
	if g.collapsed {
		g.rh = rowHC
	}
	for _, s := range tl.Sessions {
		g.maxRow = max(g.maxRow, s.Row)
	}
	return g
}

func (g *panelGeom) x(v int64) float64 { return plotX + float64(v-g.o0)/float64(g.o1-g.o0)*plotW }

// laneTop is the top of lane idx, or of row when the lanes share rows.
func (g *panelGeom) laneTop(idx, row int) float64 {
	if g.collapsed {
		return axisH + float64(row)*g.rh
	}
	return axisH + float64(idx)*g.rh
}

// rect is the box of offsets a..b on the lane at top: a bar, or a thin
// mark.
func (g *panelGeom) rect(top float64, a, b int64, ta, tb *int64, bar bool) rectView {
	r := rectView{O0: a, O1: b + 1, T0: msAttr(ta), T1: msAttr(tb)}
	r.X = g.x(a)
	r.W = max(g.x(b+1)-r.X, 1.5)
	r.Y, r.H = top+4, g.rh-8
	if g.collapsed || !bar {
		r.Y, r.H = top+1, g.rh-2
	}
	return r
}

// sessionLane is session i's lane: its bar, aborted spans and markers.
func (g *panelGeom) sessionLane(tl *Timeline, i int) laneView {
	s := &tl.Sessions[i]
	top := g.laneTop(i, s.Row)
	lv := laneView{ID: fmt.Sprintf("%s-l%d", tl.ID, i), Class: "lane", Idx: i, Row: s.Row, Y: top, LabelY: top + g.rh/2 + 4,
		Label: fmt.Sprintf("PID %d e%d", s.ProducerID, s.ProducerEpoch), HasBar: true, Transacted: s.IsTransactional}
	if s.IsTransactional {
		lv.Class += " txn"
	}
	if id := []rune(s.TransactionalID); len(id) > 0 {
		if len(id) > 9 {
			id = append(id[:8], '…')
		}
		lv.Label += " " + string(id)
	}
	lv.Title = sessionTitle(s)
	lv.Bar = g.rect(top, s.FirstOffset, s.LastOffset, s.FirstTimestamp, s.LastTimestamp, true)
	for _, a := range s.AbortedSpans {
		r := g.rect(top, a.FirstOffset, a.LastOffset, a.FirstTimestamp, a.LastTimestamp, true)
		r.Title = fmt.Sprintf("aborted transaction: offsets %d–%d", a.FirstOffset, a.LastOffset)
		lv.Aborted = append(lv.Aborted, r)
	}
	for _, mk := range s.AbortMarkers {
		r := g.rect(top, mk.Offset, mk.Offset, mk.Timestamp, mk.Timestamp, false)
		r.X, r.W = g.x(mk.Offset)-1, 3
		r.Title = fmt.Sprintf("ABORT marker at offset %d", mk.Offset)
		if mk.Timestamp != nil {
			r.Title += " (" + fmtMillis(*mk.Timestamp) + ")"
		}
		lv.Markers = append(lv.Markers, r)
	}
	return lv
}

// extraLanes adds the lane of writers without a session and the lane of
// absent offsets when there are any, and returns the rows drawn.
func (g *panelGeom) extraLanes(m *Model, tl *Timeline, p *panelView) int {
	rows := len(tl.Sessions)
	if g.collapsed {
		rows = g.maxRow + 1
	}
	// Writers without a session (PID -1) share one extra lane.
	anon := false
	for _, i := range tl.Runs {
		if m.Runs[i].Lane < 0 || (m.Runs[i].RefTimeline == tl.ID && m.Runs[i].RefLane < 0) {
			anon = true
		}
	}
	if anon {
		idx, row := len(tl.Sessions), g.maxRow+1
		top := g.laneTop(idx, row)
		p.Lanes = append(p.Lanes, laneView{ID: tl.ID + "-anon", Class: "lane-anon", Idx: idx, Row: row, Y: top, LabelY: top + g.rh/2 + 4,
			Label: "PID -1", Title: "records written without a producer id (not idempotent)"})
		rows++
	}
	if len(tl.Gaps) > 0 {
		// The partition's absent offsets, on a lane of their own.
		idx, row := len(p.Lanes), g.maxRow+1
		if anon {
			row++
		}
		top := g.laneTop(idx, row)
		lv := laneView{ID: tl.ID + "-gaps", Class: "lane-anon lane-gaps", Idx: idx, Row: row, Y: top, LabelY: top + g.rh/2 + 4,
			Label: "not readable", Title: "offsets that cannot be read (see Losses)"}
		for _, gp := range tl.Gaps {
			r := g.rect(top, gp.First, gp.Last, nil, nil, true)
			r.Class = "gap sev-" + gp.Severity
			r.Title = fmt.Sprintf("offsets %d–%d: %s (%s)", gp.First, gp.Last, gp.Cause, gp.Severity)
			lv.Gaps = append(lv.Gaps, r)
		}
		p.Lanes = append(p.Lanes, lv)
		rows++
	}
	return rows
}

// link is the ribbon of run r from the copies it repeats to its own.
func (g *panelGeom) link(r *RunInfo, tl *Timeline, p *panelView) linkView {
	mid := func(id string) float64 {
		for _, l := range p.Lanes {
			if l.ID == id {
				return l.Y + g.rh/2
			}
		}
		return axisH
	}
	laneID := func(lane int) string {
		if lane < 0 {
			return tl.ID + "-anon"
		}
		return fmt.Sprintf("%s-l%d", tl.ID, lane)
	}
	lk := linkView{Run: r.ID, Class: r.Class, LB: laneID(r.Lane), Title: r.Text, Visible: true}
	if r.ConsumedBy != "" {
		lk.Title += "\n" + r.ConsumedBy
	}
	if r.Explanation != "" {
		lk.Title += "\n" + r.Explanation
	}
	a0, a1 := r.RefFirst, r.RefLast
	ta0, ta1 := r.RefFirstTimestamp, r.RefLastTimestamp
	if r.RefTimeline == tl.ID {
		lk.LA = laneID(r.RefLane)
	} else {
		lk.Ext = true
		a0, a1, ta0, ta1 = r.First, r.Last, r.FirstTimestamp, r.LastTimestamp
	}
	lk.O = fmt.Sprintf("%d %d %d %d", a0, a1+1, r.First, r.Last+1)
	if ta0 != nil && ta1 != nil && r.FirstTimestamp != nil && r.LastTimestamp != nil {
		lk.T = fmt.Sprintf("%d %d %d %d", *ta0, *ta1, *r.FirstTimestamp, *r.LastTimestamp)
	}
	ya := axisH
	if !lk.Ext {
		ya = mid(lk.LA)
	}
	lk.D = ribbon(g.x(a0), g.x(a1+1), ya, g.x(r.First), g.x(r.Last+1), mid(lk.LB), lk.Ext)
	return lk
}

// ribbon is the SVG path of a link from [xa0,xa1] at height ya to
// [xb0,xb1] at yb (page.js draws the same).
func ribbon(xa0, xa1, ya, xb0, xb1, yb float64, ext bool) string {
	xa1, xb1 = max(xa1, xa0+1.5), max(xb1, xb0+1.5)
	ym := (ya + yb) / 2
	if math.Abs(ya-yb) < 1 {
		ym = ya - 14
	}
	if ext {
		ym = ya + (yb-ya)*0.4
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	return "M" + f(xa0) + "," + f(ya) + " C" + f(xa0) + "," + f(ym) + " " + f(xb0) + "," + f(ym) + " " + f(xb0) + "," + f(yb) +
		" L" + f(xb1) + "," + f(yb) + " C" + f(xb1) + "," + f(ym) + " " + f(xa1) + "," + f(ym) + " " + f(xa1) + "," + f(ya) + " Z"
}

// niceTicks returns about six round values in [lo, hi) (page.js has the
// same rule).
func niceTicks(lo, hi float64) []float64 {
	span := hi - lo
	if span <= 0 {
		return nil
	}
	raw := span / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, k := range []float64{1, 2, 5, 10} {
		if k*mag >= raw {
			step = k * mag
			break
		}
	}
	step = max(step, 1)
	var out []float64
	for v := math.Ceil(lo/step) * step; v < hi; v += step {
		out = append(out, v)
	}
	return out
}

func sessionTitle(s *SessionLane) string {
	var b strings.Builder
	fmt.Fprintf(&b, "PID %d epoch %d in %s\noffsets %d–%d: %d records in %d batches", s.ProducerID, s.ProducerEpoch, s.Dir,
		s.FirstOffset, s.LastOffset, s.Records, s.Batches)
	if s.FirstSequence >= 0 {
		fmt.Fprintf(&b, ", sequences %d–%d", s.FirstSequence, s.LastSequence)
	}
	if s.FirstTimestamp != nil && s.LastTimestamp != nil {
		fmt.Fprintf(&b, "\n%s – %s", fmtMillis(*s.FirstTimestamp), fmtMillis(*s.LastTimestamp))
	}
	if s.TransactionalID != "" {
		fmt.Fprintf(&b, "\ntransactional.id %s", s.TransactionalID)
	}
	if s.IsTransactional {
		fmt.Fprintf(&b, "\ntransactional: %d commit(s), %d abort(s)", s.Commits, s.Aborts)
		if s.OpenTxn {
			b.WriteString(", last transaction open")
		}
	}
	if s.SequenceGaps > 0 || s.SequenceRegressions > 0 {
		fmt.Fprintf(&b, "\nsequence gaps %d, regressions %d", s.SequenceGaps, s.SequenceRegressions)
	}
	if s.DamagedBatches > 0 {
		fmt.Fprintf(&b, "\n%d damaged batch(es)", s.DamagedBatches)
	}
	return b.String()
}

func runRow(m *Model, r *RunInfo) runRowView {
	v := runRowView{RunInfo: r, Where: fmt.Sprintf("%s-%d", r.Topic, r.Partition), Timeline: r.Timeline, TimeSort: -1}
	if len(m.Inputs) > 1 {
		v.Where += fmt.Sprintf(" #%d", r.Input)
	}
	v.Writer = fmt.Sprintf("%d e%d", r.ProducerID, r.Epoch)
	if r.ProducerID < 0 {
		v.Writer = "-1"
	}
	v.Ref = fmt.Sprintf("%d", r.RefPID)
	if r.RefTopic != r.Topic || r.RefPart != r.Partition {
		v.Ref += fmt.Sprintf(" in %s-%d", r.RefTopic, r.RefPart)
	}
	v.Offsets = fmt.Sprintf("%d–%d", r.First, r.Last)
	v.RefOffsets = fmt.Sprintf("%d–%d", r.RefFirst, r.RefLast)
	if r.FirstTimestamp != nil {
		v.Time, v.TimeSort = fmtMillis(*r.FirstTimestamp), *r.FirstTimestamp
	}
	if r.GapMillis != nil {
		v.Gap = dups.FormatGap(*r.GapMillis)
	}
	return v
}

func msAttr(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func fmtMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000Z")
}

func fmtBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for v := n / unit; v >= unit; v /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func groupDigits(v int64) string {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
