// Package exampleenv picks what the examples talk to: the real service
// when ITICK_TOKEN is set, and otherwise the offline simulator from
// markettest, so every example runs anywhere without a token or a network.
package exampleenv

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Env is a client and, when offline, the simulator behind it.
type Env struct {
	Client *itick.Client
	// Sim is the simulator the client talks to; nil against the real service.
	Sim *markettest.Server
}

// Offline reports whether the client talks to the simulator.
func (e *Env) Offline() bool { return e.Sim != nil }

// Close stops the simulator, if one was started.
func (e *Env) Close() {
	if e.Sim != nil {
		e.Sim.Close()
	}
}

// Open returns a client for the real service when ITICK_TOKEN is set
// (ITICK_BASE_URL and ITICK_PLAN apply too, see itick.NewClientFromEnv), and
// otherwise starts the simulator and returns a client pointed at it. It
// writes one line to w saying which. opts apply to the client either way.
func Open(w io.Writer, opts ...itick.Option) (*Env, error) {
	if strings.TrimSpace(os.Getenv("ITICK_TOKEN")) != "" {
		c, err := itick.NewClientFromEnv(opts...)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "Using the iTick service at %s (ITICK_TOKEN is set).\n", c.BaseURL())
		return &Env{Client: c}, nil
	}
	sim := markettest.NewServer()
	c, err := sim.Client(opts...)
	if err != nil {
		sim.Close()
		return nil, err
	}
	fmt.Fprintf(w, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", sim.URL)
	return &Env{Client: c, Sim: sim}, nil
}

// Main runs an example's run function with a context that ends on an
// interrupt, and exits with status 1, naming the example, when it fails.
func Main(name string, run func(ctx context.Context, w io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		stop()
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
