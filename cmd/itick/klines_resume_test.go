package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// resumeArgs is a range of two classes, three products: hours of two
// crypto pairs (eight pages of one chunk) and of a stock (two pages).
var resumeArgs = []string{"klines", "crypto:BA:BTCUSDT", "crypto:BA:ETHUSDT", "stock:US:AAPL", "--interval", "1h",
	"--from", "2025-01-01", "--to", "2025-06-01"}

// holdAfter puts a server in front of srv that answers the first n kline
// requests and holds the later ones until the client gives up, closing
// held when the first is held; it returns the environment that points a
// command at it.
func holdAfter(t *testing.T, srv *markettest.Server, n int32) ([]string, <-chan struct{}) {
	t.Helper()
	var seen atomic.Int32
	held := make(chan struct{})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/kline") && seen.Add(1) == n+1 {
			close(held)
			<-r.Context().Done()
			return
		}
		if strings.Contains(r.URL.Path, "/kline") && seen.Load() > n+1 {
			<-r.Context().Done()
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return []string{"ITICK_TOKEN=" + srv.Token, "ITICK_BASE_URL=" + front.URL}, held
}

// TestKlinesResumeAfterInterrupt: a range written to a file with --resume
// and stopped by Ctrl-C, then run again with the command it printed, gives
// the file an uninterrupted run gives, byte for byte, in CSV and Parquet.
func TestKlinesResumeAfterInterrupt(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, ext := range []string{"csv", "parquet", "json"} {
		t.Run(ext, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			whole, part := filepath.Join(dir, "whole."+ext), filepath.Join(dir, "part."+ext)
			if r := runCLI(t, serverEnv(srv), append(resumeArgs, "--resume", whole)...); r.code != 0 {
				t.Fatalf("uninterrupted: exit code %d, stderr %q", r.code, r.stderr)
			}
			want, err := os.ReadFile(whole)
			if err != nil {
				t.Fatal(err)
			}

			env, held := holdAfter(t, srv, 3)
			cmd := itickCmd(t, env, append(resumeArgs, "--resume", part)...)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-held:
			case <-time.After(time.Minute):
				t.Fatal("no fourth page asked for")
			}
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if code := exitCode(t, cmd.Wait()); code != exitInterrupted {
				t.Fatalf("interrupted: exit code %d, stderr %q", code, errOut.String())
			}
			m := regexp.MustCompile(`^itick: interrupted: wrote the (\d+) candles that arrived to (\S+), the newest part of each product's range; to go on: (.*)\n$`).
				FindStringSubmatch(withoutSummary(t, errOut.String()))
			if m == nil {
				t.Fatalf("stderr %q does not say what was written and how to go on", errOut.String())
			}
			if n, _ := strconv.Atoi(m[1]); n != 3*2*itick.DefaultPageSize || m[2] != part {
				t.Errorf("wrote %s candles to %s; want three pages of both pairs (%d) to %s", m[1], m[2], 3*2*itick.DefaultPageSize, part)
			}
			again := strings.Fields(m[3])
			if len(again) < 2 || again[0] != "itick" || again[len(again)-2] != "--resume" || again[len(again)-1] != part {
				t.Fatalf("the command to go on is %q", m[3])
			}
			if r := runCLI(t, serverEnv(srv), again[1:]...); r.code != 0 {
				t.Fatalf("resumed: exit code %d, stderr %q", r.code, r.stderr)
			}
			got, err := os.ReadFile(part)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("the resumed file (%d bytes) differs from the uninterrupted one (%d bytes)", len(got), len(want))
			}
			// A whole file, resumed again, costs a few requests (learning
			// that nothing older is left, topping the newest end up) and
			// comes out the same.
			r := runCLI(t, serverEnv(srv), again[1:]...)
			m = regexp.MustCompile(`^itick: (\d+) requests?, `).FindStringSubmatch(r.stderr)
			if n := 0; m != nil {
				n, _ = strconv.Atoi(m[1])
				if r.code != 0 || n > 4 {
					t.Errorf("a whole file resumed: exit code %d, stderr %q; want 0 and a request or two per class", r.code, r.stderr)
				}
			}
			if again, _ := os.ReadFile(part); !bytes.Equal(want, again) {
				t.Error("a whole file resumed again changed")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 2 {
				t.Errorf("the folder holds %d files, want the two written (no temporary file left)", len(entries))
			}
		})
	}
}

// TestKlinesResumeRefusals: a file is resumed only by a command that goes
// on with it: the same format, adjusted alike, naming its products.
func TestKlinesResumeRefusals(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "aapl.csv")
	args := []string{"klines", "stock:US:AAPL", "--interval", "1d", "--from", "2025-05-01", "--to", "2025-06-01"}
	if r := runCLI(t, serverEnv(srv), append(args, "--resume", file)...); r.code != 0 {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	before, _ := os.ReadFile(file)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--adjust", "splits"}, "holds candles as the service sends them: go on without --adjust"},
		{[]string{"--format", "json"}, "holds csv; give --format csv"},
		{[]string{"--format", "table"}, "--resume writes csv, json or parquet, not a table"},
	} {
		r := runCLI(t, serverEnv(srv), append(append(args, "--resume", file), c.args...)...)
		if r.code != exitInvalid || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit code %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, exitInvalid, c.want)
		}
	}
	r := runCLI(t, serverEnv(srv), "klines", "stock:US:MSFT", "--interval", "1d", "--from", "2025-05-01", "--resume", file)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "holds candles of stock:US:AAPL, which the command does not name") {
		t.Errorf("another product: exit code %d, stderr %q", r.code, r.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, serverEnv(srv), append(args, "--resume", filepath.Join(dir, "junk.csv"))...)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "is not a file of candles klines wrote") {
		t.Errorf("a file of no candles: exit code %d, stderr %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Error("a refused command changed the file")
	}
}

// TestKlinesDryRun: --dry-run sends nothing and names at most the requests
// the run then sends: here, whose products all trade from the range's
// start, exactly those. With --resume it counts what the file lacks.
func TestKlinesDryRun(t *testing.T) {
	t.Parallel()
	codes := []string{"klines"}
	for i := range 12 { // two chunks on the Base plan
		codes = append(codes, "stock:US:C"+strconv.Itoa(10+i))
	}
	for _, args := range [][]string{
		resumeArgs,
		append(codes, "--interval", "1m", "--from", "2025-05-01", "--to", "2025-05-15"),
		{"klines", "stock", "HK", "700", "--interval", "1d", "--from", "2020-01-01", "--to", "2025-01-01"},
		{"klines", "forex", "GB", "EURUSD", "--interval", "1w", "--from", "2015-01-01", "--to", "2025-01-01"},
	} {
		srv := newServer(t)
		r := runCLI(t, serverEnv(srv), append(args, "--dry-run", "--plan", "free")...)
		m := regexp.MustCompile(`^itick: at most (\d+) requests?: (\S+) on the Free plan's quota of 5 a minute, besides the time they take; nothing was sent\n$`).
			FindStringSubmatch(r.stderr)
		if r.code != 0 || m == nil || len(srv.Requests()) != 0 {
			t.Fatalf("%v: exit code %d, stderr %q, %d requests sent; want 0, the plan, none", args, r.code, r.stderr, len(srv.Requests()))
		}
		planned, _ := strconv.Atoi(m[1])
		if d, err := time.ParseDuration(m[2]); err != nil || d != quotaTime(planned, 5) {
			t.Errorf("%v: %s on the quota; want %s", args, m[2], quotaTime(planned, 5))
		}
		if r = runCLI(t, serverEnv(srv), args...); r.code != 0 {
			t.Fatalf("%v: the run: exit code %d, stderr %q", args, r.code, r.stderr)
		}
		if sent := len(srv.Requests()); sent != planned {
			t.Errorf("%v: --dry-run said %d requests, the run sent %d", args, planned, sent)
		}
	}
	if quotaTime(5, 5) != 0 || quotaTime(6, 5) != time.Minute+time.Second || quotaTime(121, 120) != time.Minute+time.Second {
		t.Error("quotaTime: the plan's whole quota goes at once, then one more window per quota")
	}
}

// TestKlinesDryRunResume: with --resume, --dry-run counts what the file
// lacks at both ends, and the run sends exactly that.
func TestKlinesDryRunResume(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	file := filepath.Join(t.TempDir(), "btc.csv")
	late := []string{"klines", "crypto:BA:BTCUSDT", "--interval", "1h", "--from", "2025-04-01", "--to", "2025-06-01", "--resume", file}
	if r := runCLI(t, serverEnv(srv), late...); r.code != 0 {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	early := append([]string(nil), late...)
	early[5] = "2025-01-01"
	r := runCLI(t, serverEnv(srv), append(early, "--dry-run")...)
	m := regexp.MustCompile(`at most (\d+) requests?`).FindStringSubmatch(r.stderr)
	if r.code != 0 || m == nil {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	planned, _ := strconv.Atoi(m[1])
	before := len(srv.Requests())
	if r = runCLI(t, serverEnv(srv), early...); r.code != 0 {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	// Three months of hours before the file's oldest candle: five pages;
	// and the file's newest candle asked again, a page, as WithResume tops
	// a file up.
	if sent := len(srv.Requests()) - before; sent != planned || planned != 6 {
		t.Errorf("--dry-run said %d requests, the run sent %d", planned, sent)
	}
}

// TestKlinesQuotaEndsRange: a quota spent past what the SDK waits for ends
// a range with exit code 5; the candles that arrived are written, and the
// message says the command that goes on from them.
func TestKlinesQuotaEndsRange(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithQuota(2), markettest.WithQuotaWindow(2*time.Minute))
	file := filepath.Join(t.TempDir(), "btc.csv")
	r := runCLI(t, serverEnv(srv), "klines", "crypto:BA:BTCUSDT", "--interval", "1h", "--from", "2025-01-01",
		"--to", "2025-06-01", "--resume", file)
	if r.code != exitRateLimited || !regexp.MustCompile(`^itick: the quota is spent \(.*HTTP 429.*\): try again in 2m0s \(at \S+\); `+
		`incomplete, only the newest part of the range written: BTCUSDT; wrote the 1000 candles that arrived to \S+btc.csv, `+
		`the newest part of each product's range; to go on: itick klines crypto:BA:BTCUSDT .*--resume \S+btc.csv\n$`).
		MatchString(withoutSummary(t, r.stderr)) {
		t.Errorf("exit code %d, stderr %q; want %d, what was written and how to go on", r.code, r.stderr, exitRateLimited)
	}
	if data, err := os.ReadFile(file); err != nil || strings.Count(string(data), "\n") != 1+2*itick.DefaultPageSize {
		t.Errorf("the file holds %d lines, %v; want a header and the two pages that arrived", strings.Count(string(data), "\n"), err)
	}
}

// TestKlinesResumeOlderFile: a file of an earlier version, without class
// and region columns, is resumed by a command of one class and region, and
// comes out in today's columns.
func TestKlinesResumeOlderFile(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	file := filepath.Join(t.TempDir(), "aapl.csv")
	old := "code,time,open,high,low,close,volume,turnover\n" +
		"AAPL,2025-05-30T00:00:00Z,150,151,149,150.5,1000,150500\n"
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, serverEnv(srv), "klines", "stock", "US", "AAPL", "--interval", "1d", "--from", "2025-05-26", "--to", "2025-06-01",
		"--resume", file)
	data, _ := os.ReadFile(file)
	want := regexp.MustCompile(`^class,region,code,time,open,high,low,close,volume,turnover\n` +
		`(stock,US,AAPL,2025-05-2[6-9]T00:00:00Z,[0-9.,]+\n){3}stock,US,AAPL,2025-05-30T00:00:00Z,[0-9.,]+\n$`)
	if r.code != 0 || !want.Match(data) {
		t.Errorf("exit code %d, stderr %q, file:\n%s", r.code, r.stderr, data)
	}
}
