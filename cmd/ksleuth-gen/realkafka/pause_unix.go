//go:build unix

package realkafka

import (
	"errors"
	"syscall"
)

// Pause stops the broker's process group (SIGSTOP): it keeps its sockets
// but answers nothing, as a broker stalled in a long GC pause or on a
// hung disk does, until Resume.
func (b *Broker) Pause() error {
	if !b.Running() {
		return errors.New("pause: the broker is not running")
	}
	b.c.env.Logf("broker %d paused", b.NodeID)
	return signalGroup(b.proc.cmd, syscall.SIGSTOP)
}

// Resume lets a paused broker go on (SIGCONT).
func (b *Broker) Resume() error {
	b.c.env.Logf("broker %d resumed", b.NodeID)
	return signalGroup(b.proc.cmd, syscall.SIGCONT)
}
