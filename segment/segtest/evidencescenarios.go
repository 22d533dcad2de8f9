package segtest

// Scenarios that pin the evidence grade of restart-resend copies: a
// replay longer than the in-flight window (strong), and repeats across
// producer sessions that a restart rule alone would call resends
// (weak): startup messages, unrelated heartbeats, a retyped line, a
// constant value, and a resend long after the later session began.

// grades fills in the expected grade of every restart-resend and
// txn-retry copy from its scenario.
func (d *dupGen) grades() {
	for i := range d.truth.Scenarios {
		s := &d.truth.Scenarios[i]
		for j := range s.Groups {
			for k := range s.Groups[j].Members {
				m := &s.Groups[j].Members[k]
				if m.Class != "restart-resend" && m.Class != "txn-retry" {
					continue
				}
				m.Evidence = "weak"
				if s.Strong {
					m.Evidence = "strong"
				}
			}
		}
	}
}

// replay: producer 9001 writes 12 batches and crashes; 9002 starts 4 s
// later, replays the last 8 batches from its own checkpoint (more than
// the 5 batches a producer keeps in flight), in snappy instead of gzip,
// then goes on with new records.
func (d *dupGen) replay() error {
	const t = "replayed"
	var seq int32
	var a [][]loc
	var rss [][]Record
	for i := range 12 {
		rs := recs("evt", i*3, 3)
		l, err := d.send(t, 0, 9001, 0, &seq, false, CodecGzip, rs)
		if err != nil {
			return err
		}
		a, rss = append(a, l), append(rss, rs)
	}
	d.now += 4000
	seq = 0
	s := d.scenario(t, "replay from a checkpoint, longer than the in-flight window, with a codec change")
	s.Strong = true
	for i := 4; i < 12; i++ {
		l, err := d.send(t, 0, 9002, 0, &seq, false, CodecSnappy, rss[i])
		if err != nil {
			return err
		}
		d.pairs(s, "", a[i], l, "restart-resend")
	}
	_, err := d.send(t, 0, 9002, 0, &seq, false, CodecSnappy, recs("evt", 36, 3))
	return err
}

// startup: an application starts a new producer for each message (as an
// IDE plugin does): four sessions 20 s apart each write the same startup
// message and nothing else.
func (d *dupGen) startup() error {
	const t = "startup"
	msg := []Record{{Value: []byte(`{"event":"service started"}`)}}
	var first loc
	var later []loc
	for i := range 4 {
		if i > 0 {
			d.now += 20_000
		}
		var seq int32
		l, err := d.send(t, 0, int64(9101+i), 0, &seq, false, CodecNone, msg)
		if err != nil {
			return err
		}
		if i == 0 {
			first = l[0]
		} else {
			later = append(later, l[0])
		}
	}
	s := d.scenario(t, "one-record sessions sending a constant startup message")
	d.group(s, "", first, later, "restart-resend", "restart-resend", "restart-resend")
	return nil
}

// unrelated: service 9201 writes data and a heartbeat, then stops; an
// unrelated service 9202 starts 30 s later and its first record is the
// same heartbeat, then its own data.
func (d *dupGen) unrelated() error {
	const t = "health"
	hb := []Record{{Key: []byte("hb"), Value: []byte("ok")}}
	var s1, s2 int32
	if _, err := d.send(t, 0, 9201, 0, &s1, false, CodecNone, recs("svc-a", 0, 4)); err != nil {
		return err
	}
	a, err := d.send(t, 0, 9201, 0, &s1, false, CodecNone, hb)
	if err != nil {
		return err
	}
	d.now += 30_000
	b, err := d.send(t, 0, 9202, 0, &s2, false, CodecNone, hb)
	if err != nil {
		return err
	}
	if _, err := d.send(t, 0, 9202, 0, &s2, false, CodecNone, recs("svc-b", 0, 4)); err != nil {
		return err
	}
	s := d.scenario(t, "heartbeats from unrelated producers")
	d.pairs(s, "", a, b, "restart-resend")
	return nil
}

// retyped: a person types three lines in a console producer, quits, and
// 5 min later types the last line again in a new session, then others.
func (d *dupGen) retyped() error {
	const t = "console"
	line := func(s string) []Record { return []Record{{Value: []byte(s)}} }
	var s1, s2 int32
	var last []loc
	for _, l := range []string{"hello", "test 1", "hi"} {
		x, err := d.send(t, 0, 9301, 0, &s1, false, CodecNone, line(l))
		if err != nil {
			return err
		}
		last = x
		d.now += 4000
	}
	d.now += 5 * 60_000
	again, err := d.send(t, 0, 9302, 0, &s2, false, CodecNone, line("hi"))
	if err != nil {
		return err
	}
	d.now += 3000
	if _, err := d.send(t, 0, 9302, 0, &s2, false, CodecNone, line("still there?")); err != nil {
		return err
	}
	s := d.scenario(t, "a person retyping a line in a new console session")
	d.pairs(s, "", last, again, "restart-resend")
	return nil
}

// constant: producer 9401 ends with a "ping"; 9402 starts 2 s later and
// writes "ping" five times in a row among its own records. The first may
// be a resend (weakly: one value); the other four repeat 9402's own,
// and a restarted producer resends a record once.
func (d *dupGen) constant() error {
	const t = "pings"
	ping := []Record{{Value: []byte("ping")}}
	var s1, s2 int32
	if _, err := d.send(t, 0, 9401, 0, &s1, false, CodecNone, recs("p", 0, 3)); err != nil {
		return err
	}
	a, err := d.send(t, 0, 9401, 0, &s1, false, CodecNone, ping)
	if err != nil {
		return err
	}
	d.now += 2000
	var later []loc
	var classes []string
	for i := range 5 {
		l, err := d.send(t, 0, 9402, 0, &s2, false, CodecNone, ping)
		if err != nil {
			return err
		}
		class := "repeat"
		if i == 0 {
			class = "restart-resend"
		}
		later, classes = append(later, l[0]), append(classes, class)
	}
	if _, err := d.send(t, 0, 9402, 0, &s2, false, CodecNone, recs("q", 0, 3)); err != nil {
		return err
	}
	s := d.scenario(t, "a constant value repeated inside the later session")
	d.group(s, "", a[0], later, classes...)
	return nil
}

// late: producer 9501 writes ten batches and stops; 9502 starts 3 s
// later, writes 60 records of its own over several minutes, then writes
// 9501's last two batches again.
func (d *dupGen) late() error {
	const t = "late"
	var s1, s2 int32
	var a [][]loc
	var rss [][]Record
	for i := range 10 {
		rs := recs("old", i*2, 2)
		l, err := d.send(t, 0, 9501, 0, &s1, false, CodecNone, rs)
		if err != nil {
			return err
		}
		a, rss = append(a, l), append(rss, rs)
	}
	d.now += 3000
	for i := range 12 {
		if _, err := d.send(t, 0, 9502, 0, &s2, false, CodecNone, recs("new", i*5, 5)); err != nil {
			return err
		}
		d.now += 20_000
	}
	s := d.scenario(t, "repeats long after the later session started")
	for i := 8; i < 10; i++ {
		l, err := d.send(t, 0, 9502, 0, &s2, false, CodecNone, rss[i])
		if err != nil {
			return err
		}
		d.pairs(s, "", a[i], l, "restart-resend")
	}
	return nil
}

// interleaved: producer 9601 writes keyless batches of 15 records to
// partitions 0 and 1 in turn and crashes; 9602 replays its last two
// batches of each, in the order they were produced, all landing on
// partition 2: the records of the two earlier partitions interleave.
func (d *dupGen) interleaved() error {
	const t = "replayed-keyless"
	seqs := make([]int32, 3)
	var sent [][]loc
	var rss [][]Record
	for i := range 6 {
		rs := recs("kl", i*15, 15)
		for j := range rs {
			rs[j].Key = nil
		}
		l, err := d.send(t, int32(i%2), 9601, 0, &seqs[i%2], false, CodecLZ4, rs)
		if err != nil {
			return err
		}
		sent, rss = append(sent, l), append(rss, rs)
	}
	d.now += 2500
	s := d.scenario(t, "keyless replay interleaving two earlier partitions into one")
	s.Strong = true
	for i := 2; i < 6; i++ {
		l, err := d.send(t, 2, 9602, 0, &seqs[2], false, CodecLZ4, rss[i])
		if err != nil {
			return err
		}
		d.pairs(s, "", sent[i], l, "restart-resend")
	}
	return nil
}
