package pipeline

// clusterMemo remembers the cluster of each partition dir: the commits
// and transactions ask for it once per row, and a log dir without
// cluster.id costs a pass over the run's log dirs (replicas.ClusterOf).
// Not safe for concurrent use.
type clusterMemo struct {
	lookup func(input int32, dir string) string
	seen   map[dirKey]string
}

type dirKey struct {
	input int32
	dir   string
}

func newClusterMemo(of func(input int32, dir string) string) *clusterMemo {
	return &clusterMemo{lookup: of, seen: map[dirKey]string{}}
}

func (m *clusterMemo) of(input int32, dir string) string {
	if m == nil {
		return ""
	}
	k := dirKey{input, dir}
	c, ok := m.seen[k]
	if !ok {
		c = m.lookup(input, dir)
		m.seen[k] = c
	}
	return c
}
