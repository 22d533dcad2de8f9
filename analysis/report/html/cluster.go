package html

import (
	"fmt"
	"sort"
	"strings"
)

// ClusterTimeline is the page's one cluster-wide time axis: the events of
// the metadata log and of the broker logs, the producer sessions, the
// duplicate runs and the offsets lost to replica divergence, so that
// "what happened at 03:12" takes one look.
type ClusterTimeline struct {
	T0    int64         `json:"t0"`
	T1    int64         `json:"t1"`
	Lanes []ClusterLane `json:"lanes"`
	// Omitted counts the items left out past the per-lane cap.
	Omitted int `json:"omitted"`
}

// ClusterLane is one row of the cluster timeline.
type ClusterLane struct {
	Label string        `json:"label"`
	Items []ClusterItem `json:"items"`
}

// ClusterItem is one event (T0 == T1) or span on the cluster timeline.
type ClusterItem struct {
	T0    int64  `json:"t0"`
	T1    int64  `json:"t1"`
	Kind  string `json:"kind"`
	Class string `json:"class"`
	Title string `json:"title"`
}

// maxLaneItems caps one lane: a broker log can hold many thousands of
// events, and the page must stay small.
const maxLaneItems = 500

// eventClass colours an event kind.
func eventClass(kind string) string {
	switch kind {
	case "unclean-election", "truncation", "invalid-messages", "index-rebuild":
		return "ev-bad"
	case "leader-change", "become-follower", "controller-change":
		return "ev-leader"
	case "isr-shrink", "isr-expand":
		return "ev-isr"
	case "broker-fenced", "broker-unfenced", "broker-registered", "broker-unregistered", "broker-controlled-shutdown",
		"broker-startup", "broker-shutdown", "log-recovery":
		return "ev-broker"
	}
	return "ev-other"
}

// buildCluster places everything that has a time on one axis; nil when
// nothing has.
func buildCluster(r *Run, runs []RunInfo) *ClusterTimeline {
	ct := &ClusterTimeline{}
	lanes := map[string]*ClusterLane{}
	var order []string
	lane := func(label string) *ClusterLane {
		l := lanes[label]
		if l == nil {
			l = &ClusterLane{Label: label, Items: []ClusterItem{}}
			lanes[label] = l
			order = append(order, label)
		}
		return l
	}
	add := func(label string, it ClusterItem) {
		l := lane(label)
		if len(l.Items) >= maxLaneItems {
			ct.Omitted++
			return
		}
		l.Items = append(l.Items, it)
	}
	for _, e := range r.ClusterEvents {
		if e.Time == nil {
			continue
		}
		label := "metadata log"
		if e.Source != "metadata-log" {
			label = "broker log"
			if e.Broker != nil {
				label = fmt.Sprintf("broker %d log", *e.Broker)
			}
		}
		where := ""
		if e.Topic != nil && e.Partition != nil && *e.Partition >= 0 {
			where = fmt.Sprintf(" [%s-%d]", *e.Topic, *e.Partition)
		}
		add(label, ClusterItem{T0: *e.Time, T1: *e.Time, Kind: e.Kind, Class: eventClass(e.Kind),
			Title: fmt.Sprintf("%s %s%s: %s (%s)", fmtMillis(*e.Time), e.Kind, where, e.Details, e.File)})
	}
	for _, s := range r.Sessions {
		if s.FirstTimestamp == nil || s.LastTimestamp == nil {
			continue
		}
		add("producer sessions", ClusterItem{T0: *s.FirstTimestamp, T1: *s.LastTimestamp, Kind: "session", Class: "sess",
			Title: fmt.Sprintf("PID %d epoch %d in %s-%d: offsets %d–%d, %s – %s", s.ProducerID, s.ProducerEpoch, s.Topic, s.Partition,
				s.FirstOffset, s.LastOffset, fmtMillis(*s.FirstTimestamp), fmtMillis(*s.LastTimestamp))})
	}
	for _, ru := range runs {
		if ru.FirstTimestamp == nil {
			continue
		}
		t1 := *ru.FirstTimestamp
		if ru.LastTimestamp != nil {
			t1 = *ru.LastTimestamp
		}
		add("duplicate runs", ClusterItem{T0: *ru.FirstTimestamp, T1: t1, Kind: ru.Class, Class: "cls-" + ru.Class,
			Title: fmt.Sprintf("run %d: %s", ru.ID, ru.Text)})
	}
	for _, rp := range r.Replicas {
		if rp.Verdict != "diverged" || rp.ExtraFirstTime == nil || rp.ExtraLastTime == nil {
			continue
		}
		add("lost (divergence)", ClusterItem{T0: *rp.ExtraFirstTime, T1: *rp.ExtraLastTime, Kind: "replica-divergence", Class: "lost",
			Title: fmt.Sprintf("%s – %s: %s", fmtMillis(*rp.ExtraFirstTime), fmtMillis(*rp.ExtraLastTime), rp.Explanation)})
	}
	first := true
	for _, l := range lanes {
		for _, it := range l.Items {
			if first || it.T0 < ct.T0 {
				ct.T0 = it.T0
			}
			if first || it.T1 > ct.T1 {
				ct.T1 = it.T1
			}
			first = false
		}
	}
	if first {
		return nil
	}
	// Fixed lanes first, then the broker logs by broker.
	rank := func(s string) int {
		switch s {
		case "metadata log":
			return 0
		case "lost (divergence)":
			return 1
		case "producer sessions":
			return 3
		case "duplicate runs":
			return 4
		}
		return 2
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		return a < b
	})
	for _, k := range order {
		l := lanes[k]
		// Events of one moment overlap: the worst is drawn last, on top.
		sort.SliceStable(l.Items, func(a, b int) bool { return drawRank(l.Items[a].Class) < drawRank(l.Items[b].Class) })
		ct.Lanes = append(ct.Lanes, *l)
	}
	return ct
}

// clusterView is the cluster timeline laid out for the SVG.
type clusterView struct {
	// T0 and T1 are the full range, which the page zooms within.
	T0, T1 int64
	H      float64
	Ticks  []tick
	Lanes  []clusterLaneView
}

type clusterLaneView struct {
	Label string
	Y, LY float64
	Items []clusterItemView
	Count int
}

type clusterItemView struct {
	T0, T1 int64
	X, W   float64
	Class  string
	Title  string
}

const clusterRowH = 22.0

func clusterLayout(ct *ClusterTimeline) *clusterView {
	if ct == nil {
		return nil
	}
	span := float64(max(ct.T1-ct.T0, 1))
	x := func(t int64) float64 { return plotX + float64(t-ct.T0)/span*plotW }
	v := &clusterView{T0: ct.T0, T1: ct.T1, H: axisH + float64(len(ct.Lanes))*clusterRowH + padBot}
	for i := 0; i <= 6; i++ {
		t := ct.T0 + int64(float64(i)/6*span)
		label := fmtMillis(t)
		if i > 0 && strings.HasPrefix(label, fmtMillis(ct.T0)[:10]) {
			label = label[11:] // the day once is enough
		}
		v.Ticks = append(v.Ticks, tick{X: x(t), Label: label})
	}
	for i, l := range ct.Lanes {
		lv := clusterLaneView{Label: l.Label, Y: axisH + float64(i)*clusterRowH + 4, LY: axisH + float64(i)*clusterRowH + 15, Count: len(l.Items)}
		for _, it := range l.Items {
			x0, x1 := x(it.T0), x(it.T1)
			lv.Items = append(lv.Items, clusterItemView{T0: it.T0, T1: it.T1, X: x0 - 1, W: max(x1-x0, 0) + 2.5, Class: it.Class, Title: it.Title})
		}
		v.Lanes = append(v.Lanes, lv)
	}
	return v
}

func drawRank(class string) int {
	switch class {
	case "ev-bad", "lost":
		return 5
	case "ev-leader":
		return 4
	case "ev-isr":
		return 3
	}
	return 0
}
