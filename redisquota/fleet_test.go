package redisquota

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The test binary re-executed as one process of a fleet reads its task
// from these variables.
const (
	envFleet   = "REDISQUOTA_FLEET_PROCESS" // set: run as a fleet process
	envAddr    = "REDISQUOTA_FLEET_REDIS"
	envN       = "REDISQUOTA_FLEET_N"
	envWindow  = "REDISQUOTA_FLEET_WINDOW"
	envURL     = "REDISQUOTA_FLEET_URL"
	envToken   = "REDISQUOTA_FLEET_TOKEN"
	envCalls   = "REDISQUOTA_FLEET_CALLS"
	envWorkers = "REDISQUOTA_FLEET_WORKERS"
)

func TestMain(m *testing.M) {
	if os.Getenv(envFleet) != "" {
		if err := fleetProcess(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stdout, "error:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fleetProcess is one process of the fleet: it builds its limiter and
// client, says "ready", waits for a line on in, makes its calls through
// its workers and says "done".
func fleetProcess(in io.Reader, out io.Writer) error {
	n, err1 := strconv.Atoi(os.Getenv(envN))
	window, err2 := time.ParseDuration(os.Getenv(envWindow))
	calls, err3 := strconv.Atoi(os.Getenv(envCalls))
	workers, err4 := strconv.Atoi(os.Getenv(envWorkers))
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return err
		}
	}
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv(envAddr), ContextTimeoutEnabled: true})
	defer rdb.Close()
	lim, err := New(rdb, "fleet", n, WithWindow(window))
	if err != nil {
		return err
	}
	// No retries: a 429 shows up as an error instead of being waited out.
	client, err := itick.NewClient(os.Getenv(envToken), itick.WithBaseURL(os.Getenv(envURL)),
		itick.WithLimiter(lim), itick.WithRetries(0))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Connect before the start, so that dialling is not timed.
	if err := rdb.Ping(ctx).Err(); err != nil {
		return err
	}
	fmt.Fprintln(out, "ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the start: %w", err)
	}
	var (
		mu   sync.Mutex
		left = calls
		errs []error
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if left == 0 {
					mu.Unlock()
					return
				}
				left--
				mu.Unlock()
				if _, err := client.Stock.Quote(ctx, itick.RegionUS, "AAPL"); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d calls failed, first: %w", len(errs), calls, errs[0])
	}
	fmt.Fprintln(out, "done")
	return nil
}

// TestFleetOfProcessesSharesOneQuota runs 4 OS processes, this test binary
// re-executed, on one key against one markettest server that enforces the
// same quota: none of their calls may be refused, and together they go as
// fast as the quota allows. It is not parallel, so that the timing figures
// are taken on a machine the other tests leave alone.
func TestFleetOfProcessesSharesOneQuota(t *testing.T) {
	rs := startRedis(t)
	const (
		procs   = 4
		calls   = 5 // per process: two windows' worth for the fleet
		workers = 3 // per process
		n       = 10
		window  = 10 * time.Second
		// margin widens the limiter's window over the server's, for the
		// time between the script's grant and the request's arrival at
		// the server, which reaches hundreds of milliseconds on a loaded
		// machine under the race detector; the SDK's own margin is 1 s on
		// a minute, the same 4% or so.
		margin = 400 * time.Millisecond
	)
	// The simulator's quota window passes in real time, from a pinned start.
	srv := markettest.NewServer(markettest.WithClockFrom(simStart), markettest.WithQuota(n), markettest.WithQuotaWindow(window))
	defer srv.Close()

	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		lines *bufio.Scanner
		out   strings.Builder
	}
	ps := make([]*proc, procs)
	for i := range ps {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			envFleet+"=1", envAddr+"="+rs.Addr(), envN+"="+strconv.Itoa(n),
			envWindow+"="+(window+margin).String(), envURL+"="+srv.URL, envToken+"="+srv.Token,
			envCalls+"="+strconv.Itoa(calls), envWorkers+"="+strconv.Itoa(workers))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
		ps[i] = p
		t.Cleanup(func() {
			stdin.Close()
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	// Everyone ready, then everyone starts: process start-up is not timed.
	for i, p := range ps {
		if !p.lines.Scan() || p.lines.Text() != "ready" {
			t.Fatalf("process %d did not get ready: %q %v", i, p.lines.Text(), p.lines.Err())
		}
	}
	start := time.Now()
	for _, p := range ps {
		if _, err := io.WriteString(p.stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range ps {
		for p.lines.Scan() {
			p.out.WriteString(p.lines.Text() + "\n")
		}
		if err := p.cmd.Wait(); err != nil || p.out.String() != "done\n" {
			t.Errorf("process %d: %v, said:\n%s", i, err, p.out.String())
		}
	}
	wall := time.Since(start)

	st := srv.Stats()
	var first, last time.Time
	for _, r := range srv.Requests() {
		if r.Status != 200 {
			continue
		}
		if first.IsZero() || r.Time.Before(first) {
			first = r.Time
		}
		if r.Time.After(last) {
			last = r.Time
		}
	}
	total := procs * calls
	// The quota lets n calls go at once and n more each window after:
	// the last of total calls can start (ceil(total/n)-1) windows in.
	ideal := time.Duration((total+n-1)/n-1) * window
	span := last.Sub(first)
	ratio := float64(span) / float64(ideal)
	t.Logf("%d processes x %d calls, quota %d per %s (limiter window %s): %d succeeded, %d got 429; first to last call %s, ideal %s, ratio %.3f; wall time from start %s",
		procs, calls, n, window, window+margin, st.Succeeded, st.RateLimited, span.Round(time.Millisecond), ideal, ratio, wall.Round(time.Millisecond))
	if st.RateLimited != 0 {
		t.Errorf("the server refused %d calls with 429; the fleet went over the quota", st.RateLimited)
	}
	if st.Succeeded != total {
		t.Errorf("%d calls succeeded, want %d", st.Succeeded, total)
	}
	if span < ideal {
		t.Errorf("calls spanned %s, less than the %s the quota needs", span, ideal)
	}
	// The figure to meet is 1.05; a loaded machine gets more room here.
	if ratio > 1.5 {
		t.Errorf("calls spanned %s, %.2fx the %s the quota allows", span, ratio, ideal)
	}
}
