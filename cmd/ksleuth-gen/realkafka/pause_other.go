//go:build !unix

package realkafka

import "errors"

// Pause needs Unix signals.
func (b *Broker) Pause() error { return errors.New("pause: needs SIGSTOP, a Unix signal") }

// Resume needs Unix signals.
func (b *Broker) Resume() error { return errors.New("resume: needs SIGCONT, a Unix signal") }

// Pause needs Unix signals.
func (a *PipelineApp) Pause() error { return errors.New("pause: needs SIGSTOP, a Unix signal") }

// Resume needs Unix signals.
func (a *PipelineApp) Resume() error { return errors.New("resume: needs SIGCONT, a Unix signal") }
