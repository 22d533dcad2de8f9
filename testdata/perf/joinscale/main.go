// Command joinscale writes, seeded, a log dir of small records with the
// duplicate structure of a real incident, for the duplicate join at scale
// (testdata/perf/join-scale.sh, docs/performance.md): many partitions and
// producer sessions; restarts whose new PID resends the tail of the old
// session's records, some within the restart window and some beyond it;
// non-idempotent producers that retry a batch; content repeated from
// elsewhere in the topic; and a few hot values repeated thousands of times.
// Values are short and low in entropy so that 10^8 records stay a few GB
// and generate quickly.
//
//	go run ./testdata/perf/joinscale -out /tmp/js-1e6 -records 1000000
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

func main() {
	out := flag.String("out", "", "log dir to create (must be missing or empty)")
	n := flag.Int64("records", 1_000_000, "records in all")
	topics := flag.Int("topics", 4, "topics")
	parts := flag.Int("partitions", 16, "partitions per topic")
	roll := flag.Int64("roll", 256<<20, "roll segments past this many bytes")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if *out == "" || *n < 1 || *topics < 1 || *parts < 1 {
		fmt.Fprintln(os.Stderr, "usage: joinscale -out DIR -records N [-topics T] [-partitions P] [-seed S]")
		os.Exit(2)
	}
	if ents, err := os.ReadDir(*out); err == nil && len(ents) > 0 {
		fmt.Fprintf(os.Stderr, "joinscale: %s is not empty\n", *out)
		os.Exit(1)
	}
	g := &gen{rng: rand.New(rand.NewPCG(*seed, 43)), roll: *roll, nextPID: 1000}
	per := *n / int64(*topics**parts)
	extra := *n % int64(*topics**parts)
	var bytes int64
	for t := range *topics {
		tp := &topicState{name: fmt.Sprintf("orders%d", t)}
		for p := range *parts {
			want := per
			if int64(t**parts+p) < extra {
				want++
			}
			dir := filepath.Join(*out, fmt.Sprintf("%s-%d", tp.name, p))
			b, err := g.partition(dir, tp, want)
			if err != nil {
				fmt.Fprintln(os.Stderr, "joinscale:", err)
				os.Exit(1)
			}
			bytes += b
		}
	}
	fmt.Fprintf(os.Stderr, "joinscale: wrote %d records, %d bytes of segments, to %s\n", *n, bytes, *out)
}

type gen struct {
	rng     *rand.Rand
	roll    int64
	nextPID int64
}

// topicState is what a topic's partitions share: the content numbers
// given so far and a ring of recent ones that repeats draw from.
type topicState struct {
	name   string
	next   int64
	recent [4096]int64
	filled int
}

func (tp *topicState) fresh() int64 {
	id := tp.next
	tp.next++
	tp.recent[id%int64(len(tp.recent))] = id
	tp.filled = min(tp.filled+1, len(tp.recent))
	return id
}

// content is the record of content number id; negative numbers are the
// hot values.
func content(id int64) segtest.Record {
	var v []byte
	if id < 0 {
		v = append([]byte("heartbeat-"), strconv.FormatInt(-id, 10)...)
	} else {
		v = append([]byte(`{"event":"order","id":`), strconv.FormatInt(id, 10)...)
		v = append(v, `,"status":"created","pad":"`...)
		for range id % 24 {
			v = append(v, 'a')
		}
		v = append(v, `"}`...)
	}
	k := append([]byte("customer-"), strconv.FormatInt((id%5000+5000)%5000, 10)...)
	return segtest.Record{Key: k, Value: v, Headers: []segtest.Header{{Key: "source", Value: []byte("svc-orders")}}}
}

// segWriter writes one partition dir's segments, rolling them.
type segWriter struct {
	dir     string
	roll    int64
	f       *os.File
	w       *bufio.Writer
	size    int64
	written int64
}

func (s *segWriter) write(base int64, b []byte) error {
	if s.f == nil || s.size+int64(len(b)) > s.roll && s.size > 0 {
		if err := s.close(); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(s.dir, segtest.SegmentFileName(base)))
		if err != nil {
			return err
		}
		s.f, s.w, s.size = f, bufio.NewWriterSize(f, 1<<20), 0
	}
	s.size += int64(len(b))
	s.written += int64(len(b))
	_, err := s.w.Write(b)
	return err
}

func (s *segWriter) close() error {
	if s.f == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return err
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// partition writes want records into dir as a sequence of producer
// sessions.
func (g *gen) partition(dir string, tp *topicState, want int64) (int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	sw := &segWriter{dir: dir, roll: g.roll}
	rng := g.rng
	var off int64
	clock := int64(1_700_000_000_000)
	var resend []int64
	for off < want {
		pid, epoch, seq := g.nextPID, int16(0), int32(0)
		g.nextPID++
		idempotent := rng.IntN(10) != 0
		left := int64(2000 + rng.IntN(18000))
		var ids []int64
		for left > 0 && off < want {
			nb := 1 + rng.IntN(20)
			var batch []int64
			for ; nb > 0 && left > 0 && off+int64(len(batch)) < want; nb-- {
				var id int64
				switch r := rng.IntN(1000); {
				case len(resend) > 0:
					id, resend = resend[0], resend[1:]
				case r == 0:
					id = -1 - int64(rng.IntN(50))
				case r < 11 && tp.filled > 0:
					id = tp.recent[rng.IntN(tp.filled)]
				default:
					id = tp.fresh()
				}
				batch = append(batch, id)
				left--
			}
			copies := 1
			if !idempotent && rng.IntN(50) == 0 {
				copies = 2 // a retry: the same batch, timestamps and all
			}
			for range copies {
				if off >= want {
					break
				}
				b := segtest.Batch{Magic: 2, BaseOffset: off, PartitionLeaderEpoch: 1, AutoDeltas: true, FirstTimestamp: clock}
				if idempotent {
					b.Producer = &segtest.Producer{ID: pid, Epoch: epoch, BaseSequence: seq}
				}
				for i, id := range batch {
					r := content(id)
					r.TimestampDelta = int64(i)
					b.Records = append(b.Records, r)
				}
				if err := sw.write(off, b.Encode()); err != nil {
					return 0, err
				}
				off += int64(len(batch))
			}
			seq += int32(len(batch))
			ids = append(ids, batch...)
			clock += int64(1 + rng.IntN(50))
		}
		resend = nil
		if rng.IntN(10) < 6 && len(ids) > 0 {
			// A restart: the next session resends the tail of this one,
			// after a pause that is sometimes beyond the restart window.
			r := min(1+rng.IntN(300), len(ids))
			resend = append(resend, ids[len(ids)-r:]...)
			clock += int64(1000 + rng.IntN(15*60*1000))
		}
	}
	return sw.written, sw.close()
}
