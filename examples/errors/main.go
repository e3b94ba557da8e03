// Command errors shows how the client reports failures and what it retries.
// Input errors are caught before anything is sent; a refused token, a spent
// quota and a failed chunk of a batch each have an error to match with
// errors.Is or errors.As. Offline, it asks the simulator to fail requests on
// purpose, so the retries can be seen at work.
//
//	go run ./examples/errors
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the usage is printed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "errors:", err)
		os.Exit(1)
	}
}

// kind names the sentinel an error matches. It tests for *BatchError first:
// a BatchError wraps each failed chunk's error, so one chunk refused with 429
// also matches ErrRateLimited, and testing that first would hide the results
// the other chunks brought.
func kind(err error) string {
	var be *itick.BatchError
	switch {
	case err == nil:
		return "no error"
	case errors.As(err, &be):
		return fmt.Sprintf("BatchError, %d codes without results", len(be.FailedCodes()))
	case errors.Is(err, itick.ErrInvalidArgument):
		return "ErrInvalidArgument"
	case errors.Is(err, itick.ErrUnauthorized):
		return "ErrUnauthorized"
	case errors.Is(err, itick.ErrRateLimited):
		return "ErrRateLimited"
	case errors.Is(err, itick.ErrPlanLimit):
		return "ErrPlanLimit"
	case errors.Is(err, itick.ErrNotFound):
		return "ErrNotFound"
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	}
	return "other error"
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("errors", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: errors

Errors shows how the client reports failures and what it retries: bad
input, a refused token, a spent quota, a failed chunk of a batch. Offline
(without ITICK_TOKEN) it has the simulator fail requests on purpose.
`)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	env, err := markettest.OpenEnv(sim)
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Offline() {
		fmt.Fprintf(w, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", env.Server.URL)
	} else {
		fmt.Fprintf(w, "Using the iTick service at %s (ITICK_TOKEN is set).\n", env.Client.BaseURL())
	}
	c := env.Client
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	// 1. Bad input never leaves the process.
	_, err = c.Stock.Quotes(ctx, itick.RegionHK, []string{"700", " "})
	fmt.Fprintf(w, "\n1. A blank code: %s\n   %v\n", kind(err), err)

	// 2. A wrong token: HTTP 401, not retried. The token is never printed.
	bad, err := itick.NewClient("not-a-real-token", itick.WithBaseURL(c.BaseURL()))
	if err != nil {
		return err
	}
	_, err = bad.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	var apiErr *itick.APIError
	if errors.As(err, &apiErr) {
		fmt.Fprintf(w, "\n2. A wrong token: %s (HTTP %d, %q)\n", kind(err), apiErr.StatusCode, apiErr.Message)
	} else {
		fmt.Fprintf(w, "\n2. A wrong token: %s: %v\n", kind(err), err)
	}

	if !env.Offline() {
		fmt.Fprintln(w, "\nThe rest injects faults and needs the simulator: unset ITICK_TOKEN to see it.")
		return nil
	}
	srv := env.Server

	// 3. Transient failures are retried with backoff: two 503s, then a dropped connection.
	srv.FailNext(2, http.StatusServiceUnavailable)
	srv.Inject(markettest.Fault{Kind: markettest.FaultDrop, Times: 1})
	srv.Reset()
	q, err := c.Crypto.Quotes(ctx, itick.RegionBA, []string{"BTCUSDT"})
	if err != nil {
		return fmt.Errorf("retries did not get through: %w", err)
	}
	fmt.Fprintf(w, "\n3. Two 503s and a dropped connection: %s after %d requests; BTCUSDT last %v\n",
		kind(err), srv.Stats().Requests, q["BTCUSDT"].Last)

	// 4. HTTP 429 once the retries are spent; Retry-After is reported.
	noRetry, err := srv.Client(itick.WithRetries(0))
	if err != nil {
		return err
	}
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusTooManyRequests, Times: 1,
		RetryAfter: 30 * time.Second})
	_, err = noRetry.Crypto.Quotes(ctx, itick.RegionBA, []string{"BTCUSDT"})
	if errors.As(err, &apiErr) {
		fmt.Fprintf(w, "\n4. Over the quota, no retries: %s, retry after %s\n", kind(err), apiErr.RetryAfter)
	} else {
		fmt.Fprintf(w, "\n4. Over the quota, no retries: %s: %v\n", kind(err), err)
	}

	// 5. One chunk of a batch is refused with 429: the others' results still
	// arrive. The error matches ErrRateLimited too, through the chunk's error,
	// which is why kind tests for *BatchError first.
	codes := make([]string, 30)
	for i := range codes {
		codes[i] = fmt.Sprintf("%d", 1001+i)
	}
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusTooManyRequests,
		Path: "/stock/quotes", Code: "1015"})
	got, err := noRetry.Stock.Quotes(ctx, itick.RegionHK, codes)
	var be *itick.BatchError
	if !errors.As(err, &be) {
		return fmt.Errorf("expected a BatchError, got %v", err)
	}
	fmt.Fprintf(w, "\n5. A chunk refused with 429: %s; %d quotes arrived; missing %v\n", kind(err), len(got), be.FailedCodes())
	fmt.Fprintf(w, "   It also matches ErrRateLimited: %v\n", errors.Is(err, itick.ErrRateLimited))
	srv.ClearFaults()
	again, err := c.Stock.Quotes(ctx, itick.RegionHK, be.FailedCodes())
	fmt.Fprintf(w, "   Retrying just the missing codes: %s, %d more quotes\n", kind(err), len(again))
	return nil
}
