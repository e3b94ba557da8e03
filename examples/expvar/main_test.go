package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

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
	sim := markettest.NewServer()
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
// syncBuffer is a bytes.Buffer safe for concurrent use: the program
// writes to it while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	for _, at := range []time.Time{
		time.Date(2025, 6, 7, 12, 0, 0, 0, time.UTC), // a Saturday
		time.Date(2025, 6, 5, 0, 30, 0, 0, time.UTC), // a night
		time.Date(2025, 6, 4, 3, 0, 0, 0, time.UTC),  // Hong Kong trading
	} {
		t.Run(at.Format(time.RFC3339), func(t *testing.T) { runOffline(t, at) })
	}
}

// runOffline runs the program as a user would, with the simulator's
// clock at at, and reads the counters from the address it serves.
func runOffline(t *testing.T, at time.Time) {
	var out syncBuffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, &out, markettest.WithClock(func() time.Time { return at }))
	}()

	serving := regexp.MustCompile(`Serving the counters at (http://127\.0\.0\.1:\d+/debug/vars)`)
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == ""; {
		if m := serving.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("run returned %v before serving:\n%s", err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("run did not start serving:\n%s", out.String())
		}
	}
	got := fetchVars(t, url)
	if got["requests"] != 4 || got["attempts"] != 5 || got["retries"] != 1 || got["rate_limited"] != 1 ||
		got["errors"] != 0 || got["bytes_read"] <= 0 || got["limiter_wait_seconds"] <= 0 {
		t.Errorf("itick vars %v, want 4 requests in 5 attempts, one 429, some bytes and limiter wait", got)
	}
	text := out.String()
	if first, _, _ := strings.Cut(text, "\n"); !strings.Contains(first, "offline simulator") {
		t.Errorf("the first line does not say the simulator is used: %q", first)
	}
	if !strings.Contains(text, "Stats: requests 4, errors 0, attempts 5, retries 1, rate limited 1, bytes read ") {
		t.Errorf("the summary is missing:\n%s", text)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop when its context ended")
	}
}

// TestMain runs the program itself when the test binary is started with
// RUN_MAIN=1, so a test can check what main does with its arguments.
func TestMain(m *testing.M) {
	if os.Getenv("RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	if err := run(t.Context(), []string{"-h"}, &buf); !errors.Is(err, flag.ErrHelp) ||
		!strings.HasPrefix(buf.String(), "Usage: expvar [flags]\n\nExpvar makes ") {
		t.Errorf("-h: %v, printed %q", err, buf.String())
	}
	if err := run(t.Context(), []string{"extra"}, &buf); err == nil {
		t.Error("an argument was accepted")
	}
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-h")
	cmd.Env = append(os.Environ(), "RUN_MAIN=1", "ITICK_TOKEN=", "GORACE=atexit_sleep_ms=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("-h: %v", err)
	}
	if !strings.HasPrefix(string(out), "Usage: expvar [flags]\n") {
		t.Errorf("-h printed %q", out)
	}
}
