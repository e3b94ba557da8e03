// Command otel traces the SDK's HTTP requests with OpenTelemetry and prints
// the spans to standard output. The SDK does not depend on OpenTelemetry:
// tracing goes in through itick.WithHTTPClient, whose transport the client
// uses underneath its retries and rate limiter, so otelhttp sees every
// attempt, retries included, as its own client span under the caller's
// span.
//
// This program is its own module, so that the SDK's module stays free of
// OpenTelemetry. From this directory:
//
//	go run .
//
// With ITICK_TOKEN set it asks the iTick service (ITICK_BASE_URL and
// ITICK_PLAN apply too); without it, it starts the offline simulator from
// markettest, which refuses the first request with a 503 so that a retry
// shows in the trace.
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

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

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
		fmt.Fprintln(os.Stderr, "otel:", err)
		os.Exit(1)
	}
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("otel", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: otel

Otel traces the SDK's requests for two quotes with OpenTelemetry and prints
the spans, one a line, from the iTick service when ITICK_TOKEN is set and
from an offline simulator otherwise.
`)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	// One span a line; stdouttrace.WithPrettyPrint spreads each over many.
	exporter, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return err
	}
	// A syncer exports each span as it ends; a service would batch with
	// sdktrace.WithBatcher and an OTLP exporter instead.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "itick-otel-example"))))
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tp.Shutdown(shutdownCtx)
	}()

	// otelhttp wraps the transport the SDK sends each attempt through. The
	// token travels in a header, which otelhttp does not record.
	hc := &http.Client{
		Timeout: 30 * time.Second,
		Transport: otelhttp.NewTransport(http.DefaultTransport,
			otelhttp.WithTracerProvider(tp),
			otelhttp.WithPropagators(propagation.TraceContext{})),
	}
	env, err := markettest.OpenEnv(sim, itick.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Offline() {
		fmt.Fprintf(w, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", env.Server.URL)
		env.Server.FailNext(1, http.StatusServiceUnavailable)
	} else {
		fmt.Fprintf(w, "Using the iTick service at %s (ITICK_TOKEN is set).\n", env.Client.BaseURL())
	}

	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	codes := []string{"700", "9988"}
	ctx, span := tp.Tracer("github.com/d19c4e34/itick/examples/otel").Start(ctx, "refresh quotes")
	span.SetAttributes(attribute.String("region", string(itick.RegionHK)), attribute.StringSlice("codes", codes))
	quotes, err := env.Client.Stock.Quotes(ctx, itick.RegionHK, codes)
	if err != nil {
		span.RecordError(err)
	}
	span.End()
	if err != nil {
		return fmt.Errorf("quotes: %w", err)
	}
	for _, code := range codes {
		if q, ok := quotes[code]; ok {
			fmt.Fprintf(w, "%s last %v\n", code, q.Last)
		}
	}
	return nil
}
