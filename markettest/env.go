package markettest

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
)

// EnvSimTime names the environment variable that stops an offline
// simulator's clock at an instant (see OpenEnv).
const EnvSimTime = "ITICK_SIM_TIME"

// Env is a client for the iTick service or, when no token is set, for a
// simulator started for it: the switch a program makes to run against the
// real service in production and offline everywhere else.
type Env struct {
	// Client is the SDK client to use: pointed at the real service, or
	// at Server with its token.
	Client *itick.Client
	// Server is the simulator Client talks to; nil when Client talks to
	// the real service.
	Server *Server
}

// OpenEnv returns a client for the real service when ITICK_TOKEN is set
// (ITICK_BASE_URL and ITICK_PLAN apply too, as itick.NewClientFromEnv reads
// them), and otherwise starts a simulator with simOpts and returns a client
// pointed at it, on the simulator's clock (see Server.Client). clientOpts
// apply to the client either way. Close stops the simulator, if one was
// started.
//
// Offline, ITICK_SIM_TIME (RFC 3339, such as 2025-06-04T15:30:00Z) stops
// the simulator's clock at that instant, as WithFixedClock does, so a
// program can be run at the hour it is to be tried at; a clock in simOpts
// wins over it. A value that is no such time is an error.
//
//	env, err := markettest.OpenEnv(nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer env.Close()
//	quotes, err := env.Client.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
func OpenEnv(simOpts []Option, clientOpts ...itick.Option) (*Env, error) {
	if strings.TrimSpace(os.Getenv("ITICK_TOKEN")) != "" {
		c, err := itick.NewClientFromEnv(clientOpts...)
		if err != nil {
			return nil, err
		}
		return &Env{Client: c}, nil
	}
	if v := strings.TrimSpace(os.Getenv(EnvSimTime)); v != "" {
		at, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, fmt.Errorf("markettest: %s=%q is not an RFC 3339 time such as 2025-06-04T15:30:00Z: %w",
				EnvSimTime, v, itick.ErrInvalidArgument)
		}
		simOpts = append([]Option{WithFixedClock(at)}, simOpts...)
	}
	srv := NewServer(simOpts...)
	c, err := srv.Client(clientOpts...)
	if err != nil {
		srv.Close()
		return nil, err
	}
	return &Env{Client: c, Server: srv}, nil
}

// Offline reports whether the client talks to a simulator.
func (e *Env) Offline() bool { return e.Server != nil }

// Close stops the simulator, if one was started. It is safe to call more
// than once.
func (e *Env) Close() {
	if e.Server != nil {
		e.Server.Close()
	}
}
