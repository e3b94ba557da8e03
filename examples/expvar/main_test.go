package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/markettest"
)

// fetchVars returns the "itick" variable from /debug/vars at url.
func fetchVars(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	var vars struct {
		Itick map[string]float64 `json:"itick"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&vars); err != nil {
		t.Fatal(err)
	}
	return vars.Itick
}

// TestHandlerServesTheStats: /debug/vars shows each counter of the
// published client with its value.
func TestHandlerServesTheStats(t *testing.T) {
	sim := markettest.NewServer(exampletest.At(exampletest.NewYorkTrading))
	defer sim.Close()
	c, err := sim.Client()
	if err != nil {
		t.Fatal(err)
	}
	publish(c)
	sim.FailNext(2, http.StatusTooManyRequests)
	if err := work(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler())
	defer srv.Close()
	got := fetchVars(t, srv.URL+"/debug/vars")

	st := c.Stats()
	if st.Requests != 4 || st.Attempts != 6 || st.Retries != 2 || st.RateLimited != 2 || st.BytesRead == 0 {
		t.Fatalf("the client's stats %+v, want 4 requests in 6 attempts, 2 refused with 429", st)
	}
	want := map[string]float64{
		"requests": 4, "errors": 0, "attempts": 6, "retries": 2, "rate_limited": 2,
		"bytes_read": float64(st.BytesRead), "limiter_wait_seconds": 0,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("itick vars %v, want exactly %v", got, want)
	}
}

// TestRunOffline runs the program as a user would and reads the counters
// from the address it serves.
func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	for _, at := range []time.Time{exampletest.Weekend, exampletest.Night, exampletest.HongKongTrading} {
		t.Run(at.Format(time.RFC3339), func(t *testing.T) { runOffline(t, at) })
	}
}

// runOffline runs the program as a user would, with the simulator's
// clock at at, and reads the counters from the address it serves.
func runOffline(t *testing.T, at time.Time) {
	var out testutil.SyncBuffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, &out, exampletest.At(at)) }()
	serving := regexp.MustCompile(`Serving the counters at (http://127\.0\.0\.1:\d+/debug/vars)`)
	url := exampletest.WaitMatch(t, &out, serving, done, 30*time.Second)[1]
	got := fetchVars(t, url)
	if got["requests"] != 4 || got["attempts"] != 5 || got["retries"] != 1 || got["rate_limited"] != 1 ||
		got["errors"] != 0 || got["bytes_read"] <= 0 || got["limiter_wait_seconds"] <= 0 {
		t.Errorf("itick vars %v, want 4 requests in 5 attempts, one 429, some bytes and limiter wait", got)
	}
	text := out.String()
	exampletest.CheckOffline(t, text)
	if !strings.Contains(text, "Stats: requests 4, errors 0, attempts 5, retries 1, rate limited 1, bytes read ") {
		t.Errorf("the summary is missing:\n%s", text)
	}
	cancel()
	if err := exampletest.Returned(t, done, 30*time.Second); err != nil {
		t.Errorf("run: %v", err)
	}
}

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: expvar [flags]\n\nExpvar makes ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: expvar [flags]\n\nExpvar makes ")
}
