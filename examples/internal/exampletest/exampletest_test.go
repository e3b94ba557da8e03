package exampletest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/markettest"
)

// TestMain makes this test binary a program of its own for MainHelp and
// Command: -h prints a usage, -exit3 exits with status 3, -simtime prints
// ITICK_SIM_TIME.
func TestMain(m *testing.M) {
	Main(m, func() {
		switch os.Args[1] {
		case "-h":
			fmt.Print("Usage: fake\n\nFake does nothing.\n")
		case "-exit3":
			os.Exit(3)
		case "-simtime":
			fmt.Println(os.Getenv(markettest.EnvSimTime))
		}
	})
}

// recorder is a testing.TB that records failures instead of failing the
// test, so a test can check that a check fails when it should.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

// check runs f with a recorder over t, in a goroutine of its own so that
// a Fatalf ends f alone, and returns the recorder.
func check(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestMainHelp(t *testing.T) {
	for _, tt := range []struct {
		name     string
		usage    string
		more     []string
		wantErrs int
	}{
		{"usage and more", "Usage: fake\n", []string{"Fake does"}, 0},
		{"other usage", "Usage: other\n", nil, 1},
		{"more missing", "Usage: fake\n", []string{"Fake does", "-flag string"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := check(t, func(tb testing.TB) { MainHelp(tb, tt.usage, tt.more...) })
			if len(r.errs) != tt.wantErrs || r.fatal {
				t.Errorf("failures %q (fatal %v), want %d", r.errs, r.fatal, tt.wantErrs)
			}
		})
	}
}

func TestCommandRunsMain(t *testing.T) {
	var ee *exec.ExitError
	if err := Command(t.Context(), Weekend, "-exit3").Run(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("-exit3: %v, want exit status 3 from main", err)
	}
	// The program's simulator would stand at the instant given.
	out, err := Command(t.Context(), DSTChange, "-simtime").Output()
	if err != nil || string(out) != "2025-03-10T13:45:00Z\n" {
		t.Errorf("-simtime: %q, %v; want ITICK_SIM_TIME at DSTChange", out, err)
	}
}

// fakeRun is a program's run that takes only -h, or any argument when
// lax, and says it is offline, with its arguments and how many simulator
// options it was given.
func fakeRun(lax bool) Run {
	return func(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
		fs := flag.NewFlagSet("fake", flag.ContinueOnError)
		fs.SetOutput(w)
		fs.Usage = func() { fmt.Fprint(w, "Usage: fake\n") }
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() > 0 && !lax {
			return errors.New("unexpected arguments")
		}
		fmt.Fprintf(w, "ITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:4321 (synthetic data).\nargs %q, %d options\n", args, len(sim))
		return nil
	}
}

func TestRunRejectsArguments(t *testing.T) {
	r := check(t, func(tb testing.TB) {
		if got := RunRejectsArguments(tb, fakeRun(false), "Usage: fake\n", []string{"-x"}); got != "Usage: fake\n" {
			tb.Errorf("returned %q, want the usage", got)
		}
	})
	if len(r.errs) != 0 {
		t.Errorf("a strict program: %q", r.errs)
	}
	r = check(t, func(tb testing.TB) { RunRejectsArguments(tb, fakeRun(true), "Usage: fake\n", []string{"more"}) })
	if len(r.errs) != 2 || !strings.Contains(r.errs[0], `["extra"]: accepted`) {
		t.Errorf("a program taking any argument: %q, want extra and more accepted", r.errs)
	}
	r = check(t, func(tb testing.TB) { RunRejectsArguments(tb, fakeRun(false), "Usage: other\n") })
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "-h: ") {
		t.Errorf("another usage: %q", r.errs)
	}
}

func TestCheckOffline(t *testing.T) {
	for _, tt := range []struct {
		out  string
		want bool
	}{
		{"ITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:4321 (synthetic data).\nmore\n", true},
		{"ITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:4321 (synthetic data).", true},
		{"ITICK_TOKEN is not set: using the offline simulator at http://10.0.0.1:4321 (synthetic data).\n", false},
		{"Using the iTick service at https://api.itick.org (ITICK_TOKEN is set).\n", false},
		{"\nITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:4321 (synthetic data).\n", false},
	} {
		r := check(t, func(tb testing.TB) { CheckOffline(tb, tt.out) })
		if got := len(r.errs) == 0; got != tt.want {
			t.Errorf("CheckOffline(%q): passes %v, want %v", tt.out, got, tt.want)
		}
	}
}

func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "set")
	var token string
	run := func(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
		token = os.Getenv("ITICK_TOKEN")
		return fakeRun(false)(ctx, args, w, sim...)
	}
	out := RunOffline(t, run, Weekend)
	if !strings.HasSuffix(out, "(synthetic data).\nargs [], 1 options\n") || token != "" {
		t.Errorf("output %q with ITICK_TOKEN=%q", out, token)
	}
	r := check(t, func(tb testing.TB) { RunOffline(tb, fakeRun(false), Weekend, "extra") })
	if !r.fatal || !strings.Contains(r.errs[0], "unexpected arguments") {
		t.Errorf("a failing run: %q (fatal %v)", r.errs, r.fatal)
	}
}

// TestRunAtClocks checks that each clock has its subtest, which gets the
// clock and what the program printed at it.
func TestRunAtClocks(t *testing.T) {
	var times []string
	run := func(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
		srv := markettest.NewServer(sim...)
		defer srv.Close()
		times = append(times, srv.Now().Format(time.RFC3339))
		return fakeRun(false)(ctx, args, w, sim...)
	}
	got := map[string]string{}
	RunAtClocks(t, run, Clocks(), func(t *testing.T, at time.Time, out string) {
		if !strings.HasSuffix(out, "args [], 1 options\n") {
			t.Errorf("output %q", out)
		}
		got[t.Name()] = at.Format(time.RFC3339)
	})
	want := map[string]string{}
	for name, at := range Clocks() {
		want["TestRunAtClocks/"+strings.ReplaceAll(name, " ", "_")] = at.Format(time.RFC3339)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subtests and their clocks (-want +got):\n%s", diff)
	}
	slices.Sort(times)
	wantTimes := slices.Sorted(maps.Values(want))
	if diff := cmp.Diff(wantTimes, times); diff != "" {
		t.Errorf("the simulator's clocks (-want +got):\n%s", diff)
	}
}

func TestMatchAll(t *testing.T) {
	r := check(t, func(tb testing.TB) { MatchAll(tb, "a 12\nb 3\n", `a \d+`, `(?m)^b \d$`, `c`, `a 1$`) })
	if len(r.errs) != 2 || !strings.HasPrefix(r.errs[0], "output lacks c:") || !strings.HasPrefix(r.errs[1], "output lacks a 1$:") {
		t.Errorf("failures %q, want c and a 1$ missing", r.errs)
	}
}

func TestUseServer(t *testing.T) {
	srv := markettest.NewServer(At(Weekend), markettest.WithToken("env-token"))
	defer srv.Close()
	UseServer(t, srv)
	if os.Getenv("ITICK_TOKEN") != "env-token" || os.Getenv("ITICK_BASE_URL") != srv.URL {
		t.Errorf("ITICK_TOKEN=%q ITICK_BASE_URL=%q", os.Getenv("ITICK_TOKEN"), os.Getenv("ITICK_BASE_URL"))
	}
}

func TestWaitMatch(t *testing.T) {
	re := regexp.MustCompile(`at (\S+) `)
	var out testutil.SyncBuffer
	done := make(chan error, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(&out, "serving at http://x ")
	}()
	if m := WaitMatch(t, &out, re, done, time.Minute); m[1] != "http://x" {
		t.Errorf("submatches %q", m)
	}

	done <- errors.New("boom")
	r := check(t, func(tb testing.TB) { WaitMatch(tb, new(testutil.SyncBuffer), re, done, time.Minute) })
	if !r.fatal || !strings.Contains(r.errs[0], "returned boom") {
		t.Errorf("a program that returned: %q (fatal %v)", r.errs, r.fatal)
	}
	r = check(t, func(tb testing.TB) { WaitMatch(tb, new(testutil.SyncBuffer), re, nil, 30*time.Millisecond) })
	if !r.fatal || !strings.Contains(r.errs[0], "no match") {
		t.Errorf("a program that never prints: %q (fatal %v)", r.errs, r.fatal)
	}
}

func TestWaitFor(t *testing.T) {
	n := 0
	WaitFor(t, time.Minute, "three calls", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
	r := check(t, func(tb testing.TB) { WaitFor(tb, 30*time.Millisecond, "never", func() bool { return false }) })
	if !r.fatal || !strings.Contains(r.errs[0], "waiting until never") {
		t.Errorf("a condition that never holds: %q (fatal %v)", r.errs, r.fatal)
	}
}

func TestReturned(t *testing.T) {
	done := make(chan error, 1)
	done <- io.EOF
	if err := Returned(t, done, time.Minute); err != io.EOF {
		t.Errorf("Returned = %v, want the error sent", err)
	}
	r := check(t, func(tb testing.TB) { Returned(tb, make(chan error), 30*time.Millisecond) })
	if !r.fatal || !strings.Contains(r.errs[0], "did not return") {
		t.Errorf("a program that never returns: %q (fatal %v)", r.errs, r.fatal)
	}
}

// TestClocks checks that each clock is what its name says: which of the
// New York and Hong Kong markets trade then.
func TestClocks(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	hongKong, err := time.LoadLocation("Asia/Hong_Kong")
	if err != nil {
		t.Fatal(err)
	}
	// trading reports whether t falls in a weekday's session from open to
	// close, local time, in minutes after midnight.
	trading := func(t time.Time, loc *time.Location, open, close int) bool {
		l := t.In(loc)
		m := l.Hour()*60 + l.Minute()
		return IsWeekday(l.Weekday()) && m >= open && m < close
	}
	want := map[string][2]bool{ // New York, Hong Kong
		"weekend":           {false, false},
		"night":             {false, false},
		"New York trading":  {true, false},
		"Hong Kong trading": {false, true},
	}
	clocks := Clocks()
	if len(clocks) != len(want) {
		t.Errorf("%d clocks, want %d", len(clocks), len(want))
	}
	for name, at := range clocks {
		got := [2]bool{trading(at, newYork, 9*60+30, 16*60), trading(at, hongKong, 9*60+30, 16*60)}
		if got != want[name] {
			t.Errorf("%s (%s): New York and Hong Kong trading %v, want %v", name, at, got, want[name])
		}
	}
	if Weekend.Weekday() != time.Saturday {
		t.Errorf("Weekend is a %s", Weekend.Weekday())
	}
}

// TestMoments checks that each moment beyond Clocks is what its name
// says, as the simulator sees it: its US market closed all Thanksgiving,
// open on the half day until its early close, open a quarter of an hour
// after the change to summer time; 02:00 UTC a day ahead of New York.
func TestMoments(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	usOpen := func(at time.Time) bool {
		srv := markettest.NewServer(At(at))
		defer srv.Close()
		c, err := srv.Client()
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Market.Status(t.Context(), itick.RegionUS)
		if err != nil || len(st) != 1 {
			t.Fatalf("US market status at %s: %v, %v", at, st, err)
		}
		return st[0].Open
	}
	for _, tt := range []struct {
		at   time.Time
		open bool
	}{
		{USHoliday, false},
		{USHalfDay, true},
		{USHalfDay.Add(time.Hour), false},                  // 13:30, past the early close
		{USHalfDay.AddDate(0, 0, -7).Add(time.Hour), true}, // a week before, an ordinary Friday
		{DSTChange, true},
		{DSTChange.AddDate(0, 0, -7), false}, // 08:45 by the winter offset
		{EarlyUTC, false},
	} {
		if got := usOpen(tt.at); got != tt.open {
			t.Errorf("the simulator's US market at %s (%s in New York): open %v, want %v",
				tt.at, tt.at.In(newYork).Format("Mon 15:04"), got, tt.open)
		}
	}
	if d := USHoliday.In(newYork); d.Weekday() != time.Thursday || d.Month() != time.November || d.Day() < 22 || d.Day() > 28 {
		t.Errorf("USHoliday %s is not Thanksgiving, November's fourth Thursday", d)
	}
	if USHalfDay.In(newYork).YearDay() != USHoliday.In(newYork).YearDay()+1 {
		t.Errorf("USHalfDay %s is not the day after Thanksgiving", USHalfDay)
	}
	if _, off := DSTChange.In(newYork).Zone(); off != -4*3600 {
		t.Errorf("DSTChange %s is at offset %d in New York, want summer time's", DSTChange, off)
	}
	if _, off := DSTChange.AddDate(0, 0, -2).In(newYork).Zone(); off != -5*3600 {
		t.Errorf("two days before DSTChange, New York is at offset %d, want winter time's", off)
	}
	if EarlyUTC.Hour() != 2 || EarlyUTC.Day() == EarlyUTC.In(newYork).Day() {
		t.Errorf("EarlyUTC %s: want 02:00 UTC on a date ahead of New York's", EarlyUTC)
	}
	moments := Moments()
	if len(moments) != len(Clocks())+4 {
		t.Errorf("%d moments, want Clocks' 4 and 4 more", len(moments))
	}
	for name, at := range Clocks() {
		if !moments[name].Equal(at) {
			t.Errorf("Moments()[%q] = %s, want Clocks' %s", name, moments[name], at)
		}
	}
}

// TestProgramsImportOnlyPublicPackages keeps the example programs
// standalone: no file of theirs but a test imports an internal package,
// this one included.
func TestProgramsImportOnlyPublicPackages(t *testing.T) {
	programs := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "internal" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			programs++
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/d19c4e34/itick/") && slices.Contains(strings.Split(p, "/"), "internal") {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if programs < 17 {
		t.Errorf("%d files of example programs found under examples/, want one at least for each of the 17 programs", programs)
	}
}
