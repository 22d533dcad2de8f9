package replicas

import (
	"cmp"
	"slices"
)

// A copy that no other dir of the run holds (analysis.BatchRow.SoleCopy)
// is compared with nothing: no group has a second copy for it, and no
// remote dir of its partition was listed (a remote store's dirs count as
// copies). Of its batches it keeps what its view derives from them, its
// start, log end and the first batch of each leader epoch, folded as the
// batches arrive, not their 64-byte headers, which for a one-broker input
// of 10^8 records are 600 MB held to the end of the run.

// soleFold is what a sole copy keeps of its batches.
type soleFold struct {
	batches    int64 // folded so far
	start, leo int64 // the least base offset; the greatest last offset + 1
	// firsts are, per leader epoch (≥ 0), the batch of the least base
	// offset, the earliest to come of those at that offset.
	firsts []epochFirst
	// at indexes firsts by epoch once they are many: a copy whose every
	// batch has another epoch would otherwise search a long slice.
	at map[int32]int
}

// epochFirst is the first batch of one leader epoch in a sole copy: its
// base offset, and its place in the order the batches came (seq).
type epochFirst struct {
	epoch int32
	base  int64
	seq   int64
}

// foldIndexed is the number of epochs past which firsts is indexed.
const foldIndexed = 16

// add folds one batch into f.
func (f *soleFold) add(base, last int64, epoch int32) {
	seq := f.batches
	if f.batches == 0 || base < f.start {
		f.start = base
	}
	f.leo = max(f.leo, last+1)
	f.batches++
	if epoch < 0 {
		return // no history: history ignores batches without an epoch
	}
	i := f.find(epoch)
	switch {
	case i < 0:
		f.firsts = append(f.firsts, epochFirst{epoch: epoch, base: base, seq: seq})
		if f.at != nil {
			f.at[epoch] = len(f.firsts) - 1
		} else if len(f.firsts) > foldIndexed {
			f.at = make(map[int32]int, 2*len(f.firsts))
			for j, x := range f.firsts {
				f.at[x.epoch] = j
			}
		}
	case base < f.firsts[i].base:
		f.firsts[i].base, f.firsts[i].seq = base, seq
	}
}

// find is the index of epoch in f.firsts, -1 when it has none. Batches
// mostly come in offset order, in the epoch of the batch before: the last
// entry is tried first.
func (f *soleFold) find(epoch int32) int {
	if n := len(f.firsts); n > 0 && f.firsts[n-1].epoch == epoch {
		return n - 1
	}
	if f.at != nil {
		if i, ok := f.at[epoch]; ok {
			return i
		}
		return -1
	}
	for i := range f.firsts {
		if f.firsts[i].epoch == epoch {
			return i
		}
	}
	return -1
}

// inOrder is the first batches of f's epochs in the order the batches
// sorted by base offset (stably, as view sorts a kept copy's) would meet
// them: history walks them as it walks a kept copy's batches. The first
// batch of an epoch is met before any other of that epoch, and every
// batch before it is of an epoch met earlier still, so the highest epoch
// before each is the same in both walks.
func (f *soleFold) inOrder() []epochFirst {
	out := slices.Clone(f.firsts)
	slices.SortFunc(out, func(a, b epochFirst) int { return cmp.Or(cmp.Compare(a.base, b.base), cmp.Compare(a.seq, b.seq)) })
	return out
}

// bounds is r's least base offset and its greatest last offset + 1 (at
// least 0), from its batches or their fold; ok is false when it has none.
// view sorts a kept copy's batches first.
func (r *replica) bounds() (start, leo int64, ok bool) {
	if r.sole {
		return r.fold.start, r.fold.leo, r.fold.batches > 0
	}
	if len(r.batches) == 0 {
		return 0, 0, false
	}
	for i := range r.batches {
		leo = max(leo, r.batches[i].last+1)
	}
	return r.batches[0].base, leo, true
}
