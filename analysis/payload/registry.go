package payload

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hamba/avro/v2"
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// SchemasTopic is the schema registry's topic when its kafkastore.topic
// setting is left at the default.
const SchemasTopic = "_schemas"

// Schema types as the registry names them; a record without schemaType is
// Avro.
const (
	TypeAvro     = "AVRO"
	TypeJSON     = "JSON"
	TypeProtobuf = "PROTOBUF"
)

// maxRefDepth bounds how deep schema references are followed (a reference
// cycle, or a chain no registry builds).
const maxRefDepth = 32

// Reference is one entry of a schema's references: another subject's
// version, known to this schema under Name.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int32  `json:"version"`
}

// Schema is one schema of the registry as the _schemas topic holds it.
type Schema struct {
	ID         int32
	Subject    string
	Version    int32
	Type       string
	Text       string
	References []Reference
	// Deleted is set when the subject version was soft-deleted ("deleted":
	// true) or hard-deleted (a tombstone). Its payloads still decode: a
	// schema id never changes meaning, and the records written with it are
	// still in the log.
	Deleted bool
	// Where, Position and Offset locate the _schemas record that defined it.
	Where    finding.Where
	Position int64
	Offset   int64

	avro avro.Schema
	err  error // why the schema cannot be used, from Finish
}

// Err is why the schema's payloads cannot be decoded, or nil.
func (s *Schema) Err() error { return s.err }

type subjectVersion struct {
	subject string
	version int32
}

// Registry is the schemas of the inputs, by id.
type Registry struct {
	byID       map[int32]*Schema
	bySubject  map[subjectVersion]*Schema
	findings   []analysis.AnomalyRow
	records    int
	finished   bool
	conflicted map[int32]bool
}

// NewRegistry is an empty registry.
func NewRegistry() *Registry {
	return &Registry{byID: map[int32]*Schema{}, bySubject: map[subjectVersion]*Schema{}, conflicted: map[int32]bool{}}
}

// Len is the number of schemas.
func (r *Registry) Len() int { return len(r.byID) }

// Records is the number of _schemas records read.
func (r *Registry) Records() int { return r.records }

// Lookup returns the schema of id.
func (r *Registry) Lookup(id int32) (*Schema, bool) {
	s, ok := r.byID[id]
	return s, ok
}

// IDs lists the schema ids, ascending.
func (r *Registry) IDs() []int32 {
	ids := make([]int32, 0, len(r.byID))
	for id := range r.byID {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Findings are the registry's findings (bad _schemas records, schemas that
// do not parse), in the order they were found.
func (r *Registry) Findings() []analysis.AnomalyRow { return r.findings }

type schemaKey struct {
	KeyType string `json:"keytype"`
	Subject string `json:"subject"`
	Version *int32 `json:"version"`
}

type schemaValue struct {
	Subject    string      `json:"subject"`
	Version    int32       `json:"version"`
	ID         *int32      `json:"id"`
	SchemaType string      `json:"schemaType"`
	Schema     *string     `json:"schema"`
	References []Reference `json:"references"`
	Deleted    bool        `json:"deleted"`
}

func (r *Registry) bad(w finding.Where, pos, off int64, format string, args ...any) {
	r.findings = append(r.findings, finding.New(w, finding.KindSchemaRecord, pos, off, format, args...))
}

// Add reads one record of the _schemas topic, found at byte pos (its
// batch) and offset off of the file w names. Only SCHEMA records define
// schemas; NOOP, CONFIG, MODE, DELETE_SUBJECT, CLEAR_SUBJECT and the other
// key types are the registry's own bookkeeping and are passed over.
func (r *Registry) Add(w finding.Where, pos, off int64, key, value []byte) {
	r.records++
	if key == nil {
		r.bad(w, pos, off, "_schemas record without a key")
		return
	}
	var k schemaKey
	if err := json.Unmarshal(key, &k); err != nil {
		r.bad(w, pos, off, "_schemas key is not a JSON object: %v", err)
		return
	}
	if k.KeyType != "SCHEMA" {
		return
	}
	if value == nil {
		// A tombstone: the subject version was hard-deleted.
		if k.Version != nil {
			if s, ok := r.bySubject[subjectVersion{k.Subject, *k.Version}]; ok {
				s.Deleted = true
			}
		}
		return
	}
	var v schemaValue
	if err := json.Unmarshal(value, &v); err != nil {
		r.bad(w, pos, off, "_schemas value of subject %q is not a schema record: %v", k.Subject, err)
		return
	}
	if v.ID == nil || v.Schema == nil {
		r.bad(w, pos, off, "_schemas value of subject %q has no id or no schema", k.Subject)
		return
	}
	typ := strings.ToUpper(v.SchemaType)
	if typ == "" {
		typ = TypeAvro
	}
	if v.Subject == "" {
		v.Subject = k.Subject
	}
	if old, ok := r.byID[*v.ID]; ok {
		if old.Text != *v.Schema || old.Type != typ {
			if !r.conflicted[*v.ID] {
				r.conflicted[*v.ID] = true
				r.bad(w, pos, off, "schema id %d defined again with another schema (first at offset %d of %s); the first is used", *v.ID, old.Offset, old.Where.File)
			}
		} else if v.Deleted {
			old.Deleted = true
		}
		r.bySubject[subjectVersion{v.Subject, v.Version}] = old
		return
	}
	s := &Schema{ID: *v.ID, Subject: v.Subject, Version: v.Version, Type: typ, Text: *v.Schema,
		References: v.References, Deleted: v.Deleted, Where: w, Position: pos, Offset: off}
	r.byID[s.ID] = s
	r.bySubject[subjectVersion{s.Subject, s.Version}] = s
	r.finished = false
}

// Finish parses the schemas once every _schemas record is in: references
// may name a schema defined later in the topic. A schema that does not
// parse is a finding, and its payloads keep their raw bytes.
func (r *Registry) Finish() {
	if r.finished {
		return
	}
	r.finished = true
	for _, id := range r.IDs() {
		s := r.byID[id]
		if s.avro != nil || s.err != nil {
			continue
		}
		switch s.Type {
		case TypeAvro:
			s.avro, s.err = r.parseAvro(s)
		case TypeJSON:
			if !json.Valid([]byte(s.Text)) {
				s.err = fmt.Errorf("JSON schema is not JSON")
			}
		case TypeProtobuf:
		default:
			s.err = fmt.Errorf("schema type %q not known", s.Type)
		}
		if s.err != nil {
			s.err = shortErr(s.err)
			r.findings = append(r.findings, finding.New(s.Where, finding.KindSchemaRecord, s.Position, s.Offset,
				"schema id %d (subject %q version %d) cannot be used: %v", s.ID, s.Subject, s.Version, s.err))
		}
	}
}

// parseAvro parses s with its references, each parsed first into a cache
// of its own so that named types of unrelated schemas never meet (the
// library's default cache is global).
func (r *Registry) parseAvro(s *Schema) (avro.Schema, error) {
	cache := &avro.SchemaCache{}
	seen := map[*Schema]bool{}
	var add func(s *Schema, depth int) error
	add = func(s *Schema, depth int) error {
		if depth > maxRefDepth {
			return fmt.Errorf("references nested deeper than %d", maxRefDepth)
		}
		for _, ref := range s.References {
			rs, ok := r.bySubject[subjectVersion{ref.Subject, ref.Version}]
			if !ok {
				return fmt.Errorf("reference %q: subject %q version %d is not in the inputs", ref.Name, ref.Subject, ref.Version)
			}
			if seen[rs] {
				continue
			}
			seen[rs] = true
			if err := add(rs, depth+1); err != nil {
				return err
			}
			if _, err := parseWithCache(rs.Text, cache); err != nil {
				return fmt.Errorf("reference %q: %w", ref.Name, err)
			}
		}
		return nil
	}
	if err := add(s, 0); err != nil {
		return nil, err
	}
	return parseWithCache(s.Text, cache)
}

// parseWithCache is avro.ParseWithCache that turns a panic of the parser
// on hostile schema text into an error: the text comes from the input.
func parseWithCache(text string, cache *avro.SchemaCache) (s avro.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("avro schema parser failed: %v", p)
		}
	}()
	return avro.ParseWithCache(text, "", cache)
}

// maxErrText bounds the text of a schema's error: the parser quotes the
// schema text it could not read, which can be as long as the record.
const maxErrText = 240

type shortError struct {
	text string
	err  error
}

func (e *shortError) Error() string { return e.text }
func (e *shortError) Unwrap() error { return e.err }

func shortErr(err error) error {
	t := err.Error()
	if len(t) <= maxErrText {
		return err
	}
	cut := maxErrText
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return &shortError{text: t[:cut] + fmt.Sprintf("… (%d bytes of message left out)", len(t)-cut), err: err}
}
