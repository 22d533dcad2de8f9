package snapshot

import (
	"path/filepath"
	"strconv"
	"strings"
)

// lineScanner splits text the way Java's BufferedReader.readLine does: a line
// ends at "\n", "\r" or "\r\n", and a final line without terminator still
// counts. It keeps the 1-based line number and the byte offset of each line
// and never allocates per line.
type lineScanner struct {
	data []byte
	pos  int
	num  int    // number of the current line
	off  int64  // byte offset of the current line
	line string // current line, terminator removed
	crlf bool   // some line ended in "\r\n" or "\r"
}

func (s *lineScanner) next() bool {
	if s.pos >= len(s.data) {
		return false
	}
	start := s.pos
	end := start
	for end < len(s.data) && s.data[end] != '\n' && s.data[end] != '\r' {
		end++
	}
	s.line = string(s.data[start:end])
	s.off = int64(start)
	s.num++
	switch {
	case end >= len(s.data):
		s.pos = end
	case s.data[end] == '\r':
		s.crlf = true
		if end+1 < len(s.data) && s.data[end+1] == '\n' {
			s.pos = end + 2
		} else {
			s.pos = end + 1
		}
	default:
		s.pos = end + 1
	}
	return true
}

// checkpointHeader reads the "version" and "count" lines shared by the
// offset and leader-epoch checkpoint files (CheckpointFile.java). Either
// is -1 when it was not read. empty is true when the file (or everything
// after the version) is absent, which the broker reads as no entries.
func checkpointHeader(path string, s *lineScanner) (version, count int, empty bool, err *FormatError) {
	if !s.next() {
		return -1, -1, true, nil
	}
	v, perr := strconv.Atoi(strings.TrimSpace(s.line))
	if perr != nil {
		return -1, -1, false, errAt(path, s.off, s.num, ErrSyntax, "line 1 is %q, want the format version 0", clip(s.line))
	}
	if v != 0 {
		return v, -1, false, errAt(path, s.off, s.num, ErrVersion, "version %d, want 0", v)
	}
	if !s.next() {
		return 0, -1, true, nil
	}
	c, perr := strconv.Atoi(strings.TrimSpace(s.line))
	if perr != nil {
		return 0, -1, false, errAt(path, s.off, s.num, ErrSyntax, "line 2 is %q, want the number of entries", clip(s.line))
	}
	if c < 0 {
		return 0, c, false, errAt(path, s.off, s.num, ErrSyntax, "negative entry count %d, want 0 or more", c)
	}
	return 0, c, false, nil
}

// clip shortens a line quoted in an error message.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

func isLeftover(path string) bool {
	return path != "" && strings.HasSuffix(filepath.Base(path), SuffixTmp)
}

// OffsetEntry is one "<topic> <partition> <offset>" line.
type OffsetEntry struct {
	Topic     string
	Partition int32
	Offset    int64
	Line      int // 1-based line number in the file
}

// OffsetCheckpoint is one of the four offset checkpoint files of a log dir
// root: recovery-point, replication (high watermarks), log-start and
// cleaner offsets.
type OffsetCheckpoint struct {
	Path string
	// Kind says which checkpoint it is, from the file name (KindUnknown when
	// the name is not one of the four).
	Kind Kind
	// Leftover is true for a "*.tmp" file: a rewrite that was never renamed.
	Leftover bool
	// Empty is true for a 0-byte file (or one stopping after the version),
	// which the broker reads as no entries.
	Empty bool
	// Version and Count are as stated on lines 1 and 2, -1 when not read.
	Version int
	Count   int
	Entries []OffsetEntry
	// CRLF is true when lines end in "\r\n" (written on Windows).
	CRLF bool
}

// ParseOffsetCheckpoint parses an offset checkpoint file. It returns the
// entries it could read even when err != nil; err is a *FormatError with
// the 1-based line (ErrVersion, ErrSyntax, ErrCount).
func ParseOffsetCheckpoint(path string, data []byte) (*OffsetCheckpoint, error) {
	c := &OffsetCheckpoint{Path: path, Kind: KindOf(path), Leftover: isLeftover(path)}
	if !c.Kind.IsOffsetCheckpoint() {
		c.Kind = KindUnknown
	}
	var err error
	c.Version, c.Count, c.Empty, c.CRLF, err = readCheckpoint(path, data, 3, "topic partition offset", func(f []string, s *lineScanner, errs *findings) {
		p, err1 := strconv.ParseInt(f[1], 10, 32)
		o, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			errs.add(errAt(path, s.off, s.num, ErrSyntax, "%q: want a topic, an int32 partition and an int64 offset", clip(s.line)))
			return
		}
		c.Entries = append(c.Entries, OffsetEntry{Topic: f[0], Partition: int32(p), Offset: o, Line: s.num})
	})
	return c, tagKind(err, c.Kind)
}

// readCheckpoint reads the version and count lines of a checkpoint file,
// then hands each entry line with nFields whitespace-separated fields to
// entry (others are ErrSyntax findings), and checks the count against the
// lines that follow it. Line endings may be "\n" or "\r\n".
func readCheckpoint(path string, data []byte, nFields int, want string,
	entry func(f []string, s *lineScanner, errs *findings)) (version, count int, empty, crlf bool, err error) {
	s := &lineScanner{data: data}
	version, count, empty, ferr := checkpointHeader(path, s)
	if ferr != nil {
		return version, count, empty, s.crlf, ferr
	}
	if empty {
		return version, count, empty, false, nil
	}
	countLine, countOff := s.num, s.off
	var errs findings
	for s.next() {
		f := strings.Fields(s.line)
		if len(f) != nFields {
			errs.add(errAt(path, s.off, s.num, ErrSyntax, "got %q, want %q", clip(s.line), want))
			continue
		}
		entry(f, s, &errs)
	}
	if got := s.num - countLine; got != count {
		errs.first(errAt(path, countOff, countLine, ErrCount, "count says %d entries, file has %d lines after it", count, got))
	}
	return version, count, empty, s.crlf, errs.err()
}

// EpochEntry is one "<leaderEpoch> <startOffset>" line.
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
	Line        int
}

// LeaderEpochCheckpoint is a partition's leader-epoch-checkpoint.
type LeaderEpochCheckpoint struct {
	Path     string
	Leftover bool
	Empty    bool
	// Version and Count are as stated on lines 1 and 2, -1 when not read.
	Version int
	Count   int
	Entries []EpochEntry
	CRLF    bool
}

// ParseLeaderEpochCheckpoint parses a leader-epoch-checkpoint file. Epochs
// must rise and start offsets must not fall (ErrOrder); otherwise errors are
// as for ParseOffsetCheckpoint.
func ParseLeaderEpochCheckpoint(path string, data []byte) (*LeaderEpochCheckpoint, error) {
	c := &LeaderEpochCheckpoint{Path: path, Leftover: isLeftover(path)}
	var err error
	c.Version, c.Count, c.Empty, c.CRLF, err = readCheckpoint(path, data, 2, "epoch startOffset", func(f []string, s *lineScanner, errs *findings) {
		e, err1 := strconv.ParseInt(f[0], 10, 32)
		o, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			errs.add(errAt(path, s.off, s.num, ErrSyntax, "%q: want an int32 leader epoch and an int64 start offset", clip(s.line)))
			return
		}
		if k := len(c.Entries); k > 0 {
			prev := c.Entries[k-1]
			if int32(e) <= prev.Epoch || o < prev.StartOffset {
				errs.add(errAt(path, s.off, s.num, ErrOrder,
					"epoch %d at %d follows epoch %d at %d, want rising epochs and start offsets", e, o, prev.Epoch, prev.StartOffset))
			}
		}
		c.Entries = append(c.Entries, EpochEntry{Epoch: int32(e), StartOffset: o, Line: s.num})
	})
	return c, tagKind(err, KindLeaderEpochCheckpoint)
}
