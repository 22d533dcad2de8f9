package snapshot

import (
	"strings"
)

// Kind is what a file in a Kafka log dir is, judged from its base name
// (the names the broker gives them).
type Kind uint8

const (
	KindUnknown   Kind = iota
	KindLog            // NNN.log: segment data
	KindIndex          // NNN.index: offset index
	KindTimeIndex      // NNN.timeindex: time index
	KindTxnIndex       // NNN.txnindex: aborted-transaction index
	KindSnapshot       // NNN.snapshot: producer-state snapshot
	KindLeaderEpochCheckpoint
	KindPartitionMetadata
	// The four offset checkpoint files share one format.
	KindRecoveryPointCheckpoint // recovery-point-offset-checkpoint
	KindReplicationCheckpoint   // replication-offset-checkpoint (high watermarks)
	KindLogStartCheckpoint      // log-start-offset-checkpoint
	KindCleanerCheckpoint       // cleaner-offset-checkpoint
	KindMetaProperties          // meta.properties
	KindCleanShutdown           // .kafka_cleanshutdown
	KindQuorumState             // quorum-state (KRaft)
	KindKRaftSnapshot           // <20 digits>-<10 digits>.checkpoint
	KindBootstrapCheckpoint     // bootstrap.checkpoint
	KindLock                    // .lock
)

var kindNames = [...]string{
	KindUnknown:                 "unknown",
	KindLog:                     "log",
	KindIndex:                   "index",
	KindTimeIndex:               "timeindex",
	KindTxnIndex:                "txnindex",
	KindSnapshot:                "snapshot",
	KindLeaderEpochCheckpoint:   "leader-epoch-checkpoint",
	KindPartitionMetadata:       "partition-metadata",
	KindRecoveryPointCheckpoint: "recovery-point-offset-checkpoint",
	KindReplicationCheckpoint:   "replication-offset-checkpoint",
	KindLogStartCheckpoint:      "log-start-offset-checkpoint",
	KindCleanerCheckpoint:       "cleaner-offset-checkpoint",
	KindMetaProperties:          "meta-properties",
	KindCleanShutdown:           "clean-shutdown",
	KindQuorumState:             "quorum-state",
	KindKRaftSnapshot:           "kraft-snapshot",
	KindBootstrapCheckpoint:     "bootstrap-checkpoint",
	KindLock:                    "lock",
}

// String is the kind's stable name. The offset checkpoints are named after
// their file; Group gives "offset-checkpoint" for all four.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Group is String, except that the four offset checkpoint kinds all give
// "offset-checkpoint".
func (k Kind) Group() string {
	if k.IsOffsetCheckpoint() {
		return "offset-checkpoint"
	}
	return k.String()
}

// IsOffsetCheckpoint reports whether k is one of the four files read by
// ParseOffsetCheckpoint.
func (k Kind) IsOffsetCheckpoint() bool {
	return k >= KindRecoveryPointCheckpoint && k <= KindCleanerCheckpoint
}

// IsText reports whether the kind is one of the small text/JSON state files.
func (k Kind) IsText() bool {
	switch k {
	case KindLeaderEpochCheckpoint, KindPartitionMetadata, KindMetaProperties,
		KindCleanShutdown, KindQuorumState:
		return true
	}
	return k.IsOffsetCheckpoint()
}

// Suffixes Kafka appends to a file's name while it is in transit.
const (
	SuffixDeleted = ".deleted" // scheduled for async deletion
	SuffixCleaned = ".cleaned" // log-cleaner output under construction
	SuffixSwap    = ".swap"    // cleaned/split segment being swapped in
	SuffixTmp     = ".tmp"     // checkpoint/metadata being rewritten
	SuffixPart    = ".part"    // KRaft snapshot being written
)

// Name is a parsed file base name.
type Name struct {
	Kind Kind
	// Suffix is SuffixDeleted, SuffixCleaned or SuffixSwap when the name
	// carries one, else "".
	Suffix string
	// Leftover is true for a ".tmp" (or KRaft ".part") file: the write-to-temp
	// half of an atomic rewrite that was never renamed (a crash mid-write).
	Leftover bool
	// Offset is the 20-digit prefix (segment base offset, snapshot end
	// offset, KRaft snapshot end offset), or -1.
	Offset int64
	// Epoch is the KRaft snapshot epoch, or -1.
	Epoch int64
	// SegmentID is the remote segment id of a tiered segment's file as
	// Kafka's LocalTieredStorage names it (<20 digits>-<segment id>.<suffix>),
	// "" for any other name.
	SegmentID string
}

// KindOf maps a file base name to its Kind, ignoring .deleted, .cleaned,
// .swap, .tmp and .part suffixes. Segment-type names (.log, .index,
// .timeindex, .txnindex, .snapshot) need the 20-digit offset prefix, so an
// application log such as server.log is KindUnknown.
func KindOf(name string) Kind { return ParseName(name).Kind }

// ParseName is KindOf with the details: which suffix was stripped, the
// offset prefix and the KRaft epoch.
func ParseName(name string) Name {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	n := Name{Offset: -1, Epoch: -1}
	for {
		switch {
		case strings.HasSuffix(name, SuffixTmp) && !n.Leftover:
			n.Leftover = true
			name = strings.TrimSuffix(name, SuffixTmp)
			continue
		case strings.HasSuffix(name, SuffixPart) && !n.Leftover:
			n.Leftover = true
			name = strings.TrimSuffix(name, SuffixPart)
			continue
		}
		if n.Suffix == "" {
			stripped := false
			for _, s := range []string{SuffixDeleted, SuffixCleaned, SuffixSwap} {
				if strings.HasSuffix(name, s) && len(name) > len(s) {
					n.Suffix = s
					name = strings.TrimSuffix(name, s)
					stripped = true
					break
				}
			}
			if stripped {
				continue
			}
		}
		break
	}

	switch name {
	case "leader-epoch-checkpoint":
		n.Kind = KindLeaderEpochCheckpoint
	case "partition.metadata":
		n.Kind = KindPartitionMetadata
	case "recovery-point-offset-checkpoint":
		n.Kind = KindRecoveryPointCheckpoint
	case "replication-offset-checkpoint":
		n.Kind = KindReplicationCheckpoint
	case "log-start-offset-checkpoint":
		n.Kind = KindLogStartCheckpoint
	case "cleaner-offset-checkpoint":
		n.Kind = KindCleanerCheckpoint
	case "meta.properties":
		n.Kind = KindMetaProperties
	case ".kafka_cleanshutdown":
		n.Kind = KindCleanShutdown
	case "quorum-state":
		n.Kind = KindQuorumState
	case "bootstrap.checkpoint":
		n.Kind = KindBootstrapCheckpoint
	case ".lock":
		n.Kind = KindLock
	}
	if n.Kind != KindUnknown {
		return n
	}

	prefix, ext, ok := strings.Cut(name, ".")
	if !ok {
		return n
	}
	if ext == "checkpoint" {
		// <offset>-<epoch>.checkpoint, or <offset>-<epoch>-<random>.checkpoint.part
		if n.Leftover {
			if i := strings.LastIndexByte(prefix, '-'); i == offsetDigits+1+epochDigits {
				prefix = prefix[:i]
			}
		}
		if len(prefix) == offsetDigits+1+epochDigits && prefix[offsetDigits] == '-' &&
			allDigits(prefix[:offsetDigits]) && allDigits(prefix[offsetDigits+1:]) {
			if off, ok := OffsetFromName(prefix[:offsetDigits]); ok {
				n.Kind = KindKRaftSnapshot
				n.Offset = off
				n.Epoch = parseDigits(prefix[offsetDigits+1:])
			}
		}
		return n
	}
	if id, ok := remoteID(prefix); ok {
		prefix, n.SegmentID = prefix[:offsetDigits], id
		if ext == "leader_epoch_checkpoint" {
			n.Kind = KindLeaderEpochCheckpoint
			n.Offset, _ = OffsetFromName(prefix)
			return n
		}
	}
	off, ok := OffsetFromName(prefix)
	if !ok {
		n.SegmentID = ""
		return n
	}
	switch ext {
	case "log":
		n.Kind = KindLog
	case "index":
		n.Kind = KindIndex
	case "timeindex":
		n.Kind = KindTimeIndex
	case "txnindex":
		n.Kind = KindTxnIndex
	case "snapshot":
		n.Kind = KindSnapshot
	default:
		n.SegmentID = ""
		return n
	}
	n.Offset = off
	return n
}

// remoteIDLen is the length of a Kafka Uuid in unpadded URL-safe base64.
const remoteIDLen = 22

// remoteID cuts the segment id off a remote segment file's prefix,
// <20 digits>-<segment id>. The id may itself hold '-' and '_', so it is
// cut by length, not at a dash.
func remoteID(prefix string) (string, bool) {
	if len(prefix) != offsetDigits+1+remoteIDLen || prefix[offsetDigits] != '-' || !allDigits(prefix[:offsetDigits]) {
		return "", false
	}
	id := prefix[offsetDigits+1:]
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", false
		}
	}
	return id, true
}

// parseDigits parses at most 18 ASCII digits (callers check allDigits).
func parseDigits(s string) int64 {
	var v int64
	for i := 0; i < len(s) && i < 18; i++ {
		v = v*10 + int64(s[i]-'0')
	}
	return v
}
