package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/markettest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with the output of this run")

// binary is the itick command the tests run, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "itick-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "itick")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	args := []string{"build", "-o", binary}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building itick: %v\n", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixedNow is the simulators' clock: a Monday, with the US market open, so
// every answer is the same on every run. The stream pushes a product only
// while its market trades, so the stream tests use US stocks: Hong Kong's
// market is closed at this hour.
var fixedNow = time.Date(2025, 6, 2, 14, 30, 0, 0, time.UTC)

// newServer starts a simulator on the fixed clock, closed with the test.
func newServer(t *testing.T, opts ...markettest.Option) *markettest.Server {
	t.Helper()
	opts = append([]markettest.Option{markettest.WithClock(func() time.Time { return fixedNow })}, opts...)
	srv := markettest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// serverEnv points the command at srv, as a user points it at the service.
func serverEnv(srv *markettest.Server) []string {
	return []string{"ITICK_TOKEN=" + srv.Token, "ITICK_BASE_URL=" + srv.URL}
}

// itickCmd returns the command for args, with an environment holding no
// ITICK_ variable but env, and a bound on how long it may run. Unless env
// sets ITICK_SIM_TIME, it holds fixedNow there: the simulator a command
// starts offline, and itick sim, stand at fixedNow.
func itickCmd(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, binary, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ITICK_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, markettest.EnvSimTime+"="+fixedNow.Format(time.RFC3339))
	cmd.Env = append(cmd.Env, env...) // later values win
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// result is what one run of the command left.
type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs the command to its end with stdout and stderr on pipes.
func runCLI(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := itickCmd(t, env, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code := exitCode(t, cmd.Run())
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// runOnTerminal runs cmd with its standard streams left unset on a
// pseudo-terminal, and returns what the terminal got, with its line ends
// as "\n", and the exit code. Without pseudo-terminals it skips the test.
func runOnTerminal(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("pseudo-terminals are Unix's")
	}
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&screen, ptmx) //nolint:errcheck // ends with EIO once the command has exited
		close(copied)
	}()
	code := exitCode(t, cmd.Wait())
	<-copied
	return strings.ReplaceAll(screen.String(), "\r\n", "\n"), code // the terminal writes \r\n
}

// exitCode is the exit code behind the error of Run or Wait.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("running itick: %v", err)
	return -1
}

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

// lineLog collects the lines a running command writes, so a test can wait
// for one with a deadline.
type lineLog struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{} // closed and replaced at every new line and at the end
	ended   bool
}

func readLines(r io.Reader) *lineLog {
	l := &lineLog{changed: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			close(l.changed)
			l.changed = make(chan struct{})
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.ended = true
		close(l.changed)
		l.mu.Unlock()
	}()
	return l
}

// waitFor returns the first line that ok accepts, waiting up to d for it.
func (l *lineLog) waitFor(t *testing.T, d time.Duration, what string, ok func(string) bool) string {
	t.Helper()
	_, line := l.waitFrom(t, 0, d, what, ok)
	return line
}

// waitFrom is waitFor for the lines from the start'th (0-based) on; it
// also returns the line's index.
func (l *lineLog) waitFrom(t *testing.T, start int, d time.Duration, what string, ok func(string) bool) (int, string) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		for i := start; i < len(l.lines); i++ {
			if ok(l.lines[i]) {
				line := l.lines[i]
				l.mu.Unlock()
				return i, line
			}
		}
		ended, changed := l.ended, l.changed
		l.mu.Unlock()
		if ended {
			t.Fatalf("output ended without %s; it was:\n%s", what, l.String())
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no %s within %s; output so far:\n%s", what, d, l.String())
		}
	}
}

// all returns the lines so far.
func (l *lineLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func (l *lineLog) String() string { return strings.Join(l.all(), "\n") }

// eventually polls cond until it holds, failing after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
