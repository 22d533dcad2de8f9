package segtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
)

// DupTruth is the ground truth of GenerateDupScenarios: every duplicate
// group a correct detector reports, with the class of each later copy.
type DupTruth struct {
	Scenarios []DupScenario
}

// DupScenario is one topic of the generated log dir.
type DupScenario struct {
	Topic string
	About string
	// Strong: the later copies show a restart and a resend of the earlier
	// session's tail at the later session's head, so every restart-resend
	// or txn-retry copy is graded strong; otherwise every such copy is weak.
	Strong bool
	// Groups lists the expected groups; a group with Needs set is reported
	// only with that option ("same-pid" or "ignore-header=NAME").
	Groups []DupGroup
}

// DupGroup is one expected group, members in occurrence order.
type DupGroup struct {
	Needs   string
	Members []DupMember
}

// DupMember is one record of a group; Class is empty for the first.
type DupMember struct {
	Partition int32
	Offset    int64
	Class     string
	Damaged   bool
	// Evidence is the expected grade: strong or weak for a restart-resend
	// or txn-retry copy, empty otherwise.
	Evidence string
}

// dupGen writes the scenarios with a deterministic clock.
type dupGen struct {
	*gen
	truth DupTruth
	parts map[string]*partition
}

func (d *dupGen) part(topic string, p int32) *partition {
	k := fmt.Sprintf("%s-%d", topic, p)
	if pt := d.parts[k]; pt != nil {
		return pt
	}
	pt := d.newPartition(topic, p, "duplicate scenario")
	d.parts[k] = pt
	return pt
}

// loc is where a record landed.
type loc struct {
	part int32
	off  int64
}

// send appends one v2 batch and returns the records' locations.
func (d *dupGen) send(topic string, part int32, pid int64, epoch int16, seq *int32, txn bool, codec Codec, rs []Record) ([]loc, error) {
	p := d.part(topic, part)
	b := Batch{Magic: 2, Codec: codec, FirstTimestamp: d.now, AutoDeltas: true, Records: rs, Transactional: txn}
	if pid >= 0 {
		b.Producer = &Producer{ID: pid, Epoch: epoch, BaseSequence: *seq}
		*seq += int32(len(rs))
	}
	base := p.next
	if err := p.append(b); err != nil {
		return nil, err
	}
	d.now += 100
	out := make([]loc, len(rs))
	for i := range rs {
		out[i] = loc{part, base + int64(i)}
	}
	return out, nil
}

func (d *dupGen) marker(topic string, part int32, pid int64, epoch int16, commit bool) error {
	err := d.part(topic, part).append(MarkerBatch(0, pid, epoch, commit, 3, d.now, 0))
	d.now += 100
	return err
}

// recs makes n records with distinct content: key prefix-i, value
// "prefix value i".
func recs(prefix string, from, n int) []Record {
	rs := make([]Record, n)
	for i := range rs {
		rs[i] = Record{TimestampDelta: int64(i), Key: fmt.Appendf(nil, "%s-%d", prefix, from+i), Value: fmt.Appendf(nil, "%s value %d", prefix, from+i)}
	}
	return rs
}

// group adds an expected group: first copy, then later copies with their
// classes.
func (d *dupGen) group(s *DupScenario, needs string, first loc, later []loc, classes ...string) {
	g := DupGroup{Needs: needs, Members: []DupMember{{Partition: first.part, Offset: first.off}}}
	for i, l := range later {
		g.Members = append(g.Members, DupMember{Partition: l.part, Offset: l.off, Class: classes[i]})
	}
	s.Groups = append(s.Groups, g)
}

// pairs adds one two-member group per record of a resent batch.
func (d *dupGen) pairs(s *DupScenario, needs string, first, again []loc, class string) {
	for i := range first {
		d.group(s, needs, first[i], []loc{again[i]}, class)
	}
}

// GenerateDupScenarios writes a log dir of duplicate scenarios into dir
// (which must be missing or empty), one topic each, and returns the
// groups a correct detector reports with default options, --same-pid and
// --ignore-header trace-id. Same seed, same bytes.
func GenerateDupScenarios(dir string, seed int64) (*DupTruth, error) {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("segtest: %s is not empty", dir)
	}
	d := &dupGen{gen: &gen{rng: rand.New(rand.NewPCG(uint64(seed), 0x64757073)), segBytes: DefaultSegmentBytes}, parts: map[string]*partition{}}
	d.now = 1700000000000
	for _, f := range []func() error{d.restarts, d.keyless, d.txnRetry, d.fenced, d.committed, d.heartbeats, d.samePID, d.pidNone, d.traced, d.corrupt,
		d.replay, d.interleaved, d.startup, d.unrelated, d.retyped, d.constant, d.late, d.retries, d.dedupFailure, d.reprocess, d.rebalance} {
		if err := f(); err != nil {
			return nil, err
		}
	}
	d.grades()
	for _, p := range d.gen.parts {
		for i, s := range p.m.Segments {
			path := filepath.Join(dir, filepath.FromSlash(s.File))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, p.data[i], 0o644); err != nil {
				return nil, err
			}
		}
	}
	return &d.truth, nil
}

func (d *dupGen) scenario(topic, about string) *DupScenario {
	d.truth.Scenarios = append(d.truth.Scenarios, DupScenario{Topic: topic, About: about})
	return &d.truth.Scenarios[len(d.truth.Scenarios)-1]
}

// restarts: idempotent producer 1001 (lz4) crashes; 1002 starts 2 s later
// and resends its last two batches, writes two more, crashes; 1003 starts
// 1.5 s later with zstd and resends 1002's last three batches.
func (d *dupGen) restarts() error {
	const t = "orders"
	var seq int32
	var b [][]loc
	var rsB [][]Record
	for i := range 10 {
		rs := recs("order", i*5, 5)
		l, err := d.send(t, 0, 1001, 0, &seq, false, CodecLZ4, rs)
		if err != nil {
			return err
		}
		b, rsB = append(b, l), append(rsB, rs)
	}
	d.now += 2000
	seq = 0
	var c [][]loc
	rsC := [][]Record{rsB[8], rsB[9], recs("order", 50, 5), recs("order", 55, 5)}
	for _, rs := range rsC {
		l, err := d.send(t, 0, 1002, 0, &seq, false, CodecLZ4, rs)
		if err != nil {
			return err
		}
		c = append(c, l)
	}
	d.now += 1500
	seq = 0
	var dd [][]loc
	for _, rs := range append(slices.Clone(rsC[1:]), recs("order", 60, 5)) {
		l, err := d.send(t, 0, 1003, 0, &seq, false, CodecZstd, rs)
		if err != nil {
			return err
		}
		dd = append(dd, l)
	}
	s := d.scenario(t, "idempotent producer restarted twice, resending (second time with zstd)")
	s.Strong = true
	d.pairs(s, "", b[8], c[0], "restart-resend")
	for i := range b[9] {
		d.group(s, "", b[9][i], []loc{c[1][i], dd[0][i]}, "restart-resend", "restart-resend")
	}
	d.pairs(s, "", c[2], dd[1], "restart-resend")
	d.pairs(s, "", c[3], dd[2], "restart-resend")
	return nil
}

// keyless: producer 1101 spreads keyless batches over three partitions,
// crashes; 1102 resends the last three batches, each landing on the next
// partition.
func (d *dupGen) keyless() error {
	const t = "clicks"
	seqs := make([]int32, 3)
	var sent [][]loc
	var rss [][]Record
	for i := range 9 {
		rs := recs("click", i*4, 4)
		for j := range rs {
			rs[j].Key = nil
		}
		l, err := d.send(t, int32(i%3), 1101, 0, &seqs[i%3], false, CodecNone, rs)
		if err != nil {
			return err
		}
		sent, rss = append(sent, l), append(rss, rs)
	}
	d.now += 3000
	clear(seqs)
	s := d.scenario(t, "keyless resends landing on another partition")
	s.Strong = true
	for i := 6; i < 9; i++ {
		p := int32((i + 1) % 3)
		l, err := d.send(t, p, 1102, 0, &seqs[p], false, CodecGzip, rss[i])
		if err != nil {
			return err
		}
		d.pairs(s, "", sent[i], l, "restart-resend")
	}
	return nil
}

// txnRetry: transactional producer 2001 writes two batches and dies; 2002
// (a new transactional.id) starts 5 s later, resends them and commits;
// the coordinator aborts 2001's transaction at its timeout, later still.
func (d *dupGen) txnRetry() error {
	const t = "payments"
	var seq int32
	a1, err := d.send(t, 0, 2001, 0, &seq, true, CodecSnappy, recs("pay", 0, 3))
	if err != nil {
		return err
	}
	a2, err := d.send(t, 0, 2001, 0, &seq, true, CodecSnappy, recs("pay", 3, 3))
	if err != nil {
		return err
	}
	d.now += 5000
	seq = 0
	b1, err := d.send(t, 0, 2002, 0, &seq, true, CodecNone, recs("pay", 0, 3))
	if err != nil {
		return err
	}
	b2, err := d.send(t, 0, 2002, 0, &seq, true, CodecNone, recs("pay", 3, 3))
	if err != nil {
		return err
	}
	if err := d.marker(t, 0, 2002, 0, true); err != nil {
		return err
	}
	d.now += 55_000
	if err := d.marker(t, 0, 2001, 0, false); err != nil {
		return err
	}
	s := d.scenario(t, "transactional producer aborted (timeout), records resent by a new transactional producer")
	s.Strong = true
	d.pairs(s, "", a1, b1, "txn-retry")
	d.pairs(s, "", a2, b2, "txn-retry")
	return nil
}

// fenced: transactional producer 2101 restarts with its transactional.id:
// the coordinator fences epoch 0 with an ABORT at epoch 1, and epoch 1
// resends and commits. One PID, but the aborted copy is sent again: a
// txn-retry, reported without --same-pid.
func (d *dupGen) fenced() error {
	const t = "payments-fenced"
	var seq int32
	a, err := d.send(t, 0, 2101, 0, &seq, true, CodecNone, recs("fpay", 0, 4))
	if err != nil {
		return err
	}
	d.now += 3000
	if err := d.marker(t, 0, 2101, 1, false); err != nil {
		return err
	}
	seq = 0
	b, err := d.send(t, 0, 2101, 1, &seq, true, CodecNone, recs("fpay", 0, 4))
	if err != nil {
		return err
	}
	if err := d.marker(t, 0, 2101, 1, true); err != nil {
		return err
	}
	s := d.scenario(t, "transactional producer fenced (epoch bump), same PID resends after the abort")
	s.Strong = true
	d.pairs(s, "", a, b, "txn-retry")
	return nil
}

// committed: transactional producer 3001 commits three batches and dies;
// 3002 starts 4 s later and resends the last two, committing again: a
// duplicate even for read_committed consumers.
func (d *dupGen) committed() error {
	const t = "ledger"
	var seq int32
	var a [][]loc
	for i := range 3 {
		l, err := d.send(t, 0, 3001, 0, &seq, true, CodecLZ4, recs("entry", i*3, 3))
		if err != nil {
			return err
		}
		a = append(a, l)
	}
	if err := d.marker(t, 0, 3001, 0, true); err != nil {
		return err
	}
	d.now += 4000
	seq = 0
	s := d.scenario(t, "another producer resending committed records")
	s.Strong = true
	for i := 1; i < 3; i++ {
		l, err := d.send(t, 0, 3002, 0, &seq, true, CodecLZ4, recs("entry", i*3, 3))
		if err != nil {
			return err
		}
		d.pairs(s, "", a[i], l, "restart-resend")
	}
	return d.marker(t, 0, 3002, 0, true)
}

// heartbeats: three unrelated producers write the same heartbeat hours
// apart (repeat), and near-duplicates that differ in one header, key or
// byte, or in null versus empty, which must not match.
func (d *dupGen) heartbeats() error {
	const t = "heartbeats"
	hb := []Record{{Key: []byte("hb"), Value: []byte("alive")}}
	near := []Record{
		{Key: []byte("k1"), Value: []byte("v1"), Headers: []Header{{"h", []byte("1")}}},
		{Key: []byte("k2"), Value: []byte("v2")},
		{Key: []byte("k3"), Value: []byte("value3")},
		{Key: []byte("k4"), Value: []byte{}},
		{Key: []byte("k5"), Value: []byte("v5"), Headers: []Header{{"h", []byte{}}}},
		{Key: nil, Value: []byte("v6")},
	}
	nearer := []Record{
		{Key: []byte("k1"), Value: []byte("v1"), Headers: []Header{{"h", []byte("2")}}}, // header value
		{Key: []byte("k2 "), Value: []byte("v2")},                                       // key byte
		{Key: []byte("k3"), Value: []byte("valuE3")},                                    // value byte
		{Key: []byte("k4"), Value: nil},                                                 // null vs empty value
		{Key: []byte("k5"), Value: []byte("v5"), Headers: []Header{{"h", nil}}},         // null vs empty header
		{Key: []byte{}, Value: []byte("v6")},                                            // null vs empty key
	}
	var seq [3]int32
	var first [3]loc
	for i, pid := range []int64{4001, 4002, 4003} {
		if i > 0 {
			d.now += 3 * 3_600_000
		}
		l, err := d.send(t, 0, pid, 0, &seq[i], false, CodecNone, hb)
		if err != nil {
			return err
		}
		first[i] = l[0]
		rs := near
		if i == 1 {
			rs = nearer
		}
		if i < 2 {
			if _, err := d.send(t, 0, pid, 0, &seq[i], false, CodecNone, rs); err != nil {
				return err
			}
		}
	}
	s := d.scenario(t, "constant heartbeats from unrelated producers hours apart; near-duplicates that must not match")
	d.group(s, "", first[0], first[1:], "repeat", "repeat")
	return nil
}

// samePID: producer 5001 writes the same record twice in one session (an
// application-level retry), reported only with --same-pid.
func (d *dupGen) samePID() error {
	const t = "metrics"
	var seq int32
	a, err := d.send(t, 0, 5001, 0, &seq, false, CodecNone, recs("m", 0, 2))
	if err != nil {
		return err
	}
	if _, err := d.send(t, 0, 5001, 0, &seq, false, CodecNone, recs("m", 2, 2)); err != nil {
		return err
	}
	b, err := d.send(t, 0, 5001, 0, &seq, false, CodecNone, recs("m", 0, 2))
	if err != nil {
		return err
	}
	s := d.scenario(t, "one producer session writing the same records twice")
	d.pairs(s, "same-pid", a, b, "repeat")
	return nil
}

// pidNone mixes PID -1 (non-idempotent) writes with idempotent producer
// 6001: content written by both is a cross-writer group; content written
// twice by PID -1 only is a same-PID repeat.
func (d *dupGen) pidNone() error {
	const t = "mixed"
	var none, seq int32
	y, err := d.send(t, 0, -1, -1, &none, false, CodecNone, recs("y", 0, 2))
	if err != nil {
		return err
	}
	z, err := d.send(t, 0, -1, -1, &none, false, CodecNone, recs("z", 0, 1))
	if err != nil {
		return err
	}
	y2, err := d.send(t, 0, 6001, 0, &seq, false, CodecNone, recs("y", 0, 2))
	if err != nil {
		return err
	}
	w, err := d.send(t, 0, 6001, 0, &seq, false, CodecNone, recs("w", 0, 1))
	if err != nil {
		return err
	}
	z2, err := d.send(t, 0, -1, -1, &none, false, CodecNone, recs("z", 0, 1))
	if err != nil {
		return err
	}
	w2, err := d.send(t, 0, -1, -1, &none, false, CodecGzip, recs("w", 0, 1))
	if err != nil {
		return err
	}
	s := d.scenario(t, "PID -1 records mixed with an idempotent producer")
	d.pairs(s, "", y, y2, "repeat") // PID -1 was still writing: concurrent
	d.pairs(s, "", w, w2, "repeat") // PID -1 has no session to date a restart
	d.pairs(s, "same-pid", z, z2, "repeat")
	return nil
}

// traced: producer 7001 sends with a per-send trace-id header, crashes;
// 7002 resends with new trace ids. Only --ignore-header trace-id matches.
func (d *dupGen) traced() error {
	const t = "traced"
	mk := func(tag string) []Record {
		rs := recs("tr", 0, 4)
		for i := range rs {
			rs[i].Headers = []Header{{"source", []byte("web")}, {"trace-id", fmt.Appendf(nil, "%s-%d", tag, i)}}
		}
		return rs
	}
	var seq int32
	a, err := d.send(t, 0, 7001, 0, &seq, false, CodecNone, mk("aaaa"))
	if err != nil {
		return err
	}
	d.now += 2000
	seq = 0
	b, err := d.send(t, 0, 7002, 0, &seq, false, CodecNone, mk("bbbb"))
	if err != nil {
		return err
	}
	s := d.scenario(t, "resend with new per-send trace-id headers")
	s.Strong = true
	d.pairs(s, "ignore-header=trace-id", a, b, "restart-resend")
	return nil
}

// corrupt: producer 8001's third batch has a damaged CRC (its records
// still decode); 8002 resends it 1 s later. The group is reported with
// the first copy marked damaged.
func (d *dupGen) corrupt() error {
	const t = "corrupt"
	var seq int32
	var last []loc
	for i := range 3 {
		l, err := d.send(t, 0, 8001, 0, &seq, false, CodecNone, recs("c", i*3, 3))
		if err != nil {
			return err
		}
		last = l
	}
	p := d.part(t, 0)
	seg := &p.m.Segments[len(p.m.Segments)-1]
	e := seg.Batches[len(seg.Batches)-1]
	p.data[len(p.data)-1][e.Position+17] ^= 0xff // the stored CRC
	d.now += 1000
	seq = 0
	again, err := d.send(t, 0, 8002, 0, &seq, false, CodecNone, recs("c", 6, 3))
	if err != nil {
		return err
	}
	s := d.scenario(t, "first copy in a batch with a bad CRC")
	s.Strong = true
	for i := range last {
		s.Groups = append(s.Groups, DupGroup{Members: []DupMember{{Partition: 0, Offset: last[i].off, Damaged: true},
			{Partition: 0, Offset: again[i].off, Class: "restart-resend"}}})
	}
	return nil
}
