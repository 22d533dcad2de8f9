package segtest

// Scenarios of the causes that need no second writer: a producer without
// idempotence retrying batches the broker had appended, and a broker
// appending an idempotent producer's batch twice (synthetic: a broker
// that works does not).

// sendAt appends one v2 batch whose first record is stamped ts, without
// moving the clock: a retry carries the timestamps its records were given
// when they were first sent.
func (d *dupGen) sendAt(ts int64, topic string, part int32, pid int64, epoch int16, seq int32, codec Codec, rs []Record) ([]loc, error) {
	p := d.part(topic, part)
	b := Batch{Magic: 2, Codec: codec, FirstTimestamp: ts, AutoDeltas: true, Records: rs}
	if pid >= 0 {
		b.Producer = &Producer{ID: pid, Epoch: epoch, BaseSequence: seq}
	}
	base := p.next
	if err := p.append(b); err != nil {
		return nil, err
	}
	out := make([]loc, len(rs))
	for i := range rs {
		out[i] = loc{part, base + int64(i)}
	}
	return out, nil
}

// causePairs adds one two-member group per record, each later copy of
// the class and grade given.
func (d *dupGen) causePairs(s *DupScenario, needs string, first, again []loc, class, evidence string) {
	for i := range first {
		s.Groups = append(s.Groups, DupGroup{Needs: needs, Members: []DupMember{{Partition: first[i].part, Offset: first[i].off},
			{Partition: again[i].part, Offset: again[i].off, Class: class, Evidence: evidence}}})
	}
}

// retries: a producer without idempotence (PID -1) writes six batches of
// four records while another one writes between them; its requests for
// batches 2 and 3 time out after the broker appended them, and it sends
// them again as they were; batches 4 and 5 are retried as one batch of
// eight, in another codec, as librdkafka re-batches. A record sent alone
// and retried alone is a possible retry. The application sends batch 0
// again with new timestamps, and writes one record twice in one batch:
// neither is a retry, and both are seen only with --same-pid.
func (d *dupGen) retries() error {
	const t = "retried"
	var none int32
	type sent struct {
		ts  int64
		rs  []Record
		loc []loc
	}
	var b []sent
	for i := range 6 {
		rs := recs("reading", i*4, 4)
		ts := d.now
		l, err := d.send(t, 0, -1, -1, &none, false, CodecNone, rs)
		if err != nil {
			return err
		}
		b = append(b, sent{ts, rs, l})
		if i%2 == 1 {
			if _, err := d.send(t, 0, -1, -1, &none, false, CodecNone, recs("other", i*2, 2)); err != nil {
				return err
			}
		}
	}
	s := d.scenario(t, "a producer without idempotence retrying batches the broker had appended, once re-batched")
	s.Strong = true
	for _, i := range []int{2, 3} {
		l, err := d.sendAt(b[i].ts, t, 0, -1, -1, 0, CodecNone, b[i].rs)
		if err != nil {
			return err
		}
		d.causePairs(s, "", b[i].loc, l, "retry", "strong")
	}
	merged := append(append([]Record(nil), b[4].rs...), b[5].rs...)
	for j := range b[5].rs {
		merged[4+j].TimestampDelta += b[5].ts - b[4].ts
	}
	l, err := d.sendAt(b[4].ts, t, 0, -1, -1, 0, CodecLZ4, merged)
	if err != nil {
		return err
	}
	d.causePairs(s, "", append(append([]loc(nil), b[4].loc...), b[5].loc...), l, "retry", "strong")
	lone := recs("alarm", 0, 1)
	ts := d.now
	first, err := d.send(t, 0, -1, -1, &none, false, CodecNone, lone)
	if err != nil {
		return err
	}
	if _, err := d.send(t, 0, -1, -1, &none, false, CodecNone, recs("other", 20, 1)); err != nil {
		return err
	}
	again, err := d.sendAt(ts, t, 0, -1, -1, 0, CodecNone, lone)
	if err != nil {
		return err
	}
	d.causePairs(s, "", first, again, "retry", "weak")
	resent, err := d.send(t, 0, -1, -1, &none, false, CodecNone, b[0].rs)
	if err != nil {
		return err
	}
	d.causePairs(s, "same-pid", b[0].loc, resent, "repeat", "")
	twice := []Record{{Key: []byte("status"), Value: []byte("up")}, {Key: []byte("status"), Value: []byte("up")}}
	l, err = d.send(t, 0, -1, -1, &none, false, CodecNone, twice)
	if err != nil {
		return err
	}
	d.causePairs(s, "same-pid", l[:1], l[1:], "repeat", "")
	return nil
}

// dedupFailure (synthetic): idempotent producer 9801 writes three
// batches, and the broker appends the third again with its PID, epoch,
// sequences and timestamps, as one that lost the producer's state would;
// then 9801 goes on. Producer 9802 writes a record and, later, the same
// record under the same sequence 0, as a client that reset its sequence
// numbers does: a possible dedup failure.
func (d *dupGen) dedupFailure() error {
	const t = "dedup-synthetic"
	var seq int32
	var last []loc
	var rs []Record
	var ts int64
	for i := range 3 {
		rs, ts = recs("txn", i*3, 3), d.now
		l, err := d.send(t, 0, 9801, 0, &seq, false, CodecNone, rs)
		if err != nil {
			return err
		}
		last = l
	}
	again, err := d.sendAt(ts, t, 0, 9801, 0, seq-3, CodecNone, rs)
	if err != nil {
		return err
	}
	if _, err := d.send(t, 0, 9801, 0, &seq, false, CodecNone, recs("txn", 9, 3)); err != nil {
		return err
	}
	s := d.scenario(t, "synthetic: the broker appended a batch twice under the same PID, epoch and sequences (a dedup failure)")
	s.Strong = true
	d.causePairs(s, "", last, again, "dedup-failure", "strong")
	var seq2 int32
	hb := []Record{{Key: []byte("svc"), Value: []byte("ready")}}
	first, err := d.send(t, 1, 9802, 0, &seq2, false, CodecNone, hb)
	if err != nil {
		return err
	}
	d.now += 60_000
	seq2 = 0
	reset, err := d.send(t, 1, 9802, 0, &seq2, false, CodecNone, hb)
	if err != nil {
		return err
	}
	d.causePairs(s, "", first, reset, "dedup-failure", "weak")
	return nil
}
