package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampletest"
	"github.com/d19c4e34/itick/markettest"
)

// TestRunOfflineWritesCSV runs the program at the moments its dates could
// trip on: today's candle forming (a full day, a half day), none today (a
// weekend), a UTC date ahead of New York's. The range ends at the
// simulator's today, which the client reads.
func TestRunOfflineWritesCSV(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	moments := exampletest.Moments()
	for _, name := range []string{"New York trading", "US half day", "weekend", "02:00 UTC"} {
		at, ok := moments[name]
		if !ok {
			t.Fatalf("no moment %q", name)
		}
		t.Run(name, func(t *testing.T) { runOfflineWritesCSV(t, at) })
	}
}

func runOfflineWritesCSV(t *testing.T, at time.Time) {
	out := filepath.Join(t.TempDir(), "candles.csv")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"-out", out}, &stdout, &stderr, exampletest.At(at)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("wrote %d bytes to stdout with -out set", stdout.Len())
	}
	exampletest.CheckOffline(t, stderr.String())
	assertProgress(t, stderr.String())
	if !strings.Contains(stderr.String(), "candles of 50 stocks") {
		t.Errorf("stderr lacks the summary:\n%s", stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "code,date,open,high,low,close,volume,turnover" {
		t.Fatalf("header %q", rows[0])
	}
	to := at.UTC().Truncate(24 * time.Hour) // today, whose candle is still forming, is left out
	from := to.AddDate(-2, 0, 0)
	if !strings.Contains(stderr.String(), " from "+from.Format(time.DateOnly)+" to "+to.Format(time.DateOnly)+" in ") {
		t.Errorf("stderr does not name the range %s to %s:\n%s", from.Format(time.DateOnly), to.Format(time.DateOnly), stderr.String())
	}
	perCode := map[string][]time.Time{}
	for _, r := range rows[1:] {
		d, err := time.Parse(time.DateOnly, r[1])
		if err != nil {
			t.Fatalf("row %q: %v", r, err)
		}
		if d.Before(from) || !d.Before(to) || d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			t.Errorf("row %q: a day outside [%s, %s) or on a weekend", r, from.Format(time.DateOnly), to.Format(time.DateOnly))
		}
		if ds := perCode[r[0]]; len(ds) > 0 && !d.After(ds[len(ds)-1]) {
			t.Errorf("row %q does not follow %s", r, ds[len(ds)-1])
		}
		perCode[r[0]] = append(perCode[r[0]], d)
	}
	if len(perCode) != 50 {
		t.Errorf("%d stocks, want 50", len(perCode))
	}
	for code, ds := range perCode {
		if len(ds) < 480 || len(ds) > 510 || len(ds) != len(perCode["AAPL"]) {
			t.Errorf("%s: %d days, want two years of trading days like AAPL's %d", code, len(ds), len(perCode["AAPL"]))
		}
	}
}

// assertProgress checks the progress line's updates: the share never
// falls, and it reads 100% only once every stock is done, which the last
// update says.
func assertProgress(t *testing.T, stderr string) {
	t.Helper()
	update := regexp.MustCompile(`^\s*(\d+)%  \d+ requests  \d+ candles  (\d+) of 50 stocks done  back to \d{4}-\d\d-\d\d  \S+$`)
	var line string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "\r") {
			line = l
			break
		}
	}
	updates := strings.Split(strings.TrimPrefix(line, "\r"), "\r")
	prev := -1
	for _, u := range updates {
		m := update.FindStringSubmatch(u)
		if m == nil {
			t.Fatalf("progress update %q", u)
		}
		pct, _ := strconv.Atoi(m[1])
		done, _ := strconv.Atoi(m[2])
		if pct < prev || (pct == 100) != (done == 50) {
			t.Errorf("progress %q after %d%%", u, prev)
		}
		prev = pct
	}
	if prev != 100 || len(updates) < 3 {
		t.Errorf("%d progress updates, the last at %d%%", len(updates), prev)
	}
}

// TestPercentNeverRoundsUpToDone checks the progress share near the end
// of a range: rounded down, and 100 only when every stock is done.
func TestPercentNeverRoundsUpToDone(t *testing.T) {
	if got := percent(itick.RangeProgress{Codes: 50, Done: 50}); got != 100 {
		t.Errorf("all done: %d%%", got)
	}
	if got := percent(itick.RangeProgress{Codes: 50, Done: 49}); got > 99 {
		t.Errorf("49 of 50 done: %d%%", got)
	}
}

func TestRunOfflineToStdoutOnFreePlan(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var stdout, stderr bytes.Buffer
	// The Free plan's 5 calls a minute, 600 times faster: the ten requests
	// need five more slots after the first five, one a 100 ms.
	if err := run(t.Context(), []string{"-plan", "free", "-speedup", "600", "-years", "2"}, &stdout, &stderr,
		exampletest.At(exampletest.NewYorkTrading)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows, err := csv.NewReader(&stdout).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 50*480 {
		t.Errorf("%d rows on stdout", len(rows))
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	exists := filepath.Join(t.TempDir(), "exists.csv")
	if err := os.WriteFile(exists, []byte("code,date\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The usage and the errors go to stderr; stdout is for the CSV.
	toStderr := func(ctx context.Context, args []string, stderr io.Writer, sim ...markettest.Option) error {
		return run(ctx, args, io.Discard, stderr, sim...)
	}
	exampletest.RunRejectsArguments(t, toStderr, "Usage: backfill [flags]\n\nBackfill writes ",
		[]string{"-plan", "gold"}, []string{"-years", "0"}, []string{"-speedup", "-1"},
		[]string{"-resume", filepath.Join(t.TempDir(), "a.csv"), "-out", "b.csv"}, []string{"-resume", exists})
}

// TestMain lets TestMainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestMainHelp runs the program with -h: usage, exit status 0.
func TestMainHelp(t *testing.T) {
	out, err := exampletest.Command(t.Context(), exampletest.Weekend, "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("-h: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "Usage: backfill [flags]\n") || !strings.Contains(string(out), "-speedup float") {
		t.Errorf("-h printed %q", out)
	}
}

// answered counts the requests srv answered with candles.
func answered(srv *markettest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Status == http.StatusOK && r.Fault == 0 {
			n++
		}
	}
	return n
}

// The tests below run the program's parts against a simulator they keep
// across runs, through its own client, which reads the simulator's clock
// as the program's client does offline.

// simClient returns srv's client on the Base plan.
func simClient(t *testing.T, srv *markettest.Server) *itick.Client {
	t.Helper()
	c, err := srv.Client(itick.WithPlan(itick.PlanBase))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// uninterrupted backfills once to a file against a fresh simulator at the
// clock at, as -out does, and returns what it wrote and the requests it
// took.
func uninterrupted(t *testing.T, at time.Time) ([]byte, int) {
	srv := markettest.NewServer(markettest.WithPlan(itick.PlanBase), exampletest.At(at))
	defer srv.Close()
	c := simClient(t, srv)
	from, to := dates(c, 2)
	var out, stderr bytes.Buffer
	if err := backfill(t.Context(), c, &out, from, to, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return out.Bytes(), answered(srv)
}

// resume runs -resume's part on file with c, the range the program would
// take at c's now.
func resume(ctx context.Context, c *itick.Client, file string, stderr io.Writer) error {
	from, to := dates(c, 2)
	return backfillResume(ctx, c, file, from, to, stderr)
}

// TestRunResumeOfflineWritesWhatOutDoes: a -resume run that nothing
// interrupts leaves the file -out writes at the same clock.
func TestRunResumeOfflineWritesWhatOutDoes(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	at := exampletest.USHalfDay
	want, _ := uninterrupted(t, at)
	file := filepath.Join(t.TempDir(), "candles.csv")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"-resume", file}, &stdout, &stderr, exampletest.At(at)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	exampletest.CheckOffline(t, stderr.String())
	if got, _ := os.ReadFile(file); !bytes.Equal(got, want) {
		t.Errorf("the -resume file (%d bytes) differs from -out's output (%d bytes)", len(got), len(want))
	}
}

// TestRunResumesAfterASpentQuota spends the quota half-way through a
// -resume run, then runs again once the quota window has passed: the
// second run asks only for what is missing, so the two send together
// what one uninterrupted run does, and the file ends as that run's
// output. A third run asks for nothing.
func TestRunResumesAfterASpentQuota(t *testing.T) {
	at := exampletest.NewYorkTrading // today's candle is forming, and moves with the clock
	want, requests := uninterrupted(t, at)
	if requests != 10 {
		t.Fatalf("an uninterrupted run sent %d requests, want 5 chunks x 2 pages", requests)
	}

	clock := markettest.NewManualClock(at)
	srv := markettest.NewServer(markettest.WithPlan(itick.PlanBase), markettest.WithClock(clock.Now), markettest.WithQuota(5))
	defer srv.Close()
	c := simClient(t, srv)
	file := filepath.Join(t.TempDir(), "candles.csv")
	// Under a deadline the quota's Retry-After of a minute would pass,
	// the 429 ends the call at once, as a spent quota does.
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	err := resume(ctx, c, file, &stderr)
	if err == nil || !strings.Contains(err.Error(), "run again with -resume "+file) || !errors.Is(err, itick.ErrRateLimited) {
		t.Fatalf("first run: error %v, want the spent quota and how to go on\n%s", err, stderr.String())
	}
	if n := answered(srv); n != 5 {
		t.Errorf("first run: %d requests answered, want the quota's 5", n)
	}

	clock.Advance(61 * time.Second)
	stderr.Reset()
	if err := resume(t.Context(), c, file, &stderr); err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr.String())
	}
	assertProgress(t, stderr.String())
	if n := answered(srv); n != requests {
		t.Errorf("%d requests answered over both runs, want %d as in one uninterrupted run", n, requests)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the resumed file (%d bytes) differs from an uninterrupted run's output (%d bytes)", len(got), len(want))
	}

	stderr.Reset()
	if err := resume(t.Context(), c, file, &stderr); err != nil {
		t.Fatalf("third run: %v\n%s", err, stderr.String())
	}
	if n := answered(srv); n != requests {
		t.Errorf("the run on a complete file sent %d requests", n-requests)
	}
	if again, _ := os.ReadFile(file); !bytes.Equal(again, want) {
		t.Error("the run on a complete file changed it")
	}
}

// TestRunResumesAfterAnInterrupt stops a -resume run the way Ctrl-C does,
// while the last group of stocks waits for its first page: the stocks
// done so far are in the file, and the next run asks only for the rest.
func TestRunResumesAfterAnInterrupt(t *testing.T) {
	at := exampletest.NewYorkTrading
	want, requests := uninterrupted(t, at)

	srv := markettest.NewServer(markettest.WithPlan(itick.PlanBase), exampletest.At(at))
	defer srv.Close()
	c := simClient(t, srv)
	srv.Inject(markettest.Fault{Kind: markettest.FaultHang, Code: "GS"})
	file := filepath.Join(t.TempDir(), "candles.csv")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() { done <- resume(ctx, c, file, &stderr) }()
	exampletest.WaitFor(t, 30*time.Second, "the last group's request arrives", func() bool {
		return slices.ContainsFunc(srv.Requests(), func(r markettest.Request) bool { return slices.Contains(r.Codes(), "GS") })
	})
	cancel()
	if err := exampletest.Returned(t, done, 30*time.Second); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "10 of 50 stocks incomplete") {
		t.Fatalf("interrupted run: error %v, want context.Canceled and 10 stocks left", err)
	}
	srv.ClearFaults()
	stderr.Reset()
	if err := resume(t.Context(), c, file, &stderr); err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr.String())
	}
	if n := answered(srv); n != requests {
		t.Errorf("%d requests answered over both runs, want %d as in one uninterrupted run", n, requests)
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, want) {
		t.Errorf("the resumed file (%d bytes) differs from an uninterrupted run's output (%d bytes)", len(got), len(want))
	}
}
