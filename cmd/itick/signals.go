package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interrupts turns Ctrl-C (and SIGTERM) into the end of a context. The
// signals stay caught after the first, so the process leaves through its
// own code, which ends the output at a whole line; a second one asks that
// what is still being written be cut short, at a row boundary. A third
// exits at once, for a user who will not wait: the output then holds the
// whole lines written so far.
type interrupts struct {
	ctx   context.Context
	count atomic.Int32
	stop  func()
}

func watchInterrupts(parent context.Context) *interrupts {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	i := &interrupts{ctx: ctx}
	go func() {
		for {
			select {
			case <-ch:
				if i.count.Add(1) >= 3 {
					os.Exit(exitInterrupted)
				}
				cancel()
			case <-done:
				return
			}
		}
	}()
	i.stop = func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
	return i
}

// ignoreClosedPipe makes a write to a closed pipe fail with EPIPE, which
// the command reports as a closed output, rather than kill the process
// without a word, as Go does by default for stdout.
func ignoreClosedPipe() { signal.Ignore(syscall.SIGPIPE) }

// interrupted reports whether a signal has arrived.
func (i *interrupts) interrupted() bool { return i.count.Load() > 0 }

// again reports whether a second signal has arrived: stop writing too.
func (i *interrupts) again() bool { return i.count.Load() > 1 }
