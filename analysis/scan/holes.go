package scan

import (
	"context"
	"fmt"
	"hash"
)

// A segment file (or sparse archive entry) may end in a hole: a
// preallocated segment is a file of its full size whose tail the file
// system stores no blocks for. The hole is found with SEEK_DATA and
// SEEK_HOLE (or an archive entry's sparse map), is neither mapped nor
// read, and is one finding; the file's hash counts its zeros without
// reading them, up to maxHashedHole.

// maxHashedHole bounds the zeros hashed for a hole: SHA-256 runs at about
// 1-2 GB/s, so 4 GiB adds a few seconds on the hasher's core; a larger
// hole (a sparse bomb declaring a terabyte) leaves the file unhashed.
var maxHashedHole int64 = 4 << 30

// KindSparseHole is the finding for a hole to the end of a file.
const KindSparseHole = "sparse-hole"

// zeroBlock is what a hole is hashed from.
var zeroBlock [1 << 20]byte

// hashable reports whether the file's hash can be computed: its hole, if
// any, is small enough to hash as zeros.
func (fc *fileCtx) hashable() bool { return fc.hole <= maxHashedHole }

// hashZeros adds n zero bytes to h, checking ctx between megabytes.
func hashZeros(ctx context.Context, h hash.Hash, n int64) error {
	for n > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(n, int64(len(zeroBlock)))
		h.Write(zeroBlock[:k])
		n -= k
	}
	return nil
}

// reportHole counts the hole as read for progress: it is done.
func (fc *fileCtx) reportHole(progress func(int64)) {
	if fc.hole > 0 && progress != nil {
		progress(fc.hole)
	}
}

// holeFindings says that the file ends in a hole, and when it was too
// large to hash.
func (fc *fileCtx) holeFindings(hashing bool) {
	if fc.hole <= 0 {
		return
	}
	end := fc.dataEnd + fc.hole
	fc.anomaly(KindSparseHole, "note", ptr(fc.dataEnd), nil, nil,
		fmt.Sprintf("bytes %d to %d (%d bytes) are a hole: no data is stored there (a preallocated or sparse file); it reads as zeros and was not read",
			fc.dataEnd, end, fc.hole))
	if hashing && !fc.hashable() {
		fc.anomaly("not-hashed", "note", nil, nil, nil,
			fmt.Sprintf("sha256 not computed: the %d-byte hole would be hashed as zeros, more than the %d bytes hashed for a hole", fc.hole, maxHashedHole))
	}
}
