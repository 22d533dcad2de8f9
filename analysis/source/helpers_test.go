package source

// byPath indexes listed entries by their path.
func byPath(es []*Entry) map[string]*Entry {
	m := map[string]*Entry{}
	for _, e := range es {
		m[e.Path] = e
	}
	return m
}
