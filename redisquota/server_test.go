package redisquota

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is a redis-server process on 127.0.0.1 that a test started,
// with persistence off.
type redisServer struct {
	t    testing.TB
	port int
	dir  string
	cmd  *exec.Cmd
	exit chan error
}

// startRedis starts redis-server on a free loopback port and stops it when
// the test ends. Without redis-server on PATH the test is skipped.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not on PATH; install it to run these tests (Debian/Ubuntu: apt-get install redis-server)")
	}
	s := &redisServer{t: t, dir: t.TempDir()}
	var err error
	for range 5 { // another process may take the free port first
		s.port = freePort(t)
		if err = s.start(); err == nil {
			t.Cleanup(s.kill)
			return s
		}
	}
	t.Fatalf("cannot start redis-server: %v", err)
	return nil
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Addr is the server's host:port.
func (s *redisServer) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// start runs redis-server on s.port and waits until it answers PING.
func (s *redisServer) start() error {
	// DEBUG SLEEP hangs the server for the tests that need it.
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir, "--enable-debug-command", "local")
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exit = make(chan error, 1)
	go func(cmd *exec.Cmd, exit chan<- error) { exit <- cmd.Wait() }(s.cmd, s.exit)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: time.Second})
	defer rdb.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case exitErr := <-s.exit:
			s.cmd = nil
			return fmt.Errorf("redis-server on port %d exited (%v) before answering: %w", s.port, exitErr, err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("redis-server on port %d did not answer within 30s: %w", s.port, err)
		}
	}
}

// kill stops the server at once, as a crash would.
func (s *redisServer) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill() // a stopped process is killed too
	<-s.exit
	s.cmd = nil
}

// pause stops the server's process (SIGSTOP): it keeps its connections
// and the kernel keeps accepting new ones, but nothing is answered, as
// with a server stuck in a long command or a host that froze. resume
// (SIGCONT) lets it go on with what it received meanwhile.
func (s *redisServer) pause() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("stopping redis-server: %v", err)
	}
	s.t.Cleanup(s.resume) // before kill, which ran first when registered earlier
}

func (s *redisServer) resume() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
	}
}

// restart starts the server again on the same port, empty.
func (s *redisServer) restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("restarting redis-server: %v", err)
	}
}

// client returns a client for the server, closed when the test ends.
// Retries are off so a test sees each failure as it happens.
func (s *redisServer) client(t testing.TB) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true,
		DialTimeout: 2 * time.Second})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// calls returns the calls recorded in key: the members with a positive
// score, which is when the script recorded them on the server's clock.
func calls(t testing.TB, rdb redis.UniversalClient, key string) int64 {
	t.Helper()
	n, err := rdb.ZCount(context.WithoutCancel(t.Context()), key, "(0", "+inf").Result()
	if err != nil {
		t.Fatalf("counting the calls in %q: %v", key, err)
	}
	return n
}
