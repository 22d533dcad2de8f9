// Package brokerlog reads a Kafka broker's own log files (server.log,
// state-change.log, controller.log, log-cleaner.log, kafkaServer.out and
// their rotated forms server.log.1, server.log.2024-01-31-13) for the
// events a loss post-mortem lines up against the data files: leader
// elections, unclean ones, truncation, log recovery, invalid messages,
// index rebuilds, producer fencing, ISR changes, controller changes,
// startup and shutdown.
//
// A line is an entry when it starts with a timestamp, in the layout
// Kafka's log4j and log4j2 configurations write ("[2024-01-31 13:05:09,123]
// INFO message (logger)") or an ISO 8601 one. Lines that continue an
// entry (stack traces, the KafkaConfig dump) belong to it; any other line
// is counted as unparsed, never an error. Kafka writes local time without
// a zone: such times are read as UTC.
package brokerlog

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ksleuth/ksleuth/analysis"
)

// Source is the cluster_events source of these events.
const Source = "broker-log"

// Event kinds that only the broker logs show (the others are those of the
// metadata log: leader-change, unclean-election, isr-shrink, isr-expand).
const (
	KindTruncation       = "truncation"
	KindLogRecovery      = "log-recovery"
	KindInvalidMessages  = "invalid-messages"
	KindIndexRebuild     = "index-rebuild"
	KindProducerFenced   = "producer-fenced"
	KindControllerChange = "controller-change"
	KindStartup          = "broker-startup"
	KindShutdown         = "broker-shutdown"
	KindBecomeFollower   = "become-follower"
)

var baseNames = []string{"server", "state-change", "controller", "log-cleaner", "kafka-authorizer", "kafka-request", "kafkaServer"}

// IsLogName reports whether a file's base name is one of a broker's log
// files, rotated or not. None of them is a segment: a segment's name is 20
// digits and ".log".
func IsLogName(name string) bool {
	for _, b := range baseNames {
		for _, ext := range []string{".log", ".out"} {
			full := b + ext
			if name == full {
				return true
			}
			if rest, ok := strings.CutPrefix(name, full+"."); ok && rotation().MatchString(rest) {
				return true
			}
		}
		// log4j2 rolling names: server-2024-01-31-1.log
		if rest, ok := strings.CutPrefix(name, b+"-"); ok && strings.HasSuffix(rest, ".log") && rotation().MatchString(strings.TrimSuffix(rest, ".log")) {
			return true
		}
	}
	return false
}

// rotation matches the tail of a rotated name: a count or a date.
var rotation = lazyRegexp(`^(\d{1,4}|\d{4}-\d{2}-\d{2}(-\d{2})?(-\d{1,4})?)$`)

// lazyRegexp compiles expr when it is first used: every command links
// this package, and compiling its expressions at start cost each of them
// a third of a millisecond, though only scans of broker logs use them.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// maxLine bounds what is kept of a line; a longer one is cut there.
const maxLine = 64 << 10

// rule maps a message to an event kind.
type rule struct {
	kind string
	re   *regexp.Regexp
}

var rules = sync.OnceValue(func() []rule {
	return []rule{
		{"unclean-election", regexp.MustCompile(`using an unclean election|[Uu]nclean leader election|elected .*outside (the )?ISR`)},
		{KindTruncation, regexp.MustCompile(`[Tt]runcating (to|partition|log)|[Tt]runcated to offset|Truncating .* to offset`)},
		{KindInvalidMessages, regexp.MustCompile(`Found invalid messages|CorruptRecordException|[Ii]nvalid (message|record|batch)`)},
		{KindIndexRebuild, regexp.MustCompile(`[Cc]orrupt(ed)? index|[Rr]ebuilding index|` +
			`[Rr]ebuild(ing)? (the )?(offset |time )?index|index file .*(corrupt|rebuild)`)},
		{KindLogRecovery, regexp.MustCompile(`Recovering unflushed segment|[Rr]ecovering segment|Running log recovery|[Ll]og recovery|unclean log dirs = \[[^\]]`)},
		{KindProducerFenced, regexp.MustCompile(`ProducerFenced|InvalidProducerEpoch|[Pp]roducer .*fenced|has been fenced|fenced by a newer`)},
		{"isr-shrink", regexp.MustCompile(`Shrinking ISR`)},
		{"isr-expand", regexp.MustCompile(`Expanding ISR`)},
		{"leader-change", regexp.MustCompile(`Leader \S+ .*starts at leader epoch|[Bb]ecom(e|ing) (the )?leader|[Nn]ew leader`)},
		{KindBecomeFollower, regexp.MustCompile(`Follower \S+ starts at leader epoch|[Bb]ecom(e|ing) (a )?follower`)},
		{KindControllerChange, regexp.MustCompile(`Recorded new (KRaft )?controller|` +
			`[Bb]ecoming the active controller|is now the active controller|[Cc]ontroller (changed|failover)|Completed transition to Leader`)},
		{KindStartup, regexp.MustCompile(`(Kafka ?Server|KafkaRaftServer|KafkaServer)[^\]]*\] started|Kafka Server started`)},
		{KindShutdown, regexp.MustCompile(`(KafkaRaftServer|KafkaServer|BrokerServer|ControllerServer|Kafka ?Server)` +
			`[^\]]*\]? ?(shutting down|shut down completed|[Ss]hutting down)|Kafka Server shut down`)},
	}
})

// selfRe finds the node that writes a log: the config dump at startup or
// the server's own context. Entries naming no broker are that node's.
var selfRe = lazyRegexp(`^\s+(?:node|broker)\.id = (\d+)\s*$|\[(?:KafkaRaftServer nodeId|KafkaServer id|BrokerServer id|ControllerServer id)=(\d+)\]`)

var (
	// The broker an entry is about: an uncleanly elected leader, else the
	// one the entry's context names.
	brokerRe = lazyRegexp(`\bto (\d+) using an unclean election|\b(?:Broker id|broker|nodeId|node|replicaId|id)=(\d+)`)
	partRe   = lazyRegexp(`(?:partition[= ]|Leader |Follower |\[Partition )([A-Za-z0-9._-]+-\d+)\b`)
	// [2024-01-31 13:05:09,123] LEVEL rest, or 2024-01-31 13:05:09,123 LEVEL
	// rest, or 2024-01-31T13:05:09.123Z LEVEL rest.
	stampRe = lazyRegexp(`^\[?(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:[,.](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?\]?` + // the time
		`\s+(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\s+(.*)$`) // the level, the message
)

// Parse reads one log file and returns its events: one row per entry that
// matches an event rule. input and file name the row's evidence (File,
// Line).
func Parse(r io.Reader, input int32, file string) ([]analysis.ClusterEventRow, analysis.LogLineStats, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var st analysis.LogLineStats
	var out []analysis.ClusterEventRow
	inEntry := false
	self := int32(-1)
	defer func() {
		if self < 0 {
			return
		}
		for i := range out {
			if out[i].Broker == nil {
				b := self
				out[i].Broker = &b
			}
		}
	}()
	for {
		line, long, err := readLine(br)
		if len(line) > 0 || err == nil {
			st.Lines++
			if self < 0 {
				if m := selfRe().FindStringSubmatch(line); m != nil {
					if id, err := strconv.ParseInt(m[1]+m[2], 10, 32); err == nil {
						self = int32(id)
					}
				}
			}
			if long {
				st.Long++
			}
			switch ev, ok := entry(line); {
			case ok:
				st.Entries++
				inEntry = true
				if ev != nil {
					ev.Input, ev.File = input, file
					n := int32(min(st.Lines, 1<<31-1))
					ev.Line = &n
					out = append(out, *ev)
				}
			case strings.TrimSpace(line) == "":
			case inEntry && continuation(line):
				st.Continuations++
			default:
				st.Unparsed++
			}
		}
		if errors.Is(err, io.EOF) {
			return out, st, nil
		}
		if err != nil {
			return out, st, err
		}
	}
}

// readLine reads one line without its end, keeping at most maxLine bytes.
func readLine(br *bufio.Reader) (string, bool, error) {
	var b []byte
	long := false
	for {
		frag, err := br.ReadSlice('\n')
		if len(b)+len(frag) <= maxLine {
			b = append(b, frag...)
		} else {
			long = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return strings.TrimRight(string(b), "\r\n"), long, err
	}
}

// continuation reports whether a line continues the entry before it.
func continuation(line string) bool {
	if line[0] == ' ' || line[0] == '\t' {
		return true
	}
	for _, p := range []string{"Caused by", "at ", "...", "java.", "javax.", "org.", "kafka.", "scala.", "com.", "Exception", "Error"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// entry parses a timestamped line: ok when it is one, with its event
// when a rule matches.
func entry(line string) (*analysis.ClusterEventRow, bool) {
	m := stampRe().FindStringSubmatch(line)
	if m == nil {
		return nil, false
	}
	ts, ok := stamp(m[1], m[2], m[3], m[4])
	if !ok {
		return nil, false
	}
	msg := m[6]
	for _, r := range rules() {
		if !r.re.MatchString(msg) {
			continue
		}
		ev := &analysis.ClusterEventRow{Time: &ts, Kind: r.kind, Source: Source, Details: clip(m[5] + " " + msg)}
		if b := brokerRe().FindStringSubmatch(msg); b != nil {
			if id, err := strconv.ParseInt(b[1]+b[2], 10, 32); err == nil {
				v := int32(id)
				ev.Broker = &v
			}
		}
		if p := partRe().FindStringSubmatch(msg); p != nil {
			if i := strings.LastIndexByte(p[1], '-'); i > 0 {
				if n, err := strconv.ParseInt(p[1][i+1:], 10, 32); err == nil {
					t, part := p[1][:i], int32(n)
					ev.Topic, ev.Partition = &t, &part
				}
			}
		}
		return ev, true
	}
	return nil, true
}

func stamp(day, clock, frac, zone string) (int64, bool) {
	layout := "2006-01-02 15:04:05"
	s := day + " " + clock
	t, err := time.Parse(layout, s)
	if err != nil {
		return 0, false
	}
	if frac != "" {
		for len(frac) < 9 {
			frac += "0"
		}
		ns, _ := strconv.Atoi(frac[:9])
		t = t.Add(time.Duration(ns))
	}
	if zone != "" && zone != "Z" {
		z := strings.ReplaceAll(zone, ":", "")
		h, _ := strconv.Atoi(z[1:3])
		mi, _ := strconv.Atoi(z[3:5])
		off := time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute
		if z[0] == '+' {
			t = t.Add(-off)
		} else {
			t = t.Add(off)
		}
	}
	return t.UnixMilli(), true
}

func clip(s string) string {
	if len(s) <= 400 {
		return s
	}
	n := 400
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
