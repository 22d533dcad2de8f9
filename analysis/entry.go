package analysis

// TxnState is the final transaction state of a record: whether the
// transaction it was written in committed, aborted, or was still open at
// the end of the input (none outside transactions). The scan gives it to
// every record; the duplicate detector grades copies by it.
type TxnState uint8

// The states, in the order of their names in the tables.
const (
	TxnNone TxnState = iota
	TxnCommitted
	TxnAborted
	TxnOpen
)

var txnNames = [...]string{"none", "committed", "aborted", "open"}

func (s TxnState) String() string {
	if int(s) < len(txnNames) {
		return txnNames[s]
	}
	return "unknown"
}

// ParseTxnState is the inverse of String; unknown names are TxnOpen.
func ParseTxnState(s string) TxnState {
	for i, n := range txnNames {
		if n == s {
			return TxnState(i)
		}
	}
	return TxnOpen
}

// RecordEntry is one record as the duplicate detector needs it (the scan's
// compact form): offset, timestamp, sequence, fingerprint (zero for
// control records) and final transaction state. A control record's Txn is
// committed or aborted for a commit or abort marker of a transactional
// batch, else none.
type RecordEntry struct {
	Fingerprint [16]byte
	Offset      int64
	Timestamp   int64 // -1 when unknown
	Sequence    int32
	Txn         TxnState
	Control     bool // a control record: the detector skips it
}
