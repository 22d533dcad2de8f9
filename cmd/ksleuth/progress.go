package main

// The progress bar on stderr, and the run of the pipeline it follows,
// cancelled by Ctrl-C.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// progress drives a progress bar on stderr, only when stderr is a terminal
// (or --progress always).
type progress struct {
	bar   *progressbar.ProgressBar
	n     atomic.Int64
	stopc chan struct{}
	donec chan struct{}
}

func newProgress(w io.Writer, mode string, total int64, inputs []*source.Input) *progress {
	p := &progress{}
	if t, ok := w.(*text.SafeWriter); ok {
		w = t.W // the bar draws with carriage returns and escapes of its own
	}
	show := mode == "always"
	if mode == "auto" {
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("CI") == "" {
			show = true
		}
	}
	if !show {
		return p
	}
	if total == 0 {
		total = pipeline.InputSize(inputs)
	}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("scanning"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	p.stopc, p.donec = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.donec)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = p.bar.Set64(p.n.Load())
			case <-p.stopc:
				return
			}
		}
	}()
	return p
}

func (p *progress) add(n int64) { p.n.Add(n) }

func (p *progress) finish() {
	if p.bar == nil || p.stopc == nil {
		return
	}
	close(p.stopc)
	<-p.donec
	p.stopc = nil
	_ = p.bar.Finish()
}

// analyze runs the pipeline with a progress bar on stderr. ctx should come
// from signalContext, so that Ctrl-C unwinds normally (and spill files are
// removed) instead of killing the process.
func analyze(ctx context.Context, cmd *cobra.Command, name string, o *commonOptions, inputs []*source.Input, plan pipeline.Plan,
	sinks pipeline.Sinks) (res *pipeline.Result, err error) {
	err = o.running(ctx, cmd, name, inputs, plan, func(po pipeline.Options) error {
		res, err = pipeline.Run(ctx, inputs, po, sinks)
		return err
	})
	return res, err
}

// running calls run with the options of plan given the common flags'
// workers and a progress bar on stderr, and marks an error of a
// cancelled run as an interruption.
func (o *commonOptions) running(ctx context.Context, cmd *cobra.Command, name string, inputs []*source.Input, plan pipeline.Plan,
	run func(pipeline.Options) error) error {
	prog := newProgress(cmd.ErrOrStderr(), o.progress, pipeline.ProgressTotal(inputs), inputs)
	defer prog.finish()
	plan.Jobs, plan.Progress, plan.HeldBudget = o.jobs, prog.add, o.set.heldBudget
	err := run(plan.Options())
	prog.finish()
	if err != nil {
		return interrupted(ctx, name, err)
	}
	return nil
}

// signalContext is cmd's context, cancelled by SIGINT and SIGTERM.
func signalContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
}

// interrupted marks err as the result of a cancelled run, which exits 130.
func interrupted(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s interrupted: %w (%w)", name, errInterrupted, context.Cause(ctx))
	}
	return err
}
