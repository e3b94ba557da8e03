package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/markettest"
)

// startStream runs "itick stream" against srv with JSON lines on stdout and
// waits for its first event.
func startStream(t *testing.T, srv *markettest.Server, args ...string) (*exec.Cmd, *lineLog, *bytes.Buffer) {
	t.Helper()
	cmd := itickCmd(t, serverEnv(srv), append([]string{"stream", "stock", "AAPL$US", "--format", "json"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(stdout)
	lines.waitFor(t, time.Minute, "a quote", eventIs("quote"))
	return cmd, lines, &errOut
}

// eventIs accepts a JSON line of the given event.
func eventIs(kind string) func(string) bool {
	return func(line string) bool {
		var ev struct {
			Event string `json:"event"`
		}
		return json.Unmarshal([]byte(line), &ev) == nil && ev.Event == kind
	}
}

// stopStream interrupts the stream, as Ctrl-C does, and checks it ends
// with exit code 0 and every line whole JSON.
func stopStream(t *testing.T, cmd *exec.Cmd, lines *lineLog, errOut *bytes.Buffer) {
	t.Helper()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd.Wait()); code != 0 {
		t.Errorf("exit code %d after Ctrl-C, want 0; stderr %q", code, errOut.String())
	}
	for i, line := range lines.all() {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d is not JSON: %q", i+1, line)
		}
	}
}

// TestStreamShowsGap drops the stream's connection: the command goes on
// and shows the gap once it has reconnected, then quotes again.
func TestStreamShowsGap(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	cmd, lines, errOut := startStream(t, srv)
	if n := srv.DropStreams(); n != 1 {
		t.Fatalf("dropped %d connections, want 1", n)
	}
	i, gap := lines.waitFrom(t, 0, time.Minute, "a gap", eventIs("gap"))
	if !strings.Contains(gap, "AAPL$US") || !strings.Contains(gap, "connection 0 was down from") {
		t.Errorf("gap line %q does not say which products missed what", gap)
	}
	lines.waitFrom(t, i+1, time.Minute, "a quote after the gap", eventIs("quote"))
	stopStream(t, cmd, lines, errOut)
}

// TestStreamShowsDisconnect stops the server under the stream: the command
// shows the lost connection while it tries to reconnect.
func TestStreamShowsDisconnect(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	cmd, lines, errOut := startStream(t, srv)
	srv.Close()
	line := lines.waitFor(t, time.Minute, "a disconnect", eventIs("disconnect"))
	if !strings.Contains(line, "1 of 1 connections lost; reconnecting") {
		t.Errorf("disconnect line %q does not say how many connections were lost", line)
	}
	stopStream(t, cmd, lines, errOut)
}

// TestStreamCount checks --count ends the stream after that many market
// events, with exit code 0.
func TestStreamCount(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := runCLI(t, serverEnv(srv), "stream", "crypto", "BTCUSDT$BA", "ETHUSDT$BA", "--channels", "tick", "--count", "7")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want 7:\n%s", len(lines), r.stdout)
	}
	for _, line := range lines {
		if !eventIs("tick")(line) {
			t.Errorf("line %q is not a tick", line)
		}
	}
}
