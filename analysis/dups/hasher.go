package dups

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
)

// Hasher computes fingerprints over the parts chosen by --match, with
// per-send headers (--ignore-header) dropped first. Excluded parts are
// hashed as absent for every record alike. With MatchAll and no ignored
// headers its result equals the scan's analysis.Fingerprinter, so
// callers may use the fingerprint of records.parquet instead (Default).
type Hasher struct {
	match  Parts
	ignore map[string]bool
	fp     *analysis.Fingerprinter
	hs     []analysis.Header
}

// NewHasher returns a Hasher; match 0 means MatchAll.
func NewHasher(match Parts, ignoreHeaders []string) *Hasher {
	if match == 0 {
		match = MatchAll
	}
	h := &Hasher{match: match, fp: analysis.NewFingerprinter()}
	if len(ignoreHeaders) > 0 {
		h.ignore = map[string]bool{}
		for _, n := range ignoreHeaders {
			h.ignore[n] = true
		}
	}
	return h
}

// Default reports whether the hasher is the plain record fingerprint.
func (h *Hasher) Default() bool { return h.match == MatchAll && len(h.ignore) == 0 }

// Sum returns the fingerprint of a record.
func (h *Hasher) Sum(key, value []byte, headers []analysis.Header) [16]byte {
	if h.match&MatchKey == 0 {
		key = nil
	}
	if h.match&MatchValue == 0 {
		value = nil
	}
	hs := h.hs[:0]
	if h.match&MatchHeaders != 0 {
		for _, x := range headers {
			if !h.ignore[x.Key] {
				hs = append(hs, x)
			}
		}
	}
	h.hs = hs
	return h.fp.Sum128(key, value, len(hs), func(i int) ([]byte, []byte) { return []byte(hs[i].Key), hs[i].Value })
}

// ParseFingerprint decodes 32 hex digits.
func ParseFingerprint(s string) ([16]byte, error) {
	var fp [16]byte
	if len(s) != 32 {
		return fp, fmt.Errorf("dups: fingerprint %q is not 32 hex digits", s)
	}
	_, err := hex.Decode(fp[:], []byte(s))
	return fp, err
}

// MatchError is a list of record parts that is not one: Part is the
// word that is not a part, "" when no part was chosen.
type MatchError struct{ Part string }

func (e *MatchError) Error() string {
	if e.Part == "" {
		return "the fingerprint covers no record part: choose at least one of key, value, headers"
	}
	return fmt.Sprintf("%q is not a record part: key, value or headers", e.Part)
}

// ScopeError is a scope of the duplicate search that is not one.
type ScopeError struct{ Scope string }

func (e *ScopeError) Error() string {
	return fmt.Sprintf("the scope of the duplicate search must be topic, partition or all, not %q", e.Scope)
}

// ParseMatch parses the record parts the fingerprint covers: a
// comma-separated subset of key, value, headers (a *MatchError if not).
func ParseMatch(s string) (Parts, error) {
	var p Parts
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "key":
			p |= MatchKey
		case "value":
			p |= MatchValue
		case "headers":
			p |= MatchHeaders
		case "":
		default:
			return 0, &MatchError{Part: f}
		}
	}
	if p == 0 {
		return 0, &MatchError{}
	}
	return p, nil
}

// ParseScope parses the scope of the duplicate search (a *ScopeError if
// it is none).
func ParseScope(s string) (Scope, error) {
	switch s {
	case "topic", "":
		return ScopeTopic, nil
	case "partition":
		return ScopePartition, nil
	case "all":
		return ScopeAll, nil
	}
	return 0, &ScopeError{Scope: s}
}
