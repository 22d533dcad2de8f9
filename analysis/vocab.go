package analysis

// FindingKind is what a finding says, one of the kinds package finding
// lists (finding.Kind is this type). It is a string type so that
// anomalies.parquet and the JSON finding lines hold the kind as text.
type FindingKind string

// Severity grades a finding or a loss: "error", "warning" or "note"
// (finding.Severity is this type, finding.Error and the others its
// values).
type Severity string
