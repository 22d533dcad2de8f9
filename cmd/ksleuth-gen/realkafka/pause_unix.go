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

// Pause stops the application instance (SIGSTOP), as a long GC pause or
// a frozen host does: its consumer sends no heartbeat and its producer
// nothing, until Resume.
func (a *PipelineApp) Pause() error {
	if !a.p.running() {
		return errors.New("pause: the application is not running")
	}
	return signalGroup(a.p.cmd, syscall.SIGSTOP)
}

// Resume lets a paused instance go on (SIGCONT).
func (a *PipelineApp) Resume() error { return signalGroup(a.p.cmd, syscall.SIGCONT) }
