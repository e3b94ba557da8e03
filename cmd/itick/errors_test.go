package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// TestExitCodes checks each kind of failure gets its own exit code and one
// line on stderr that says what to do, and that nothing reaches stdout but
// whole rows.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	plain := newServer(t)

	// A quota spent by another client of the same token, whose window
	// ends in two minutes: past the minute the SDK waits, so the answer
	// comes at once.
	spentLong := newServer(t, markettest.WithQuota(1), markettest.WithQuotaWindow(2*time.Minute))
	spend(t, spentLong)
	// Spent for a minute: within the minute the SDK waits, but past
	// --timeout, so the answer comes at once too.
	spentMinute := newServer(t, markettest.WithQuota(1))
	spend(t, spentMinute)
	// Every request answered 429 without a Retry-After: the client backs
	// off and tries again, and --timeout ends the wait.
	noRetryAfter := newServer(t)
	noRetryAfter.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusTooManyRequests})

	usOnly := newServer(t, markettest.WithRegions(itick.RegionUS))
	oneCode := newServer(t, markettest.WithBatchSize(1))
	textCodes := newServer(t, markettest.WithTextCodes())

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + ln.Addr().String()
	ln.Close()

	withToken := func(srv *markettest.Server, token string) []string {
		return []string{"ITICK_TOKEN=" + token, "ITICK_BASE_URL=" + srv.URL}
	}
	cases := []struct {
		name   string
		env    []string
		args   []string
		code   int
		stderr string // a regular expression the one line matches
		stdout string // exactly
	}{
		{"ok", serverEnv(plain), []string{"quote", "stock", "US", "AAPL", "--format", "csv"}, exitOK, "",
			"class,region,code,last,change,change_percent,time,open,high,low,prev_close,volume,turnover,status\n" +
				"stock,US,AAPL,149.46,3.05,2.08,2025-06-02T14:30:00Z,149.37,149.72,149.37,146.41,627216,93756247.68,normal\n"},

		{"no arguments", serverEnv(plain), []string{"quote", "stock"}, exitUsage,
			`^itick: quote takes a class, a region and at least one code, got 1 argument: itick quote PRODUCT\.\.\. \| CLASS REGION CODE\.\.\. \(see itick quote --help\)$`, ""},
		{"no products", serverEnv(plain), []string{"klines"}, exitUsage,
			`^itick: klines takes products such as stock:US:AAPL, or CLASS REGION CODE\.\.\.: itick klines`, ""},
		{"status without a region", serverEnv(plain), []string{"status"}, exitUsage,
			`^itick: status takes 1 argument, got 0: itick status REGION`, ""},
		{"unknown flag", serverEnv(plain), []string{"quote", "stock", "US", "AAPL", "--codes", "x"}, exitUsage,
			`^itick: unknown flag: --codes \(see itick quote --help\)$`, ""},
		{"unknown command", serverEnv(plain), []string{"quotes"}, exitUsage, `^itick: unknown command "quotes"`, ""},
		// A value a flag cannot take is an invalid argument, as a bad
		// argument is: the command line's shape is right.
		{"unknown format", serverEnv(plain), []string{"quote", "stock", "US", "AAPL", "--format", "xml"}, exitInvalid,
			`^itick: invalid argument: --format "xml": not table, csv, json or parquet \(see itick quote --help\)$`, ""},
		{"limit not a number", serverEnv(plain), []string{"klines", "stock", "US", "AAPL", "--limit", "ten"}, exitInvalid,
			`^itick: invalid argument: --limit "ten": .*invalid syntax`, ""},
		{"timeout not a duration", serverEnv(plain), []string{"quote", "stock", "US", "AAPL", "--timeout", "5x"}, exitInvalid,
			`^itick: invalid argument: --timeout "5x"`, ""},
		{"flag without its value", serverEnv(plain), []string{"quote", "stock", "US", "AAPL", "--format"}, exitUsage,
			`flag needs an argument: --format`, ""},
		{"get as a table", serverEnv(plain), []string{"get", "/symbol/list", "--format", "table"}, exitInvalid,
			`get writes JSON; --format table does not apply`, ""},
		{"parquet to a command without it", serverEnv(plain), []string{"status", "US", "--format", "parquet"}, exitInvalid,
			`--format parquet applies to quote and klines`, ""},
		{"a product of no form", serverEnv(plain), []string{"quote", "stock:US:AAPL", "MSFT"}, exitInvalid,
			`product "MSFT" is not CLASS:REGION:CODE`, ""},
		{"a product of no class", serverEnv(plain), []string{"quote", "bond:US:AAPL"}, exitInvalid,
			`class "bond"`, ""},
		{"adjust a crypto pair", serverEnv(plain), []string{"klines", "crypto:BA:BTCUSDT", "--adjust", "splits"}, exitInvalid,
			`--adjust splits applies to stocks only, and crypto:BA:BTCUSDT is not one`, ""},
		{"adjust for what", serverEnv(plain), []string{"klines", "stock:US:AAPL", "--adjust", "dividends"}, exitInvalid,
			`--adjust "dividends" is not splits or none`, ""},
		{"resume without a range", serverEnv(plain), []string{"klines", "stock:US:AAPL", "--resume", "x.csv"}, exitInvalid,
			`--resume and --dry-run go with --from`, ""},
		{"query without value", serverEnv(plain), []string{"get", "/stock/quote", "region"}, exitUsage,
			`query argument "region" is not KEY=VALUE`, ""},

		{"bad interval", serverEnv(plain), []string{"klines", "stock", "US", "AAPL", "--interval", "7d"}, exitInvalid,
			`^itick: invalid argument: interval "7d" is not 1m, 5m, .* \(see itick klines --help\)$`, ""},
		{"bad date", serverEnv(plain), []string{"klines", "stock", "US", "AAPL", "--from", "2024-13-01"}, exitInvalid,
			`--from "2024-13-01" is not a date`, ""},
		{"from after to", serverEnv(plain), []string{"klines", "stock", "US", "AAPL", "--from", "2025-02-01", "--to", "2025-01-01"},
			exitInvalid, `--from 2025-02-01T00:00:00Z is not before --to 2025-01-01T00:00:00Z`, ""},
		{"from before 1970", serverEnv(plain), []string{"klines", "stock", "US", "AAPL", "--from", "0001-01-01"}, exitInvalid,
			`^itick: invalid argument: --from 0001-01-01 is before 1970-01-01: the service has no data that old`, ""},
		{"to before 1970", serverEnv(plain), []string{"klines", "stock", "US", "AAPL", "--to", "1969-12-31T23:59:59Z"},
			exitInvalid, `--to 1969-12-31T23:59:59Z is before 1970-01-01`, ""},
		{"empty from", serverEnv(plain), []string{"klines", "stock", "US", "AAPL", "--from", ""}, exitInvalid,
			`--from "" is not a date`, ""},
		{"negative timeout", serverEnv(plain), []string{"quote", "stock", "US", "AAPL", "--timeout", "-5s"}, exitInvalid,
			`^itick: invalid argument: --timeout -5s is negative: give how long to wait, or 0 to wait as long as it takes`, ""},
		{"negative timeout on a stream", serverEnv(plain), []string{"stream", "stock", "AAPL$US", "--timeout", "-1ns"},
			exitInvalid, `--timeout -1ns is negative`, ""},
		{"limit too large", serverEnv(plain), []string{"klines", "stock", "US", "AAPL", "--limit", "501"}, exitInvalid,
			`--limit 501 is not between 1 and 500`, ""},
		{"bad class", serverEnv(plain), []string{"quote", "bonds", "US", "X"}, exitInvalid, `class "bonds" is not stock,`, ""},
		{"bad region", serverEnv(plain), []string{"quote", "stock", "U S", "AAPL"}, exitInvalid, `region "U S" is not a market code`, ""},
		{"region missing", serverEnv(plain), []string{"quote", "stock", "AAPL$US"}, exitUsage, `takes a class, a region and at least one code, got 2 arguments`, ""},
		{"stream symbol as code", serverEnv(plain), []string{"quote", "stock", "US", "AAPL$US"}, exitInvalid,
			`code "AAPL\$US": give the region as its own argument`, ""},
		{"bad plan", serverEnv(plain), []string{"quote", "stock", "US", "AAPL", "--plan", "gold"}, exitInvalid, `plan "gold"`, ""},
		{"bad channel", serverEnv(plain), []string{"stream", "stock", "700$HK", "--channels", "trades"}, exitInvalid,
			`channel "trades" is not quote, tick, depth or kline@INTERVAL`, ""},
		{"stream symbol without region", serverEnv(plain), []string{"stream", "stock", "700"}, exitInvalid,
			`stream symbol "700" is not code\$REGION`, ""},
		{"path with dots", serverEnv(plain), []string{"get", "/stock/../news"}, exitInvalid, `invalid argument: path`, ""},

		{"wrong token", withToken(plain, "wrong-token-Xy7"), []string{"quote", "stock", "US", "AAPL"}, exitUnauthorized,
			`^itick: the service refused the token \(.*\): set ITICK_TOKEN to a valid token`, ""},
		{"wrong token, E002", withToken(textCodes, "wrong-token-Xy7"), []string{"depth", "stock", "US", "AAPL"},
			exitUnauthorized, `refused the token .*ITICK_TOKEN`, ""},
		{"wrong token on the stream", withToken(plain, "wrong-token-Xy7"), []string{"stream", "stock", "700$HK"},
			exitUnauthorized, `refused the token .*ITICK_TOKEN`, ""},

		{"quota spent", serverEnv(spentLong), []string{"quote", "stock", "US", "AAPL"}, exitRateLimited,
			`^itick: the quota is spent \(.*HTTP 429.*\): try again in 2m0s \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$`, ""},
		{"quota spent past --timeout", serverEnv(spentMinute), []string{"quote", "stock", "US", "AAPL", "--timeout", "3s"},
			exitRateLimited, `^itick: the quota is spent: try again in 1m0s \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\), ` +
				`or raise --timeout to wait for it$`, ""},
		// The third backoff (500 ms to 1 s) would pass --timeout: the
		// client does not start it, and says the quota is spent.
		{"429 without Retry-After past --timeout", serverEnv(noRetryAfter),
			[]string{"quote", "stock", "US", "AAPL", "--timeout", "1s"}, exitRateLimited,
			`^itick: the quota is spent: try again in a minute, or raise --timeout to wait for it$`, ""},

		{"outside the plan's markets", serverEnv(usOnly), []string{"quote", "stock", "HK", "700", "--format", "csv"},
			exitNotFound, `^itick: no data for 700: check the class, region and codes`,
			"class,region,code,last,change,change_percent,time,open,high,low,prev_close,volume,turnover,status\n"},
		{"one book outside the plan's markets", serverEnv(usOnly), []string{"depth", "stock", "HK", "700"},
			exitNotFound, `not found.*check the class, region and codes`, ""},
		{"a region stocks do not have", serverEnv(plain), []string{"quote", "stock", "USA", "AAPL", "--format", "csv"},
			exitNotFound, `not found this produce.*check the class, region and codes`, ""},
		{"a region crypto does not have", serverEnv(plain), []string{"depth", "crypto", "US", "BTCUSDT"},
			exitNotFound, `not found this produce.*check the class, region and codes`, ""},
		{"a code of no market's form", serverEnv(plain), []string{"quote", "stock", "US", "NOSUCHCODE", "--format", "csv"},
			exitNotFound, `^itick: no data for NOSUCHCODE: check the class, region and codes`,
			"class,region,code,last,change,change_percent,time,open,high,low,prev_close,volume,turnover,status\n"},
		{"more codes than the plan allows", serverEnv(oneCode), []string{"quote", "stock", "US", "AAPL", "MSFT"},
			exitNotFound, `^itick: beyond what the plan allows \(.*\): pass --plan with your plan \(now Base\)`, ""},
		{"more symbols than the plan streams", serverEnv(plain),
			[]string{"stream", "stock", "A$US", "B$US", "C$US", "D$US", "--plan", "free"}, exitNotFound,
			`beyond what the plan allows .*now Free`, ""},

		{"service unreachable", []string{"ITICK_TOKEN=t0ken", "ITICK_BASE_URL=" + closedURL},
			[]string{"status", "US"}, exitFailure,
			`^itick: cannot reach the service \(.*connection refused.*\): check the network and ITICK_BASE_URL$`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, c.env, c.args...)
			if r.code != c.code {
				t.Errorf("exit code %d, want %d; stderr %q", r.code, c.code, r.stderr)
			}
			if r.stdout != c.stdout {
				t.Errorf("stdout %q, want %q", r.stdout, c.stdout)
			}
			if c.stderr == "" {
				if r.stderr != "" {
					t.Errorf("stderr %q, want nothing", r.stderr)
				}
				return
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
				t.Errorf("stderr is not one line: %q", r.stderr)
			}
			if !regexp.MustCompile(c.stderr).MatchString(strings.TrimSuffix(r.stderr, "\n")) {
				t.Errorf("stderr %q does not match %s", r.stderr, c.stderr)
			}
			if strings.Contains(strings.ToLower(r.stderr), "wrong-token-xy7") {
				t.Errorf("stderr shows the token: %q", r.stderr)
			}
		})
	}
}

// spend uses up srv's quota with a request of its own.
func spend(t *testing.T, srv *markettest.Server) {
	t.Helper()
	c, err := srv.Client(itick.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Market.Status(t.Context(), itick.RegionUS); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Market.Status(t.Context(), itick.RegionUS); !errors.Is(err, itick.ErrRateLimited) {
		t.Fatalf("second request: %v, want the quota spent", err)
	}
}

// TestPartialBatch fails one chunk of a batch: the rows that arrived are
// written, and the message names the codes to ask for again.
func TestPartialBatch(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusBadRequest, Code: "C10"})
	codes := make([]string, 11) // two chunks on the Base plan: C00 to C09, and C10
	for i := range codes {
		codes[i] = fmt.Sprintf("C%02d", i)
	}
	r := runCLI(t, serverEnv(srv), append([]string{"quote", "stock", "US", "--format", "csv"}, codes...)...)
	if r.code != exitFailure {
		t.Errorf("exit code %d, want %d", r.code, exitFailure)
	}
	rows := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")[1:]
	if len(rows) != 10 || !strings.HasPrefix(rows[0], "stock,US,C00,") || !strings.HasPrefix(rows[9], "stock,US,C09,") {
		t.Errorf("rows %q, want those of C00 to C09", rows)
	}
	if !regexp.MustCompile(`^itick: .*HTTP 400.*; no result for C10\n$`).MatchString(r.stderr) {
		t.Errorf("stderr %q does not name C10 on one line", r.stderr)
	}
}

// TestQuotaSpentMidBatch spends the quota between the two chunks of a
// batch: the chunk that got through is written, and the one line says
// when to try again and names the codes of the chunk that did not.
func TestQuotaSpentMidBatch(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithQuota(1))
	codes := make([]string, 11) // two chunks on the Base plan: C00 to C09, and C10
	for i := range codes {
		codes[i] = fmt.Sprintf("C%02d", i)
	}
	r := runCLI(t, serverEnv(srv), append([]string{"quote", "stock", "US", "--format", "csv", "--timeout", "3s"}, codes...)...)
	if r.code != exitRateLimited {
		t.Errorf("exit code %d, want %d; stderr %q", r.code, exitRateLimited, r.stderr)
	}
	m := regexp.MustCompile(`^itick: the quota is spent: try again in 1m0s \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\), ` +
		`or raise --timeout to wait for it; no result for ([C0-9 ]+)\n$`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("stderr %q is not one line saying when to try again and naming the codes", r.stderr)
	}
	// Which chunk the quota lets through is a race; between them, the
	// rows and the message hold every code once.
	got := strings.Fields(m[1])
	for _, row := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")[1:] {
		got = append(got, strings.Split(row, ",")[2])
	}
	sort.Strings(got)
	if diff := cmp.Diff(codes, got); diff != "" {
		t.Errorf("rows and named codes differ from the codes asked for (-want +got):\n%s\nstdout %q", diff, r.stdout)
	}
}

// TestQuotaWaitWithinTimeout holds the quota message to its word: the
// quota's wait passes --timeout, and a --timeout past the wait it names
// waits for room and gets the quote. The simulator's clock starts at
// fixedNow and runs in real time, which its quota window needs to pass.
func TestQuotaWaitWithinTimeout(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClockFrom(fixedNow), markettest.WithQuota(1), markettest.WithQuotaWindow(10*time.Second))
	spend(t, srv)
	args := []string{"quote", "crypto", "BA", "BTCUSDT", "--format", "csv"}

	r := runCLI(t, serverEnv(srv), append(args, "--timeout", "2s")...)
	m := regexp.MustCompile(`^itick: the quota is spent: try again in (\d+s) \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\), ` +
		`or raise --timeout to wait for it\n$`).FindStringSubmatch(r.stderr)
	if r.code != exitRateLimited || m == nil || r.stdout != "" {
		t.Fatalf("exit code %d, stdout %q, stderr %q; want %d, nothing, and when to try again",
			r.code, r.stdout, r.stderr, exitRateLimited)
	}
	wait, err := time.ParseDuration(m[1])
	if err != nil || wait <= 0 || wait > 10*time.Second {
		t.Fatalf("try again in %s: want a wait within the quota's window of 10s", m[1])
	}

	r = runCLI(t, serverEnv(srv), append(args, "--timeout", (wait+20*time.Second).String())...)
	if r.code != exitOK || r.stderr != "" || !strings.Contains(r.stdout, "\ncrypto,BA,BTCUSDT,") {
		t.Errorf("with --timeout past the wait: exit code %d, stdout %q, stderr %q; want the quote", r.code, r.stdout, r.stderr)
	}
}

// TestOutputFailures writes to a full disk and to a closed pipe: each
// command says the output could not be written, never that the network
// failed, and exits with 1, whatever it was writing: rows, a stream, help.
func TestOutputFailures(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	full, fullErr := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if fullErr == nil {
		full.Close()
	}
	for _, args := range [][]string{
		{"quote", "stock", "US", "AAPL"},
		{"klines", "forex", "GB", "EURUSD", "--interval", "1d", "--from", "2025-05-01", "--to", "2025-05-15"},
		{"stream", "stock", "AAPL$US", "--count", "2"},
		{"get", "/stock/quote", "region=US", "code=AAPL"},
		{"version"},
		{"--help"},
	} {
		t.Run(strings.Join(args[:1], " ")+"/full", func(t *testing.T) {
			t.Parallel()
			if fullErr != nil {
				t.Skipf("no /dev/full: %v", fullErr)
			}
			out, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			checkOutputFailure(t, srv, out, args, `^itick: cannot write the output \(write .*: no space left on device\): the disk is full`)
		})
		t.Run(strings.Join(args[:1], " ")+"/closed", func(t *testing.T) {
			t.Parallel()
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			defer w.Close()
			checkOutputFailure(t, srv, w, args, `^itick: the output was closed before all of it was written \(write .*: broken pipe\)$`)
		})
	}
}

func checkOutputFailure(t *testing.T, srv *markettest.Server, out *os.File, args []string, want string) {
	t.Helper()
	cmd := itickCmd(t, serverEnv(srv), args...)
	var errOut strings.Builder
	cmd.Stdout, cmd.Stderr = out, &errOut
	code := exitCode(t, cmd.Run())
	if code != exitFailure {
		t.Errorf("exit code %d, want %d; stderr %q", code, exitFailure, errOut.String())
	}
	stderr := errOut.String()
	if slices.Contains(args, "--from") { // a range sums itself up first
		stderr = withoutSummary(t, stderr)
	}
	line, ok := strings.CutSuffix(stderr, "\n")
	if !ok || strings.Contains(line, "\n") || !regexp.MustCompile(want).MatchString(line) || strings.Contains(line, "network") {
		t.Errorf("stderr %q is not one line matching %s", errOut.String(), want)
	}
}
