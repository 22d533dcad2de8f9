package topics

import "bytes"

// The subscription and assignment of a classic group's member are opaque
// to the group coordinator: their format is the protocol type's. That of
// the "consumer" protocol type (ConsumerProtocolSubscription and
// ConsumerProtocolAssignment, versions 0-3, not flexible) names topics,
// so a rewrite replaces them field by field; this package reads the bytes
// only to rewrite them.

// consumerProtocolMax is the highest version of the consumer protocol's
// subscription and assignment read here.
const consumerProtocolMax = 3

// protocolBytes reads a member's subscription or assignment. Under an
// editor, those of the "consumer" protocol type get their topics and rack
// replaced and their user data filled; those of any other protocol type
// (Connect's name workers by URL), or that do not read as the consumer
// protocol, are filled whole.
func (c *cursor) protocolBytes(flex bool, protocolType string, assignment bool, what string) []byte {
	start := c.off
	b := c.bytes(flex, what)
	if c.ed == nil || c.err != nil || b == nil {
		return b
	}
	var repl []byte
	if protocolType == "consumer" {
		ed := &editor{r: c.ed.r}
		if consumerProtocol(b, assignment, ed) == nil {
			repl = ed.apply(b)
		}
	}
	if repl == nil {
		repl = bytes.Clone(b)
		c.ed.r.Fill(repl)
	}
	c.replaceBytes(flex, start, repl)
	return b
}

// consumerProtocol reads a consumer protocol subscription or assignment,
// recording the replacements of its topics, rack and user data in ed.
func consumerProtocol(b []byte, assignment bool, ed *editor) error {
	c := &cursor{b: b, part: "protocol", ed: ed}
	v := c.int16("version")
	if c.err == nil && (v < 0 || v > consumerProtocolMax) {
		return &VersionError{Part: "ConsumerProtocol", Version: v, Max: consumerProtocolMax}
	}
	if assignment {
		c.topicPartitions("AssignedPartitions")
		c.opaque("UserData")
		return c.done()
	}
	n := c.arrayLen(false, 2, "Topics")
	for i := 0; i < n && c.err == nil; i++ {
		c.named(FieldTopic, false, "Topic")
	}
	c.opaque("UserData")
	if v >= 1 {
		c.topicPartitions("OwnedPartitions")
	}
	if v >= 2 {
		c.int32("GenerationId")
	}
	if v >= 3 {
		c.namedNullable(FieldRack, false, "RackId")
	}
	return c.done()
}

// topicPartitions reads a non-flexible array of topics, each with its
// partitions.
func (c *cursor) topicPartitions(what string) {
	n := c.arrayLen(false, 2+4, what)
	for i := 0; i < n && c.err == nil; i++ {
		c.named(FieldTopic, false, "Topic")
		c.int32Array(false, "Partitions")
	}
}

// opaque reads a nullable bytes field (int32 length) whose format is
// nobody's here; under an editor it is filled, its length kept.
func (c *cursor) opaque(what string) {
	start := c.off
	b := c.bytes(false, what)
	if c.ed == nil || c.err != nil || len(b) == 0 {
		return
	}
	repl := bytes.Clone(b)
	c.ed.r.Fill(repl)
	c.ed.spans = append(c.ed.spans, span{start: start + 4, end: c.off, repl: repl})
}
