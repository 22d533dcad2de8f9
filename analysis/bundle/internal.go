package bundle

import (
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// The records of the internal topics are structure the analysis reads
// (which group committed what, which transactional id owns which
// producer id, which topic has which id), so under Options.Names they are
// rewritten field by field (topics.Rewrite) rather than filled: every
// name gets its token, the same in the keys, in the values and in the
// partition dirs' names, so that the receiver's consumers and producers
// tell the same story under tokens.

// wellKnown are the protocol types and assignor names Kafka and its
// clients define: they say how a group works, nothing of the user, and
// are kept.
var wellKnown = map[string]bool{
	"consumer": true, "connect": true, "range": true, "roundrobin": true, "sticky": true, "cooperative-sticky": true,
	"uniform": true, "stream": true, "default": true, "compatible": true, "sessioned": true, "share": true,
}

// Rename is the token of one name of an internal topic's record
// (topics.Renamer): "" stays "", Kafka's own names stay as they are.
func (n *namer) Rename(f topics.Field, s string) string {
	if s == "" {
		return s
	}
	switch f {
	case topics.FieldTopic:
		return n.topic(s)
	case topics.FieldGroup:
		return n.token("group", "g-", s, n.groups, n.groupTokens)
	case topics.FieldMember:
		return n.token("member", "m-", s, n.members, n.memberTokens)
	case topics.FieldProtocolType, topics.FieldProtocol:
		if wellKnown[s] {
			return s
		}
		return n.other("protocol", "p-", s)
	case topics.FieldGroupInstance:
		return n.other("instance", "i-", s)
	case topics.FieldClientID:
		return n.other("client", "c-", s)
	case topics.FieldClientHost, topics.FieldHost:
		return n.other("host", "h-", s)
	case topics.FieldTransactionalID:
		return n.other("transactional id", "x-", s)
	case topics.FieldRack:
		return n.other("rack", "r-", s)
	case topics.FieldCommitMetadata:
		// Free text nobody maps back: keyed characters of its length.
		b := []byte(s)
		n.sameLength("commit metadata", b)
		return string(b)
	}
	return s
}

// Fill replaces bytes of an internal topic's record that hold no name
// this package reads (topics.Renamer), as the payloads are.
func (n *namer) Fill(p []byte) {
	if n.fill != nil {
		n.fill(p)
	} else {
		clear(p)
	}
}

// other is the token of a name of a kind kept in others.
func (n *namer) other(kind, prefix, name string) string {
	t := n.others[prefix]
	if t == nil {
		t = &tokens{names: map[string]string{}, tokens: map[string]string{}}
		n.others[prefix] = t
	}
	return n.token(kind, prefix, name, t.names, t.tokens)
}

// sameLength replaces p in place by keyed characters of tokenChars.
func (n *namer) sameLength(kind string, p []byte) {
	key := string(p)
	at := 0
	for block := 0; at < len(p); block++ {
		for _, c := range n.sum(kind, key, block) {
			if at < len(p) {
				p[at] = tokenChars[int(c)%len(tokenChars)]
				at++
			}
		}
	}
}
