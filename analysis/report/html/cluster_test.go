package html

import (
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// TestClusterTimeline: metadata-log and broker-log events, producer
// sessions, duplicate runs and a diverged replica's lost offsets share one
// time axis, each in its lane, an unclean election drawn over what
// happened at the same moment.
func TestClusterTimeline(t *testing.T) {
	r := manySessions(t, 3, "orders")
	r.ClusterEvents = []analysis.ClusterEventRow{
		{Time: ptr(int64(1_700_000_000_500)), Kind: "broker-fenced", Source: "metadata-log", Details: "broker 2 fenced", File: "m.log"},
		{Time: ptr(int64(1_700_000_000_500)), Kind: "unclean-election", Source: "metadata-log", Details: "orders-0: broker 1 elected <leader>", File: "m.log",
			Topic: ptr("orders"), Partition: ptr(int32(0))},
		{Time: ptr(int64(1_700_000_001_000)), Kind: "truncation", Source: "broker-log", Broker: ptr(int32(2)), Details: "Truncating to offset 44", File: "logs/server.log"},
		{Kind: "config-change", Source: "metadata-log", Details: "no time: not drawn"},
	}
	r.Replicas = []analysis.ReplicaRow{{Verdict: "diverged", ExtraFirstTime: ptr(int64(1_699_999_999_000)), ExtraLastTime: ptr(int64(1_700_000_000_400)),
		Explanation: "broker 2's offsets 44–193 (epoch 0) are not in the epoch-1 history"}, {Verdict: "in-sync"}}
	page, m := render(t, r)
	ct := m.Cluster
	if ct == nil {
		t.Fatal("no cluster timeline")
	}
	var labels []string
	for _, l := range ct.Lanes {
		labels = append(labels, l.Label)
	}
	want := "metadata log,lost (divergence),broker 2 log,producer sessions,duplicate runs"
	if strings.Join(labels, ",") != want {
		t.Errorf("lanes %v, want %s", labels, want)
	}
	if ct.T0 != 1_699_999_999_000 || ct.T1 != 1_700_000_002_900 {
		t.Errorf("axis %d..%d", ct.T0, ct.T1)
	}
	if last := ct.Lanes[0].Items[1]; last.Kind != "unclean-election" || last.Class != "ev-bad" {
		t.Errorf("the election is not drawn last in its lane: %+v", ct.Lanes[0].Items)
	}
	for _, s := range []string{`id="cluster"`, "Cluster timeline", "orders-0: broker 1 elected &lt;leader&gt;", `lost (divergence) (<tspan class="cnt">1</tspan>)`,
		// What the page zooms by: the full range and each item's times.
		`data-t0="1699999999000" data-t1="1700000002900"`, `id="cluster-zoom"`} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}
