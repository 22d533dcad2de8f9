package json

import "github.com/ksleuth/ksleuth/analysis"

// DupGroup is a duplicate group, one JSON line.
type DupGroup struct {
	Type        string                  `json:"type"`
	GroupID     int64                   `json:"group_id"`
	Fingerprint string                  `json:"fingerprint"`
	Members     []analysis.DuplicateRow `json:"members"`
}
