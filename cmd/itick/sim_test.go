package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// hongKongTrading is 11:00 on a Wednesday in Hong Kong, when New York's
// market is closed.
var hongKongTrading = time.Date(2025, 6, 4, 3, 0, 0, 0, time.UTC)

// TestSim starts "itick sim" and uses what it prints: a plain net/http GET
// with the printed token, and the SDK's stream against the printed URL.
// The simulator's clock stands at ITICK_SIM_TIME (fixedNow, which
// itickCmd sets) or --at: its quotes are of that instant, and it pushes a
// stock whose market trades then.
func TestSim(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		env    []string
		args   []string
		token  string
		at     time.Time
		symbol string
	}{
		{"defaults", nil, nil, markettest.DefaultToken, fixedNow, "AAPL$US"},
		// A shell that took in an earlier sim's lines has ITICK_TOKEN set:
		// the simulator's own token still prints as it is.
		{"token in the environment", []string{"ITICK_TOKEN=" + markettest.DefaultToken}, nil, markettest.DefaultToken, fixedNow, "AAPL$US"},
		{"own token, plan and clock", nil, []string{"--token", "s3cret-sim", "--plan", "premium", "--addr", "127.0.0.1:0",
			"--at", hongKongTrading.Format(time.RFC3339)}, "s3cret-sim", hongKongTrading, "700$HK"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd := itickCmd(t, c.env, append([]string{"sim"}, c.args...)...)
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
			base := strings.TrimPrefix(lines.waitFor(t, time.Minute, "the ITICK_BASE_URL line", func(s string) bool {
				return strings.HasPrefix(s, "ITICK_BASE_URL=")
			}), "ITICK_BASE_URL=")
			token := strings.TrimPrefix(lines.waitFor(t, time.Minute, "the ITICK_TOKEN line", func(s string) bool {
				return strings.HasPrefix(s, "ITICK_TOKEN=")
			}), "ITICK_TOKEN=")
			if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9]\d*$`).MatchString(base) {
				t.Fatalf("ITICK_BASE_URL=%s, want http://127.0.0.1:PORT", base)
			}
			if token != c.token {
				t.Fatalf("ITICK_TOKEN=%s, want %s", token, c.token)
			}

			code, region, _ := strings.Cut(c.symbol, "$")
			checkSimREST(t, base, token, region, code, c.at)
			checkSimStream(t, base, token, c.symbol)

			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if code := exitCode(t, cmd.Wait()); code != 0 {
				t.Errorf("exit code %d after Ctrl-C, want 0; stderr %q", code, errOut.String())
			}
			if got := lines.all(); len(got) != 2 {
				t.Errorf("stdout holds %q, want the two lines", got)
			}
			if !strings.Contains(errOut.String(), "its clock stopped at "+c.at.Format(time.RFC3339)) {
				t.Errorf("stderr %q does not say the clock stands at %s", errOut.String(), c.at.Format(time.RFC3339))
			}
		})
	}
}

// checkSimREST asks the simulator for a stock's quote as any HTTP client
// would: one of the instant at, when its market trades.
func checkSimREST(t *testing.T, base, token, region, code string, at time.Time) {
	t.Helper()
	get := func(token string) (int, []byte) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet,
			base+"/stock/quote?"+url.Values{"region": {region}, "code": {code}}.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("token", token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	status, body := get(token)
	var env struct {
		Code int `json:"code"`
		Data struct {
			Symbol string  `json:"s"`
			Last   float64 `json:"ld"`
			Time   int64   `json:"t"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil || status != http.StatusOK {
		t.Fatalf("GET /stock/quote: HTTP %d, %v: %s", status, err, body)
	}
	if env.Code != 0 || env.Data.Symbol != code || env.Data.Last <= 0 || env.Data.Time != at.UnixMilli() {
		t.Errorf("GET /stock/quote: %s, want code 0 and a quote of %s at %s", body, code, at.Format(time.RFC3339))
	}
	if status, body := get(""); status != http.StatusUnauthorized {
		t.Errorf("GET without the token: HTTP %d %s, want 401", status, body)
	}
}

// checkSimStream subscribes to a stock of the simulator's stream with the
// SDK: the simulator pushes it only while its market trades, on the
// simulator's clock.
func checkSimStream(t *testing.T, base, token, symbol string) {
	t.Helper()
	client, err := itick.NewClient(token, itick.WithBaseURL(base))
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Stream(t.Context(), itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(t.Context(), []string{symbol}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(time.Minute)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatalf("the stream ended: %v", s.Err())
			}
			if q, isQuote := ev.(itick.QuoteEvent); isQuote {
				if q.Symbol() != symbol || q.Quote.Last <= 0 {
					t.Errorf("quote event %+v, want one of %s", q, symbol)
				}
				return
			}
		case <-deadline:
			t.Fatal("no quote from the stream within a minute")
		}
	}
}

// TestSimProtocolAsDocumented speaks to itick sim's stream as a client in
// another language would, with the messages README.md shows, and checks
// the answers are the ones it shows: the connect and auth messages, the
// acknowledgement, the pong, and pushes that name their product alike.
func TestSimProtocolAsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const (
		connected  = `{"code":1,"msg":"Connected Successfully"}`
		authed     = `{"code":1,"resAc":"auth","msg":"authenticated"}`
		subscribe  = `{"ac":"subscribe","params":"AAPL$US,MSFT$US","types":"quote,tick,depth,kline@1"}`
		subscribed = `{"code":1,"resAc":"subscribe","msg":"subscribe Successfully"}`
		ping       = `{"ac":"ping","params":"1717515000000"}`
		pong       = `{"resAc":"pong","data":{"params":"1717515000000"}}`
	)
	for _, m := range []string{connected, authed, subscribe, subscribed, ping, pong} {
		if !strings.Contains(string(doc), "`"+m+"`") {
			t.Errorf("README.md does not show %s", m)
		}
	}
	cmd := itickCmd(t, nil, "sim")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt) //nolint:errcheck // it may have ended
		cmd.Wait()                       //nolint:errcheck // as above
	}()
	lines := readLines(stdout)
	base := strings.TrimPrefix(lines.waitFor(t, time.Minute, "the ITICK_BASE_URL line", func(s string) bool {
		return strings.HasPrefix(s, "ITICK_BASE_URL=")
	}), "ITICK_BASE_URL=")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/stock",
		&websocket.DialOptions{HTTPHeader: http.Header{"token": {markettest.DefaultToken}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	read := func() string {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, want := range []string{connected, authed} {
		if got := read(); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
	if err := ws.Write(ctx, websocket.MessageText, []byte(subscribe)); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != subscribed {
		t.Fatalf("got %s, want %s", got, subscribed)
	}
	if err := ws.Write(ctx, websocket.MessageText, []byte(ping)); err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{
		"quote": {"ld", "o", "h", "l", "v", "tu", "t"}, "tick": {"ld", "v", "t"}, "depth": {"a", "b"},
		"kline@1": {"o", "h", "l", "c", "v", "tu", "t"},
	}
	seen, ponged := map[string]bool{}, false
	for len(seen) < 2*len(keys) || !ponged {
		msg := read()
		if msg == pong {
			ponged = true
			continue
		}
		var push struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(msg), &push); err != nil || push.Code != 1 {
			t.Fatalf("not a push: %s", msg)
		}
		typ, _ := push.Data["type"].(string)
		sym, _ := push.Data["s"].(string)
		if push.Data["r"] != "US" || sym != "AAPL" && sym != "MSFT" || keys[typ] == nil {
			t.Fatalf("push %s: want s the code alone, r US and a documented type", msg)
		}
		for _, k := range keys[typ] {
			if _, ok := push.Data[k]; !ok {
				t.Errorf("%s push without %s: %s", typ, k, msg)
			}
		}
		seen[typ+" "+sym] = true
	}
}

// TestSimBadFlags checks --addr is host:port and --at (or ITICK_SIM_TIME)
// an RFC 3339 time before anything starts.
func TestSimBadFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--addr", "localhost"}, `--addr "localhost" is not host:port`},
		{nil, []string{"--at", "2025-06-04"}, `--at "2025-06-04" is not an RFC 3339 time`},
		{[]string{markettest.EnvSimTime + "=noon"}, nil, `--at "noon" is not an RFC 3339 time`},
	} {
		r := runCLI(t, c.env, append([]string{"sim"}, c.args...)...)
		if r.code != exitInvalid || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%q %q: exit code %d, stdout %q, stderr %q; want %d and %q", c.env, c.args, r.code, r.stdout, r.stderr, exitInvalid, c.want)
		}
	}
}

// TestShellQuote checks sim's lines read back in a POSIX shell as the
// values they carry.
func TestShellQuote(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, v := range []string{"markettest-token", "http://127.0.0.1:8080", "http://[::1]:8080", "it's $HOME `x` \"y\" \\z", "a b;c"} {
		out, err := exec.Command(sh, "-c", "X="+shellQuote(v)+`; printf %s "$X"`).Output()
		if err != nil || string(out) != v {
			t.Errorf("X=%s reads back as %q (%v), want %q", shellQuote(v), out, err, v)
		}
	}
	if got := shellQuote("markettest-token"); got != "markettest-token" {
		t.Errorf("shellQuote quotes a plain token: %s", got)
	}
}

// TestSimCannotWriteItsLines gives sim a full disk and a closed pipe for
// stdout: a script waiting for its lines would wait forever, so it stops
// at once with exit code 1 and says why.
func TestSimCannotWriteItsLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		open func(t *testing.T) *os.File
		want string
	}{
		{"full", func(t *testing.T) *os.File {
			f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Skipf("no /dev/full: %v", err)
			}
			return f
		}, `^itick: cannot write the output \(the simulator's address lines: write .*: no space left on device\)`},
		{"closed", func(t *testing.T) *os.File {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			return w
		}, `^itick: the output was closed before all of it was written \(the simulator's address lines: .*broken pipe\)$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := c.open(t)
			defer out.Close()
			cmd := itickCmd(t, nil, "sim")
			var errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = out, &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill() //nolint:errcheck // it is failing the test anyway
				<-done
				t.Fatalf("sim still serves a minute after its lines could not be written; stderr %q", errOut.String())
			}
			if code := exitCode(t, err); code != exitFailure {
				t.Errorf("exit code %d, want %d", code, exitFailure)
			}
			if !regexp.MustCompile(c.want).MatchString(strings.TrimSuffix(errOut.String(), "\n")) {
				t.Errorf("stderr %q does not match %s", errOut.String(), c.want)
			}
		})
	}
}
