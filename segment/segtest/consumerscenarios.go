package segtest

// Scenarios of the consumer-side causes: a consume-transform-produce
// application whose group's commits and generations are in
// __consumer_offsets beside its input and output topics.

// ConsumerOffsets is the internal topic of the groups' records.
const ConsumerOffsets = "__consumer_offsets"

// commit appends group's commit of offset on topic's partition.
func (d *dupGen) commit(group, topic string, part int32, offset int64) error {
	rs := []Record{{Key: OffsetCommitKey(group, topic, part), Value: OffsetCommitValue(offset, 0, d.now)}}
	err := d.part(ConsumerOffsets, 0).append(Batch{Magic: 2, FirstTimestamp: d.now, AutoDeltas: true, Records: rs})
	d.now += 100
	return err
}

// generation appends group's metadata at generation gen.
func (d *dupGen) generation(group string, gen int32, members ...GroupMember) error {
	rs := []Record{{Key: GroupMetadataKey(group), Value: GroupMetadataValue(gen, d.now, members)}}
	err := d.part(ConsumerOffsets, 0).append(Batch{Magic: 2, FirstTimestamp: d.now, AutoDeltas: true, Records: rs})
	d.now += 100
	return err
}

func member(id, host string) GroupMember {
	return GroupMember{MemberID: id + "-0001", ClientID: id, ClientHost: host, RebalanceTimeout: 300_000, SessionTimeout: 45_000}
}

// ReprocessHint and RebalanceHint are the pipelines of the two scenarios,
// as the --pipeline flag takes them.
const (
	ReprocessHint = "rp-app:rp-in:rp-out"
	RebalanceHint = "zb-app:zb-in:zb-out"
)

// reprocess: group rp-app (generation 1, one member) reads rp-in-0 and
// writes one output per input to rp-out-0 under PID 9911, committing
// after every four; it writes the outputs of inputs 8 and 9 and dies
// before committing them. Three seconds later its next instance joins
// (generation 2), re-reads from offset 8 under PID 9912, writes those
// two outputs again, then goes on and commits 10 and 14.
func (d *dupGen) reprocess() error {
	const in, out, group = "rp-in", "rp-out", "rp-app"
	var upSeq, seqA, seqB int32
	if _, err := d.send(in, 0, 9901, 0, &upSeq, false, CodecNone, recs("order", 0, 16)); err != nil {
		return err
	}
	if err := d.generation(group, 1, member("rp-app-1", "/10.0.0.1")); err != nil {
		return err
	}
	var first []loc
	for i := 0; i < 10; i += 2 {
		l, err := d.send(out, 0, 9911, 0, &seqA, false, CodecNone, recs("invoice", i, 2))
		if err != nil {
			return err
		}
		if i == 8 {
			first = l
		}
		if i%4 == 2 {
			if err := d.commit(group, in, 0, int64(i+2)); err != nil {
				return err
			}
		}
	}
	d.now += 3000
	if err := d.generation(group, 2, member("rp-app-2", "/10.0.0.2")); err != nil {
		return err
	}
	again, err := d.send(out, 0, 9912, 0, &seqB, false, CodecNone, recs("invoice", 8, 2))
	if err != nil {
		return err
	}
	if err := d.commit(group, in, 0, 10); err != nil {
		return err
	}
	if _, err := d.send(out, 0, 9912, 0, &seqB, false, CodecNone, recs("invoice", 10, 4)); err != nil {
		return err
	}
	if err := d.commit(group, in, 0, 14); err != nil {
		return err
	}
	s := d.scenario(out, "a consume-transform-produce application that died before committing its input re-read it and wrote its outputs again")
	d.causePairs(s, "", first, again, "reprocess", "weak")
	return nil
}

// rebalance: group zb-app's members A (PID 9961, zb-in-0) and B (PID
// 9962, zb-in-1) write one output per input to zb-out-0 and commit 4
// each. A reads inputs 4 to 7 and pauses; the group moves zb-in-0 to B
// (generation 2, A gone), which re-reads from 4 and writes their outputs;
// A resumes and writes the same outputs from what it had read, then
// rejoins (generation 3).
func (d *dupGen) rebalance() error {
	const in, out, group = "zb-in", "zb-out", "zb-app"
	var up0, up1, seqA, seqB int32
	for p, seq := range []*int32{&up0, &up1} {
		if _, err := d.send(in, int32(p), 9951, 0, seq, false, CodecNone, recs("click", p*100, 12)); err != nil {
			return err
		}
	}
	a, b := member("zb-app-a", "/10.0.1.1"), member("zb-app-b", "/10.0.1.2")
	if err := d.generation(group, 1, a, b); err != nil {
		return err
	}
	for _, w := range []struct {
		pid  int64
		seq  *int32
		part int32
	}{{9961, &seqA, 0}, {9962, &seqB, 1}} {
		if _, err := d.send(out, 0, w.pid, 0, w.seq, false, CodecNone, recs("view", int(w.part)*100, 4)); err != nil {
			return err
		}
		if err := d.commit(group, in, w.part, 4); err != nil {
			return err
		}
	}
	d.now += 5000 // A is paused with inputs 4 to 7 in hand
	if err := d.generation(group, 2, b); err != nil {
		return err
	}
	first, err := d.send(out, 0, 9962, 0, &seqB, false, CodecNone, recs("view", 4, 4))
	if err != nil {
		return err
	}
	if err := d.commit(group, in, 0, 8); err != nil {
		return err
	}
	again, err := d.send(out, 0, 9961, 0, &seqA, false, CodecNone, recs("view", 4, 4))
	if err != nil {
		return err
	}
	d.now += 2000
	if err := d.generation(group, 3, b, a); err != nil {
		return err
	}
	if _, err := d.send(out, 0, 9962, 0, &seqB, false, CodecNone, recs("view", 104, 4)); err != nil {
		return err
	}
	s := d.scenario(out, "a member paused past its poll interval lost its partition in a rebalance, and wrote what it had read after its successor had")
	d.causePairs(s, "", first, again, "rebalance", "weak")
	return nil
}
