package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// The dups report lines of the two runs of segtest.WriteAttributionLogDir,
// up to the gap, and what follows it.
const (
	rotatedRun      = "orders-0: PID 5000 (epoch 0, txn id payments-app, block of broker 3) possibly resent 1 record first written by PID 4000 (txn id payments-app, broker 2) — offset 4 repeats 2"
	rotatedChange   = "; PID change under the stable transactional id payments-app: the coordinator rotated it from PID 4000 to PID 5000 (epoch exhaustion) [possible restart-resend: too few records]"
	idempotentRun   = "orders-0: PID 6002 (epoch 0, block of broker 1) possibly resent 1 record first written by PID 6001 (broker 1) — offset 7 repeats 6"
	idempotentChang = "; idempotent-only restart: no transactional id, so every restart gets a new PID [possible restart-resend: too few records]"
)

// TestDupsProducersAttributionText: the text of dups and producers shows
// the attribution (the engine's, tested in analysis/pipeline): the run
// lines of dups name the owners, producers --all prints TXN ID and PID
// BROKER columns (the broker that allocated the PID, apart from scan's
// BROKER of a copy), also when the topic filter leaves the internal topics
// out: they are read as evidence all the same.
func TestDupsProducersAttributionText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := segtest.WriteAttributionLogDir(dir); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "dups", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("dups: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("ksleuth dups %s:\n%s", dir, out)
	out = unwrap(out)
	for _, w := range [][2]string{{rotatedRun, rotatedChange}, {idempotentRun, idempotentChang}} {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, w[0]) {
				line = l
			}
		}
		if !strings.HasSuffix(line, w[1]) {
			t.Errorf("dups report: no line %q…%q in\n%s", w[0], w[1], out)
		}
	}
	out, _, _ = runCLI(t, "producers", "--all", "--progress", "never", dir)
	if !regexp.MustCompile(`TXN ID +PID BROKER\n`).MatchString(out) || !regexp.MustCompile(`(?m)^orders +0 +5000 .* payments-app +3$`).MatchString(out) {
		t.Errorf("producers text: no attribution columns:\n%s", out)
	}
	// --topic without the internal topics: attributed the same.
	out, _, _ = runCLI(t, "producers", "--all", "--topic", "^orders$", "--progress", "never", dir)
	if !regexp.MustCompile(`(?m)^orders +0 +5000 .* payments-app +3$`).MatchString(out) {
		t.Errorf("producers --topic orders: not attributed:\n%s", out)
	}
}
