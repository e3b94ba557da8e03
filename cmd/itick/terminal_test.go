package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// hostileText is what a hostile or broken service may put in its text:
// a window-title sequence ended by BEL, a screen clear, a C1 CSI, a bidi
// override, DEL, and a line break that would start a row of its own.
const hostileText = "Acme\x1b]0;pwned\x07 beats\x1b[2J estimates\u009b31m \u202eevil\x7f\nforged row"

// hostileToken is the token the commands send to the servers of this
// file, which accept any.
const hostileToken = "hostile-test-token-9Q"

// controls returns the characters of s a terminal would act on, in order:
// controls, bidi controls and line separators.
// A byte that is not UTF-8 counts as the rune of its value: a raw 0x9b is
// CSI to a terminal that reads 8-bit controls.
func controls(s string) []rune {
	var out []rune
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, rune(s[i]))
		} else if unicode.In(r, unicode.Cc, unicode.Bidi_Control, unicode.Zl, unicode.Zp) {
			out = append(out, r)
		}
		i += size
	}
	return out
}

func TestTerminalSafe(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, safe, name string }{
		{"Acme 騰訊控股 📈 naïve", "Acme 騰訊控股 📈 naïve", "Acme 騰訊控股 📈 naïve"},
		{"a\x1b]0;x\x07b", `a\x1b]0;x\x07b`, `a\x1b]0;x\x07b`},
		{"a\nb\tc\r", "a b c ", `a\nb\tc\r`},
		{"\x00\x7f", `\x00\x7f`, `\x00\x7f`},
		{"\u009b31m\u0085", `\u009b31m\u0085`, `\u009b31m\u0085`},
		{"\x9b31m\xff", `\x9b31m\xff`, `\x9b31m\xff`}, // not UTF-8: 8-bit controls
		{"abc\u202edef\u2066\u200f", `abc\u202edef\u2066\u200f`, `abc\u202edef\u2066\u200f`},
		{"x\u2028y\u2029\ufeff", `x\u2028y\u2029\ufeff`, `x\u2028y\u2029\ufeff`},
		{"👩\u200d💻 \U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
			"👩\u200d💻 \U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
			"👩\u200d💻 \U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"},
	}
	for _, c := range cases {
		if diff := cmp.Diff([]string{c.safe, c.name}, []string{terminalSafe(c.in), terminalName(c.in)}); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.in, diff)
		}
		for _, got := range []string{terminalSafe(c.in), terminalName(c.in)} {
			if cs := controls(got); len(cs) > 0 {
				t.Errorf("%q leaves %q", c.in, cs)
			}
		}
	}
}

// TestJSONSafe checks jsonSafe leaves no character a terminal acts on and
// changes no value: random strings of hostile and ordinary characters
// read back the same.
func TestJSONSafe(t *testing.T) {
	t.Parallel()
	pool := []rune("aZ0 \"\\/<&é騰📈\x00\x07\x1b\t\n\r\x7f\u0085\u009b\u200d\u200e\u202e\u2028\u2029\u2066\ufeff\U000110bd\U000e0001")
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteRune(pool[r.IntN(len(pool))])
		}
		in := map[string]any{"k\x1b": b.String(), "n": 1.5, "a": []string{b.String(), ""}}
		j, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		safe := jsonSafe(j)
		if cs := controls(string(safe)); len(cs) > 0 {
			t.Fatalf("%s leaves %q", safe, cs)
		}
		var back map[string]any
		if err := json.Unmarshal(safe, &back); err != nil {
			t.Fatalf("%s: %v", safe, err)
		}
		var want map[string]any
		json.Unmarshal(j, &want) //nolint:errcheck // it was just encoded
		if diff := cmp.Diff(want, back); diff != "" {
			t.Fatalf("%s reads back differently (-want +got):\n%s", safe, diff)
		}
	}

	// What a careless service sends: raw controls inside strings, which
	// JSON does not allow, and bytes that are not UTF-8. Outside strings
	// nothing changes.
	for in, want := range map[string]string{
		"{\n  \"t\": \"a\x1b[2Jb\x07\",\t\"n\": [1, 2]\n}": "{\n  \"t\": \"a\\u001b[2Jb\\u0007\",\t\"n\": [1, 2]\n}",
		`{"t":"a\"b\\","u":"\u001b"}`:                      `{"t":"a\"b\\","u":"\u001b"}`,
		"[\"\xff\x9b\"]":                                   `["\ufffd\ufffd"]`,
		"\"\U000110bd\"":                                   `"\ud804\udcbd"`,
	} {
		if got := string(jsonSafe([]byte(in))); got != want {
			t.Errorf("jsonSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// hostileNews serves two headlines whose title and provider hold
// hostileText.
func hostileNews(t *testing.T) *httptest.Server {
	t.Helper()
	body, err := json.Marshal(map[string]any{"code": 0, "msg": "ok", "data": map[string]any{
		"data": []map[string]any{
			{"id": "n1", "te": hostileText, "pt": fixedNow.Unix(), "mt": "stock", "lg": "en", "lk": "https://news.example.com/n1", "pv": "Wire\x07\x1b[5m"},
			{"id": "n2", "te": "Plain title", "pt": fixedNow.Unix() - 60, "mt": "stock", "lg": "en", "lk": "https://news.example.com/n2", "pv": "Desk"},
		},
		"pagination": map[string]any{"nextCursor": "", "hasMore": false, "count": 2},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/news" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body) //nolint:errcheck // the client's to notice
	}))
	t.Cleanup(srv.Close)
	return srv
}

func hostileEnv(srv *httptest.Server) []string {
	return []string{"ITICK_TOKEN=" + hostileToken, "ITICK_BASE_URL=" + srv.URL}
}

// TestNewsTitleOnTerminal prints a headline holding control sequences on
// a terminal: the table shows them escaped, the terminal gets none of
// them, and the title stays on its row.
func TestNewsTitleOnTerminal(t *testing.T) {
	t.Parallel()
	srv := hostileNews(t)
	out, code := runOnTerminal(t, itickCmd(t, hostileEnv(srv), "news", "--limit", "2"))
	if code != 0 {
		t.Fatalf("exit code %d; terminal:\n%q", code, out)
	}
	if cs := controls(strings.ReplaceAll(out, "\n", "")); len(cs) > 0 {
		t.Errorf("the terminal got %q; all of it:\n%q", cs, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want a header and two rows:\n%s", len(lines), out)
	}
	for _, want := range []string{`Wire\x07\x1b[5m`,
		`Acme\x1b]0;pwned\x07 beats\x1b[2J estimates\u009b31m \u202eevil\x7f forged row`} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row %q does not show %s", lines[1], want)
		}
	}
}

// TestNewsTitleExactInCSVAndJSON: CSV and JSON carry the same title
// exactly as it was sent, JSON without a character a terminal acts on.
func TestNewsTitleExactInCSVAndJSON(t *testing.T) {
	t.Parallel()
	srv := hostileNews(t)
	r := runCLI(t, hostileEnv(srv), "news", "--limit", "2", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if r.code != 0 || err != nil || len(recs) != 3 {
		t.Fatalf("exit code %d, %v, %d records; stdout %q, stderr %q", r.code, err, len(recs), r.stdout, r.stderr)
	}
	if diff := cmp.Diff([]string{"Wire\x07\x1b[5m", hostileText}, recs[1][4:6]); diff != "" {
		t.Errorf("CSV provider and title (-want +got):\n%s", diff)
	}

	r = runCLI(t, hostileEnv(srv), "news", "--limit", "2", "--format", "json")
	var items []struct{ Provider, Title string }
	if err := json.Unmarshal([]byte(r.stdout), &items); r.code != 0 || err != nil || len(items) != 2 {
		t.Fatalf("exit code %d, %v; stdout %q, stderr %q", r.code, err, r.stdout, r.stderr)
	}
	if diff := cmp.Diff([]string{"Wire\x07\x1b[5m", hostileText}, []string{items[0].Provider, items[0].Title}); diff != "" {
		t.Errorf("JSON provider and title (-want +got):\n%s", diff)
	}
	if cs := controls(strings.ReplaceAll(r.stdout, "\n", "")); len(cs) > 0 {
		t.Errorf("the JSON holds %q raw: %q", cs, r.stdout)
	}
}

// TestGetOnTerminal: get indents the data for a terminal with the
// service's control characters as \u escapes, the same JSON values, and
// writes it to a pipe byte for byte as it was sent.
func TestGetOnTerminal(t *testing.T) {
	t.Parallel()
	data, err := json.Marshal(map[string]any{"s": hostileText, "ld": 1.5})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"code":0,"msg":"ok","data":%s}`, data)
	}))
	t.Cleanup(srv.Close)
	args := []string{"get", "/stock/quote", "region=US", "code=AAPL"}

	if r := runCLI(t, hostileEnv(srv), args...); r.code != 0 || r.stdout != string(data)+"\n" {
		t.Errorf("to a pipe: exit code %d, stdout %q, stderr %q; want %s as it was sent", r.code, r.stdout, r.stderr, data)
	}

	out, code := runOnTerminal(t, itickCmd(t, hostileEnv(srv), args...))
	if code != 0 {
		t.Fatalf("exit code %d; terminal:\n%q", code, out)
	}
	if cs := controls(strings.ReplaceAll(out, "\n", "")); len(cs) > 0 {
		t.Errorf("the terminal got %q; all of it:\n%q", cs, out)
	}
	var got, want map[string]any
	json.Unmarshal(data, &want) //nolint:errcheck // it was just encoded
	if err := json.Unmarshal([]byte(out), &got); err != nil || !strings.Contains(out, "\n  \"") {
		t.Fatalf("the terminal shows no indented JSON (%v):\n%s", err, out)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the JSON's values differ from the service's (-want +got):\n%s", diff)
	}
}

// TestErrorLineEscaped: a service's error message holding control
// sequences and a line break comes out as one line on stderr, escaped.
func TestErrorLineEscaped(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"code": 400, "msg": hostileText, "data": nil}) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)
	r := runCLI(t, hostileEnv(srv), "quote", "stock", "US", "AAPL")
	if r.code != exitFailure || r.stdout != "" {
		t.Errorf("exit code %d, stdout %q; want %d and nothing", r.code, r.stdout, exitFailure)
	}
	line, ok := strings.CutSuffix(r.stderr, "\n")
	if !ok || strings.Contains(line, "\n") || !strings.HasPrefix(line, "itick: ") {
		t.Fatalf("stderr is not one line: %q", r.stderr)
	}
	if cs := controls(line); len(cs) > 0 {
		t.Errorf("stderr holds %q raw: %q", cs, line)
	}
	if want := `Acme\x1b]0;pwned\x07 beats\x1b[2J estimates\u009b31m \u202eevil\x7f forged row`; !strings.Contains(line, want) {
		t.Errorf("stderr %q does not show the message escaped, %s", line, want)
	}
}

// hostileStream serves the stock stream: it accepts any token, answers
// pings and, once subscribed to, sends pushes.
func hostileStream(t *testing.T, pushes ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := r.Context()
		write := func(msg string) bool { return c.Write(ctx, websocket.MessageText, []byte(msg)) == nil }
		if !write(`{"code":1,"msg":"Connected Successfully"}`) || !write(`{"code":1,"resAc":"auth","msg":"authenticated"}`) {
			return
		}
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			var req struct{ Ac, Params string }
			if json.Unmarshal(msg, &req) != nil {
				continue
			}
			switch req.Ac {
			case "ping":
				write(`{"resAc":"pong","data":{"params":"` + req.Params + `"}}`)
			case "subscribe":
				write(`{"code":1,"resAc":"subscribe","msg":"subscribe Successfully"}`)
				for _, p := range pushes {
					write(p)
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestStreamServerTextEscaped streams pushes whose symbols hold a line
// break that would forge a row of its own, control sequences, a C1 and
// a bidi override: the table shows one line per event with them escaped,
// CSV and JSON carry the symbols exactly.
func TestStreamServerTextEscaped(t *testing.T) {
	t.Parallel()
	at := fixedNow.UnixMilli()
	srv := hostileStream(t,
		fmt.Sprintf(`{"code":1,"data":{"s":"AAPL\n2025-06-02T14:30:00Z     quote      FORGED last=1","r":"US","type":"quote","ld":150.5,"t":%d}}`, at),
		fmt.Sprintf(`{"code":1,"data":{"s":"AAPL","r":"US\u001b]0;pwned\u0007\u001b[2J","type":"quote","ld":150.5,"t":%d}}`, at),
		fmt.Sprintf(`{"code":1,"data":{"s":"AA\u009bPL\u202e","r":"US","type":"quote","ld":150.5,"t":%d}}`, at),
	)
	args := []string{"stream", "stock", "AAPL$US", "--count", "3", "--format"}

	r := runCLI(t, hostileEnv(srv), append(args, "json")...)
	var symbols []string
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var ev struct{ Event, Symbol string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Event != "quote" {
			t.Fatalf("line %q: %v; want a quote", line, err)
		}
		symbols = append(symbols, ev.Symbol)
	}
	if r.code != 0 || len(symbols) != 3 || !strings.Contains(symbols[0], "\n") || !strings.Contains(symbols[1], "\x1b]0;pwned\x07") {
		t.Fatalf("exit code %d, symbols %q, stderr %q; want the three pushes' symbols, line break and ESC included", r.code, symbols, r.stderr)
	}
	if cs := controls(strings.ReplaceAll(r.stdout, "\n", "")); len(cs) > 0 {
		t.Errorf("the JSON holds %q raw: %q", cs, r.stdout)
	}

	r = runCLI(t, hostileEnv(srv), append(args, "csv")...)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 4 {
		t.Fatalf("CSV: %v, %d records: %q", err, len(recs), r.stdout)
	}
	var csvSymbols []string
	for _, rec := range recs[1:] {
		csvSymbols = append(csvSymbols, rec[1])
	}
	if diff := cmp.Diff(symbols, csvSymbols); diff != "" {
		t.Errorf("CSV symbols differ from JSON's (-json +csv):\n%s", diff)
	}

	r = runCLI(t, hostileEnv(srv), append(args, "table")...)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 3 {
		t.Fatalf("exit code %d, %d lines, want 3 events:\n%s", r.code, len(lines), r.stdout)
	}
	for i, want := range []string{`AAPL\n2025-06-02T14:30:00Z     quote      FORGED last=1$US`,
		`AAPL$US\x1b]0;pwned\x07\x1b[2J`, `AA\u009bPL\u202e$US`} {
		if !strings.HasPrefix(lines[i], "2025-06-02T14:30:00Z     quote      "+want+" last=150.5") {
			t.Errorf("line %d is %q, want the quote of %s", i+1, lines[i], want)
		}
		if cs := controls(lines[i]); len(cs) > 0 {
			t.Errorf("line %d holds %q raw: %q", i+1, cs, lines[i])
		}
	}
}
