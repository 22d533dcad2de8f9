package bundle

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
)

// NamesMap is what --redact-names replaced: each token of the bundle and
// the name it stands for. It is written to a file the sender keeps, never
// into the bundle: with it the sender (and only the sender) reads the
// receiver's answers in the original names.
type NamesMap struct {
	// SecretID is the id of the secret the tokens were made with.
	SecretID string `json:"secret_id"`
	// Topics maps a topic's token to its name.
	Topics map[string]string `json:"topics"`
	// HeaderKeys maps a header key's replacement to the key.
	HeaderKeys map[string]string `json:"header_keys"`
	// Groups and Members map the tokens of the group ids and member ids
	// of __consumer_offsets (a group's leader is one of its members).
	Groups  map[string]string `json:"groups"`
	Members map[string]string `json:"members"`
	// The other names of the internal topics' records: group instance
	// ids, client ids, hosts (of group members and of brokers' listeners),
	// transactional ids, protocol types and names other than Kafka's own,
	// and racks.
	Instances     map[string]string `json:"group_instances,omitempty"`
	Clients       map[string]string `json:"clients,omitempty"`
	Hosts         map[string]string `json:"hosts,omitempty"`
	Transactional map[string]string `json:"transactional_ids,omitempty"`
	Protocols     map[string]string `json:"protocols,omitempty"`
	Racks         map[string]string `json:"racks,omitempty"`
}

// namer makes the tokens of names from a keyed HMAC: a name always gets
// the same token under one secret, and distinct names distinct tokens.
// Not safe for concurrent use.
type namer struct {
	mac                 hash.Hash
	topics, topicTokens map[string]string // name → token, token → name
	keys, keyTokens     map[string]string
	groups, groupTokens map[string]string
	members             map[string]string
	memberTokens        map[string]string
	// others are the tokens of the other names of the internal topics'
	// records, by their prefix.
	others map[string]*tokens
	// fill replaces the bytes of the internal topics' records that are
	// no name this package can read (secret.go's filler).
	fill func([]byte)
}

// tokens are the names of one kind and their tokens: name → token and
// token → name.
type tokens struct{ names, tokens map[string]string }

func newNamer(secret []byte) *namer {
	return &namer{mac: hmac.New(sha256.New, secret), topics: map[string]string{}, topicTokens: map[string]string{},
		keys: map[string]string{}, keyTokens: map[string]string{}, groups: map[string]string{}, groupTokens: map[string]string{},
		members: map[string]string{}, memberTokens: map[string]string{}, others: map[string]*tokens{}}
}

// sum is the MAC of a name of one kind, at one try (a later try when an
// earlier one's token was taken).
func (n *namer) sum(kind, name string, try int) []byte {
	n.mac.Reset()
	fmt.Fprintf(n.mac, "%s\x00%d\x00%s", kind, try, name)
	return n.mac.Sum(nil)
}

// topic is the token of a topic name: "t-" and 10 hex digits, more when
// those were taken. The internal topics (named "__…" by Kafka itself)
// keep their names: they say what a partition holds, nothing of the user.
func (n *namer) topic(name string) string {
	if strings.HasPrefix(name, "__") {
		return name
	}
	return n.token("topic", "t-", name, n.topics, n.topicTokens)
}

// token is the token of a name of one kind: prefix and 10 hex digits of
// its MAC, more when those were taken by another name.
func (n *namer) token(kind, prefix, name string, names, tokens map[string]string) string {
	if t, ok := names[name]; ok {
		return t
	}
	for try := 0; ; try++ {
		t := prefix + hex.EncodeToString(n.sum(kind, name, try))[:10+2*min(try, 27)]
		if _, taken := tokens[t]; !taken {
			names[name], tokens[t] = t, name
			return t
		}
	}
}

// tokenChars are the characters of a header key's replacement.
const tokenChars = "0123456789abcdefghijklmnopqrstuvwxyz"

// headerKey replaces a header key in place by one of the same length
// (the record keeps its bytes), made of tokenChars. A key too short to
// find a free replacement of its length (of one or two characters, once
// dozens of them are in use) is kept.
func (n *namer) headerKey(p []byte) {
	key := string(p)
	if t, ok := n.keys[key]; ok {
		copy(p, t)
		return
	}
	for try := range 64 {
		t := make([]byte, 0, len(p))
		for block := 0; len(t) < len(p); block++ {
			for _, c := range n.sum("header key", key, try*1000+block) {
				if len(t) < len(p) {
					t = append(t, tokenChars[int(c)%len(tokenChars)])
				}
			}
		}
		if _, taken := n.keyTokens[string(t)]; !taken {
			n.keys[key], n.keyTokens[string(t)] = string(t), key
			copy(p, t)
			return
		}
	}
	n.keys[key], n.keyTokens[key] = key, key
}

// renamePath returns a slash path with its last part that is the dir of
// a partition of topic renamed, or, when topic is empty, of any topic
// rename knows (it returns "" for the others). The dirs above a
// partition dir may look like one ("kafka-logs-1"); they are no topic's.
func renamePath(p, topic string, rename func(string) string) string {
	parts := strings.Split(p, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		pd, ok := source.ParsePartitionDir(parts[i])
		if !ok || topic != "" && pd.Topic != topic {
			continue
		}
		if t := rename(pd.Topic); t != "" {
			parts[i] = t + strings.TrimPrefix(parts[i], pd.Topic)
			return strings.Join(parts, "/")
		}
	}
	return p
}

// checkpoint returns an offset checkpoint with the topic of every entry
// ("TOPIC PARTITION OFFSET") renamed, and a move per renamed topic (its
// bytes and its token's), so that a byte of the file maps through them
// as a segment's do through its batches; other lines are kept as they
// are, so a damaged file stays damaged where it was.
func (n *namer) checkpoint(data []byte) ([]byte, []segment.Move) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out []byte
	var moves []segment.Move
	at := int64(0)
	for _, l := range lines {
		from := at
		at += int64(len(l))
		f := strings.Split(strings.TrimRight(string(l), "\n"), " ")
		if len(f) == 3 && f[0] != "" {
			if _, err := strconv.ParseInt(f[1], 10, 32); err == nil {
				t := n.topic(f[0])
				if len(t) != len(f[0]) {
					moves = append(moves, segment.Move{From: from, Len: int64(len(f[0])), To: int64(len(out)), NewLen: int64(len(t))})
				}
				out = append(out, t...)
				out = append(out, l[len(f[0]):]...)
				continue
			}
		}
		out = append(out, l...)
	}
	return out, moves
}

// names returns what the namer replaced.
func (n *namer) names(secretID string) *NamesMap {
	m := &NamesMap{SecretID: secretID, Topics: map[string]string{}, HeaderKeys: map[string]string{}, Groups: map[string]string{},
		Members: map[string]string{}}
	maps.Copy(m.Groups, n.groupTokens)
	maps.Copy(m.Members, n.memberTokens)
	for prefix, to := range map[string]*map[string]string{"i-": &m.Instances, "c-": &m.Clients, "h-": &m.Hosts,
		"x-": &m.Transactional, "p-": &m.Protocols, "r-": &m.Racks} {
		if t := n.others[prefix]; t != nil && len(t.tokens) > 0 {
			*to = maps.Clone(t.tokens)
		}
	}
	maps.Copy(m.Topics, n.topicTokens)
	for t, key := range n.keyTokens {
		if t != key {
			m.HeaderKeys[t] = key
		}
	}
	return m
}

// forward replaces every topic name the namer knows by its token in s,
// longest name first (a name may hold another).
func (n *namer) forward(s string) string {
	names := make([]string, 0, len(n.topics))
	for name, t := range n.topics {
		if name != t {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(names))
	for _, name := range names {
		pairs = append(pairs, name, n.topics[name])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// WriteNames writes a names map to path, readable by its owner only; an
// existing file is replaced only when force is set. The file is refused
// inside or next to an input.
func WriteNames(path string, m *NamesMap, inputs []*source.Input, force bool) error {
	if err := NamesOutput(path, inputs, force); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// NamesOutput checks, before a bundle is written, that its names map can
// be written to path afterwards.
func NamesOutput(path string, inputs []*source.Input, force bool) error {
	if err := source.CheckOutput(path, source.OutputFile, inputs); err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil && !force {
		return &ExistsError{Path: path}
	}
	return nil
}

// ReadNames reads a names map written by WriteNames.
func ReadNames(path string) (*NamesMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var m NamesMap
	if err := json.NewDecoder(io.LimitReader(f, 1<<30)).Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// namer returns a namer that knows the map's topics, to name the
// original inputs' files as the bundle does.
func (m *NamesMap) namer() *namer {
	n := newNamer(nil)
	for t, name := range m.Topics {
		n.topics[name], n.topicTokens[t] = t, name
	}
	return n
}

// known is the token of a topic the map names, "" for any other.
func (m *NamesMap) known(n *namer) func(string) string {
	return func(name string) string { return n.topics[name] }
}

// back replaces every token in s by its name, the longest tokens first
// (a token taken by another name is the shorter one and more digits).
func (m *NamesMap) back(s string) string {
	var toks []string
	names := map[string]string{}
	for _, kind := range []map[string]string{m.Topics, m.Groups, m.Members, m.Instances, m.Clients, m.Hosts, m.Transactional, m.Protocols,
		m.Racks} {
		for t, name := range kind {
			toks = append(toks, t)
			names[t] = name
		}
	}
	slices.SortFunc(toks, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(toks))
	for _, t := range toks {
		pairs = append(pairs, t, names[t])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}
