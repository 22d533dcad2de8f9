package analysis

import "fmt"

// CopyState is what one copy of a partition is: judged on its own
// evidence (intact, lost, unread) or against the other copies of the
// partition (reference, in-sync, lagging, ...). The per-copy verdict, the
// replica comparison and the cluster verdict name a copy by these words
// and describe it with Phrase, so that no two commands call one copy two
// different things.
type CopyState string

// The states of a copy.
const (
	// CopyIntact: the copy holds every offset it should, judged alone.
	CopyIntact CopyState = "intact"
	// CopyLost: offsets the copy once held are gone; its own data or its
	// own checkpoints (high watermark, recovery point, leader-epoch
	// checkpoint) show it held them: its copy of them is gone, which
	// lagging would hide (a lagging follower never had them).
	CopyLost CopyState = "lost"
	// CopyUnread: the input (a cut archive) ended before the rest of the
	// copy; nothing is said of the broker's data.
	CopyUnread CopyState = "unread"
	// CopyReference: the copy the others are compared with (the highest
	// last leader epoch, then the highest log end offset).
	CopyReference CopyState = "reference"
	// CopyInSync: the same batches as the reference.
	CopyInSync CopyState = "in-sync"
	// CopyLagging: a prefix of the reference, and nothing of its own says
	// it ever held more: a follower that fetches the rest.
	CopyLagging CopyState = "lagging"
	// CopyDiverged: offsets outside the reference's history, which the
	// broker's leader-epoch truncation removes.
	CopyDiverged CopyState = "diverged"
	// CopyAhead: offsets past the reference's end in its own last epoch.
	CopyAhead CopyState = "ahead"
	// CopyDamaged: the reference's batches, some damaged in this copy.
	CopyDamaged CopyState = "damaged"
	// CopyDeleting: a partition dir the broker renamed
	// <topic>-<partition>.<id>-delete when it deleted the topic or the
	// replica; it removes the dir after file.delete.delay.ms. What the
	// dir lacks was deleted with it, not lost.
	CopyDeleting CopyState = "deleted"
	// CopyFuture: a -future dir, the replica AlterReplicaLogDirs is
	// moving to another log dir of the same broker: a second copy, built
	// from the live one, that becomes the live one when it catches up.
	CopyFuture CopyState = "future"
	// CopyStray: a -stray dir, a replica a KRaft broker found at start
	// that the metadata no longer assigns to it, set aside for deletion.
	CopyStray CopyState = "stray"
)

// CopyStates lists every state, in the order the docs describe them.
var CopyStates = []CopyState{CopyIntact, CopyLost, CopyUnread, CopyReference, CopyInSync,
	CopyLagging, CopyDiverged, CopyAhead, CopyDamaged, CopyDeleting, CopyFuture, CopyStray}

// DirCopyState is the state of a partition dir by the suffix of its name
// (source.PartitionDir.State: "delete", "future" or "stray"); "" for a
// live partition dir, which is judged by its offsets.
func DirCopyState(dirState string) CopyState {
	switch dirState {
	case "delete":
		return CopyDeleting
	case "future":
		return CopyFuture
	case "stray":
		return CopyStray
	}
	return ""
}

// RenamedDir reports whether the state is that of a -delete, -future or
// -stray dir: a copy that lost nothing, and is not a live one.
func (s CopyState) RenamedDir() bool {
	return s == CopyDeleting || s == CopyFuture || s == CopyStray
}

// Phrase is the state's one-line wording, without the copy's name.
func (s CopyState) Phrase() string {
	switch s {
	case CopyIntact:
		return "holds every offset it should"
	case CopyLost:
		return "lost offsets it held (its own data or checkpoints show it held them)"
	case CopyUnread:
		return "its input ended before the rest of it (not read, not lost)"
	case CopyReference:
		return "is the reference the other copies are compared with"
	case CopyInSync:
		return "holds the same batches as the reference"
	case CopyLagging:
		return "is behind the reference and fetches the rest when it follows again"
	case CopyDiverged:
		return "holds offsets outside the reference's history, which leader-epoch truncation removes"
	case CopyAhead:
		return "holds offsets past the reference's end in the same leader epoch"
	case CopyDamaged:
		return "holds the reference's batches, some of them damaged in this copy"
	case CopyDeleting:
		return "deleted, awaiting removal: the broker renamed the dir to remove it after file.delete.delay.ms; what it lacks is not a loss"
	case CopyFuture:
		return "future replica being moved between log dirs of its broker (AlterReplicaLogDirs); what it lacks is not a loss"
	case CopyStray:
		return "stray: a replica its broker no longer hosts, set aside for deletion; what it lacks is not a loss"
	}
	return string(s)
}

// HeldFacts are a copy's own records of how far it reached: a high
// watermark, a recovery point, the start of its last leader epoch (-1 for
// each that is unknown).
type HeldFacts struct {
	HighWatermark, RecoveryPoint, LastEpochStart int64
}

// Held is the highest offset end the copy's own state files show it held
// (one past the last offset), and which file says so; -1 when none does.
// A high watermark or recovery point is an end already; a leader epoch's
// start offset is an offset the copy was to write next, so it held the
// offsets below it.
func (h HeldFacts) Held() (end int64, what string) {
	end = -1
	for _, c := range []struct {
		v    int64
		what string
	}{{h.HighWatermark, "high watermark"}, {h.RecoveryPoint, "recovery point"}, {h.LastEpochStart, "leader-epoch checkpoint"}} {
		if c.v > end {
			end, what = c.v, c.what
		}
	}
	return end, what
}

// LostPhrase is the wording of a copy in state CopyLost: what it lacks
// and the evidence that it held it.
func LostPhrase(first, last, heldEnd int64, what string) string {
	return fmt.Sprintf("lost %d–%d, which it held (its %s is %d): its own copy of them is gone, it is not behind",
		first, last, what, heldEnd)
}
