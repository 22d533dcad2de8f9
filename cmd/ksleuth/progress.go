package main

import (
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/schollz/progressbar/v3"
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
